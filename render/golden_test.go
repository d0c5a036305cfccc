package render

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"
)

// goldenKube is the --kube-version testdata/record.sh gives helm template.
const goldenKube = "1.37"

// TestGolden compares the objects podlint renders with the output of the
// real `helm template` and `kustomize build`, recorded by
// testdata/record.sh (see testdata/README.md). Objects are compared as
// data, in any order; for Helm each also by the template that produced it.
func TestGolden(t *testing.T) {
	helm := func(chart string, ho HelmOptions) func() *Output {
		return func() *Output {
			ho.KubeVersion = goldenKube
			return RenderChart(filepath.Join("testdata/helm", chart), ho)
		}
	}
	cases := map[string]func() *Output{
		"helm-podinfo":                     helm("podinfo", HelmOptions{}),
		"helm-podinfo-prod":                helm("podinfo", HelmOptions{Values: []string{"testdata/helm/podinfo/values-prod.yaml"}}),
		"helm-podinfo-named":               helm("podinfo", HelmOptions{ReleaseName: "shop", Namespace: "web", Set: []string{"replicaCount=3"}}),
		"helm-ingress-nginx":               helm("ingress-nginx", HelmOptions{}),
		"helm-ingress-nginx-ci-deployment": helm("ingress-nginx", HelmOptions{Values: []string{"testdata/helm/ingress-nginx/ci/controller-deployment-values.yaml"}}),
		"helm-ingress-nginx-ci-daemonset":  helm("ingress-nginx", HelmOptions{Values: []string{"testdata/helm/ingress-nginx/ci/controller-daemonset-metrics-values.yaml"}}),
		"helm-promtail":                    helm("promtail", HelmOptions{}),
		"helm-promtail-ci-deployment":      helm("promtail", HelmOptions{Values: []string{"testdata/helm/promtail/ci/deployment-values.yaml"}}),
		"helm-subchart":                    helm("subchart", HelmOptions{Set: []string{"token=x"}}),
	}
	kdirs, _ := filepath.Glob("testdata/golden/kustomize-*.yaml")
	for _, g := range kdirs {
		name := strings.TrimSuffix(filepath.Base(g), ".yaml")
		dir := kustomizeGoldenDir(t, strings.TrimPrefix(name, "kustomize-"))
		cases[name] = func() *Output { return RenderKustomization(dir) }
	}
	goldens, _ := filepath.Glob("testdata/golden/*.yaml")
	if len(goldens) != len(cases) {
		t.Errorf("%d golden files for %d cases: every recorded output needs a case and every case a recording", len(goldens), len(cases))
	}
	for name, render := range cases {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata/golden", name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			r := render()
			if len(r.Problems) > 0 {
				t.Fatalf("problems: %+v", r.Problems)
			}
			var got []string
			for _, d := range r.Docs {
				got = append(got, canonical(t, d.Name, d.YAML)...)
			}
			w := goldenObjects(t, want)
			slices.Sort(got)
			slices.Sort(w)
			if len(w) == 0 {
				t.Fatal("the recording holds no objects")
			}
			if !slices.Equal(got, w) {
				for _, g := range got {
					if !slices.Contains(w, g) {
						t.Errorf("rendered but not in the recording:\n%s", g)
					}
				}
				for _, x := range w {
					if !slices.Contains(got, x) {
						t.Errorf("recorded but not rendered:\n%s", x)
					}
				}
			}
		})
	}
}

// kustomizeGoldenDir finds the kustomization a recording is named after
// ("ldap-overlays-staging" → testdata/kustomize/ldap/overlays/staging).
func kustomizeGoldenDir(t *testing.T, name string) string {
	var found string
	filepath.WalkDir("testdata/kustomize", func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && kustFile(p) != "" {
			rel, _ := filepath.Rel("testdata/kustomize", p)
			if strings.ReplaceAll(filepath.ToSlash(rel), "/", "-") == name {
				found = p
			}
		}
		return nil
	})
	if found == "" {
		t.Fatalf("no kustomization for recording %s", name)
	}
	return found
}

// randomName is podinfo's test hooks' names, which end in
// randAlphaNum 5: they differ between any two renderings.
var randomName = regexp.MustCompile(`(-test)-[a-z0-9]{5}"`)

var sourceComment = regexp.MustCompile(`(?m)^# Source: (.*)$`)

// goldenObjects splits recorded output into canonical objects.
func goldenObjects(t *testing.T, data []byte) []string {
	var out []string
	for _, doc := range bytes.Split(append([]byte("\n"), data...), []byte("\n---\n")) {
		source := ""
		if m := sourceComment.FindSubmatch(doc); m != nil {
			source = string(m[1])
		}
		out = append(out, canonical(t, source, string(doc))...)
	}
	return out
}

// canonical is a document as sorted JSON, prefixed by its source; a
// document without an object yields nothing.
func canonical(t *testing.T, source, doc string) []string {
	t.Helper()
	var out []string
	for _, part := range strings.Split("\n"+doc, "\n---\n") {
		var v any
		if err := sigsyaml.Unmarshal([]byte(part), &v); err != nil {
			t.Fatalf("%s: %v", source, err)
		}
		if v == nil {
			continue
		}
		b, _ := json.MarshalIndent(v, "", " ")
		out = append(out, source+"\n"+randomName.ReplaceAllString(string(b), "$1-RANDOM\""))
	}
	return out
}
