package render

import (
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Go runs the init of every package linked into an executable, used or
// not. Helm's chartutil (which its engine and releaseutil import) links
// santhosh-tekuri/jsonschema, which compiles its meta-schemas at init, and
// client-go's scheme, which registers every Kubernetes API group; with
// kustomize's API and Helm's chart types they were about 70 % of what a
// podlint run on one small file did (docs/performance.md, "Start-up"). So
// this package reaches those libraries only through Engine, which package
// render/engine implements and only the render executable
// (cmd/podlint-render) and the test binaries that render link. podlint
// itself links none of it and renders by starting that executable, which
// it does for every root anyway (child.go).

// Engine is the part of Helm and kustomize that renders, as rendering
// calls it.
type Engine interface {
	// Chart renders the Helm chart in dir as `helm template` does
	// (RenderChart); everything that needs Helm's chart types is behind
	// it, since they link Masterminds/semver, whose init compiles its
	// regular expressions.
	Chart(dir string, opt HelmOptions) *Output
	// Kustomize is `kustomize build dir` (krusty with its default options)
	// reading through fs, with each resource's origin annotation read and
	// removed.
	Kustomize(fs filesys.FileSystem, dir string) ([]Resource, error)
}

// Resource is one resource a kustomization built.
type Resource struct {
	Kind, Name string
	// OriginPath is the file it came from, relative to the kustomization
	// ("" when kustomize does not know); OriginConfiguredIn is the
	// generator or transformer configuration that made it, likewise.
	OriginPath, OriginConfiguredIn string
	// YAML is the resource as kustomize writes it, or Err why it cannot.
	YAML []byte
	Err  error
}

// linked is the Engine of this process, nil in podlint itself.
var linked Engine

// Link makes this process one that renders: ChildMain renders with e, and
// a parent starts its own executable as its render child rather than the
// render executable beside it (which is how test binaries render).
func Link(e Engine) { linked = e }

// Linked reports whether this process renders itself (Link was called).
func Linked() bool { return linked != nil }

// notLinkedProblem is what RenderChart and RenderKustomization say in a
// process that did not Link an engine: a program that links package
// render and calls them without linking render/engine.
func notLinkedProblem(file string) Problem {
	return Problem{File: file, Line: 1, Column: 1,
		Message: "this executable does not link Helm's engine or kustomize, so nothing of this root was rendered",
		Detail:  "Call engine.Link (package render/engine) before rendering in process; podlint renders by starting podlint-render."}
}

// AddValuesFile records a values file the chart was rendered with, in
// precedence order (the chart's values.yaml first), for the related
// locations of findings.
func (r *Output) AddValuesFile(path string, data []byte) {
	r.valuesFiles = append(r.valuesFiles, valuesFile{path, data})
}
