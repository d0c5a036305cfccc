// Package engine links Helm's engine and kustomize into the processes that
// render: the render executable (cmd/podlint-render) and the test binaries
// of the packages whose tests render. podlint itself does not import it,
// so that a run on plain YAML does not pay these libraries' package inits
// (render/engine.go says why).
package engine

import (
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	helmengine "helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/releaseutil"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/podlint/podlint/render"
)

// Link makes this process render with Helm and kustomize (render.Link).
func Link() { render.Link(libraries{}) }

type libraries struct{}

func (libraries) Dependencies(ch *chart.Chart, vals map[string]any) error {
	return chartutil.ProcessDependenciesWithMerge(ch, vals)
}

// capabilities are Helm's defaults with KubeVersion from v when it parses,
// as `helm template --kube-version v` has them.
func capabilities(v string) *chartutil.Capabilities {
	caps := chartutil.DefaultCapabilities.Copy()
	if v != "" {
		if kv, err := chartutil.ParseKubeVersion(v); err == nil {
			caps.KubeVersion = *kv
		}
	}
	return caps
}

func (libraries) KubeVersion(v string) string { return capabilities(v).KubeVersion.String() }

func (libraries) Compatible(constraint, version string) bool {
	return chartutil.IsCompatibleRange(constraint, version)
}

func (libraries) Values(ch *chart.Chart, vals map[string]any, rel render.Release, kubeVersion string) (map[string]any, error) {
	opts := chartutil.ReleaseOptions{Name: rel.Name, Namespace: rel.Namespace, Revision: rel.Revision, IsInstall: rel.IsInstall}
	return chartutil.ToRenderValues(ch, vals, opts, capabilities(kubeVersion))
}

func (libraries) Render(ch *chart.Chart, values map[string]any) (map[string]string, error) {
	return helmengine.Render(ch, values)
}

func (libraries) Sort(files map[string]string) (manifests, hooks []render.Named, err error) {
	hs, ms, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	if err != nil {
		return nil, nil, err
	}
	for _, m := range ms {
		manifests = append(manifests, render.Named{Name: m.Name, Content: m.Content})
	}
	for _, h := range hs {
		hooks = append(hooks, render.Named{Name: h.Path, Content: h.Manifest})
	}
	return manifests, hooks, nil
}

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
