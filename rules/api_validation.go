package rules

import (
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/workload"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// APIValidation reports what the API server's validation refuses outright,
// so that kubectl apply fails and nothing is created. The loader reports a
// built-in kind under the wrong apiVersion (`kind: Pod` in apps/v1); Check
// reports the rest.
var APIValidation = &Rule{
	ID: "PL013", Name: manifest.RuleAPIValidation, Title: "the API server rejects the object",
	Severity: finding.Error,
	Check: func(p *Pass) {
		checkSelector(p)
		if p.PodValidated() {
			checkNegativeProbeFields(p)
		}
	},
}

// selectorOf returns the selector of an apps/v1 controller, its path and
// whether the object is one: apps/v1 requires a selector and does not
// default it from the template labels, unlike extensions/v1beta1.
func selectorOf(p *Pass) (*metav1.LabelSelector, workload.Path, bool) {
	if p.Object.Ref.APIVersion != "apps/v1" {
		return nil, "", false
	}
	w := p.Workload
	path := w.Path.Field("spec").Field("selector")
	switch {
	case w.Deployment != nil:
		return w.Deployment.Selector, path, true
	case w.StatefulSet != nil:
		return w.StatefulSet.Selector, path, true
	case w.DaemonSet != nil:
		return w.DaemonSet.Selector, path, true
	case w.ReplicaSet != nil:
		return w.ReplicaSet.Selector, path, true
	}
	return nil, "", false
}

// checkSelector follows ValidateDeploymentSpec, ValidateStatefulSetSpec,
// ValidateDaemonSetSpec and ValidateReplicaSetSpec (pkg/apis/apps/validation):
// the selector is required, not empty, valid, and matches the template's
// labels. A kustomize patch (a fragment, or an object with neither a
// selector nor template labels) has its selector in the base.
func checkSelector(p *Pass) {
	sel, path, ok := selectorOf(p)
	if !ok || p.IsFragment() {
		return
	}
	kind := p.Workload.Kind
	switch {
	case sel == nil && len(p.Object.TemplateMeta.Labels) == 0:
		// Neither a selector nor template labels: a kustomize patch that
		// sets the image or the replicas, whose base has both.
		return
	case sel == nil:
		p.Reportf(path, "apps/v1 %s has no spec.selector: the API server rejects it (spec.selector: Required value), and apps/v1 does not copy the template labels as extensions/v1beta1 did; add spec.selector.matchLabels with the labels of the pod template", kind)
		return
	case len(sel.MatchLabels)+len(sel.MatchExpressions) == 0:
		p.Reportf(path, "spec.selector of %s is empty: the API server rejects it (empty selector is invalid), because it would select every Pod of the namespace; select the pod template's labels with matchLabels", kind)
		return
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		p.Reportf(path, "spec.selector of %s is not a valid label selector (%v): the API server rejects it; fix the selector", kind, err)
		return
	}
	tmpl := p.Object.TemplateMeta
	if s.Matches(labels.Set(tmpl.Labels)) {
		return
	}
	at := p.Object.TemplatePath.Field("metadata").Field("labels")
	msg := sprintf("the pod template's labels do not match spec.selector (%s) of %s: the API server rejects it (`selector` does not match template `labels`), because the controller would create Pods it does not own; add the selector's labels to spec.template.metadata.labels", s, kind)
	if len(tmpl.Labels) == 0 {
		at = p.Object.TemplatePath.Field("metadata")
		msg = sprintf("the pod template has no labels, so spec.selector (%s) of %s matches none of its Pods: the API server rejects it (`selector` does not match template `labels`); add the selector's labels to spec.template.metadata.labels", s, kind)
	}
	p.Report(Diagnostic{Path: at, Message: msg, Related: []Related{{Path: path, Message: "the selector"}}})
}

// checkNegativeProbeFields follows validateProbe and validateLivenessProbe:
// the five numbers must not be negative, and a probe-level
// terminationGracePeriodSeconds must be greater than 0.
func checkNegativeProbeFields(p *Pass) {
	for _, pr := range p.Probes() {
		name := pr.Container.C.Name
		for _, f := range []struct {
			field string
			v     int32
		}{
			{"initialDelaySeconds", pr.P.InitialDelaySeconds},
			{"timeoutSeconds", pr.P.TimeoutSeconds},
			{"periodSeconds", pr.P.PeriodSeconds},
			{"successThreshold", pr.P.SuccessThreshold},
			{"failureThreshold", pr.P.FailureThreshold},
		} {
			if f.v < 0 {
				p.Report(Diagnostic{Path: pr.Field(f.field), Container: name,
					Message: sprintf("%s %d in the %s of %q is negative: the API server rejects the Pod (must be greater than or equal to 0); write the value you mean, or remove the field for the default", f.field, f.v, pr.Name(), name)})
			}
		}
		if g := pr.P.TerminationGracePeriodSeconds; g != nil && *g <= 0 && pr.Kind != "readinessProbe" {
			p.Report(Diagnostic{Path: pr.Field("terminationGracePeriodSeconds"), Container: name,
				Message: sprintf("terminationGracePeriodSeconds %d in the %s of %q is not positive: the API server rejects the Pod (must be greater than 0); remove it to use the Pod's grace period, or give at least 1s", *g, pr.Name(), name)})
		}
	}
}
