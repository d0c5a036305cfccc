// Package gencrd writes kustomizations shaped like real operator installs,
// for the render benchmarks and tests: CustomResourceDefinitions of a few
// MB each (deep openAPIV3Schema trees, as controller-gen emits them), a
// Deployment, a Service, and an overlay that patches the Deployment. It is
// the Go form of ../shared/tools/gen-crd-kustomization.py, so that no
// multi-MB file is committed and `go test` needs nothing outside the
// repository; the same arguments write byte-identical files.
//
// Like every package of podlint, it makes no API promise.
package gencrd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Write writes base/ and overlay/ under dir: n CRDs of about size bytes
// each in base, and the overlay that names ../base. Build dir/overlay.
func Write(dir string, n int, size int) error {
	base, over := filepath.Join(dir, "base"), filepath.Join(dir, "overlay")
	for _, d := range []string{base, over} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	files := map[string]string{
		filepath.Join(base, "deployment.yaml"):    deployment,
		filepath.Join(base, "service.yaml"):       service,
		filepath.Join(over, "kustomization.yaml"): overlay,
	}
	var kust strings.Builder
	kust.WriteString("resources:\n")
	for i := range n {
		name := fmt.Sprintf("crd-%d.yaml", i)
		files[filepath.Join(base, name)] = CRD(i, size)
		fmt.Fprintf(&kust, "  - %s\n", name)
	}
	kust.WriteString("  - deployment.yaml\n  - service.yaml\n")
	files[filepath.Join(base, "kustomization.yaml")] = kust.String()
	for p, text := range files {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// CRD is CustomResourceDefinition i whose schema is a tree of depth 4,
// widened until its text is at least size bytes (or 61 wide).
func CRD(i, size int) string {
	var body strings.Builder
	for width := 2; ; width++ {
		body.Reset()
		schema(&body, 4, width, i, 6)
		if body.Len() >= size || width > 60 {
			break
		}
	}
	return fmt.Sprintf("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets%d.example.com\n"+
		"spec:\n  group: example.com\n  names:\n    kind: Widget%d\n    plural: widgets%d\n  scope: Namespaced\n  versions:\n"+
		"    - name: v1\n      served: true\n      storage: true\n      schema:\n        openAPIV3Schema:\n%s\n", i, i, i, strings.TrimSuffix(body.String(), "\n"))
}

// schema writes the object at depth (a string leaf at 0) indented by ind
// levels of two spaces.
func schema(b *strings.Builder, depth, width, seed, ind int) {
	pad := strings.Repeat("  ", ind)
	if depth == 0 {
		fmt.Fprintf(b, "%stype: \"string\"\n%sdescription: \"leaf field %d: %s\"\n", pad, pad, seed, strings.Repeat("x", 60))
		return
	}
	fmt.Fprintf(b, "%stype: \"object\"\n%sdescription: \"object at depth %d (%d)\"\n%sproperties:\n", pad, pad, depth, seed, pad)
	for i := range width {
		fmt.Fprintf(b, "%s  f%d_%d:\n", pad, depth, i)
		schema(b, depth-1, width, seed*width+i, ind+2)
	}
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller
spec:
  replicas: 1
  selector:
    matchLabels: {app: controller}
  template:
    metadata:
      labels: {app: controller}
    spec:
      containers:
        - name: controller
          image: example/controller:1
          ports: [{name: http, containerPort: 8080}]
          livenessProbe: {httpGet: {path: /healthz, port: http}, initialDelaySeconds: 5, periodSeconds: 10}
          readinessProbe: {httpGet: {path: /readyz, port: http}}
`

const service = `apiVersion: v1
kind: Service
metadata:
  name: controller
spec:
  selector: {app: controller}
  ports: [{port: 80, targetPort: http}]
`

const overlay = `namespace: widgets
resources:
  - ../base
patches:
  - target: {kind: Deployment, name: controller}
    patch: |-
      - op: replace
        path: /spec/replicas
        value: 2
`
