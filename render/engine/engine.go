// Package engine links Helm's engine and kustomize into the processes that
// render: the render executable (cmd/podlint-render) and the test binaries
// of the packages whose tests render. podlint itself does not import it,
// so that a run on plain YAML does not pay these libraries' package inits
// (render/engine.go says why).
//
// It makes no API promise: it is podlint's own, serving its commands, and
// may change in any commit. Use the podlint command, not this package.
package engine

import (
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/podlint/podlint/render"
)

// Link makes this process render with Helm and kustomize (render.Link).
func Link() { render.Link(libraries{}) }

type libraries struct{}

func (libraries) Kustomize(fs filesys.FileSystem, dir string) ([]render.Resource, error) {
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, dir)
	if err != nil {
		return nil, err
	}
	out := make([]render.Resource, 0, m.Size())
	for _, r := range m.Resources() {
		res := render.Resource{Kind: r.GetKind(), Name: r.GetName()}
		if or, err := r.GetOrigin(); err == nil && or != nil {
			res.OriginPath, res.OriginConfiguredIn = or.Path, or.ConfiguredIn
		}
		// The origin annotation is podlint's request (originFS), not the
		// kustomization's: the output is linted without it.
		if a := r.GetAnnotations(); hasOrigin(a) {
			delete(a, originAnnotation)
			_ = r.SetAnnotations(a)
		}
		res.YAML, res.Err = r.AsYAML()
		out = append(out, res)
	}
	return out, nil
}

const originAnnotation = "config.kubernetes.io/origin"

func hasOrigin(a map[string]string) bool {
	_, ok := a[originAnnotation]
	return ok
}
