package rules

import (
	"fmt"
	"strings"

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
		checkDaemonSetStrategy(p)
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
		p.Report(Diagnostic{Path: path,
			Message: fmt.Sprintf("apps/v1 %s has no spec.selector, so the API server rejects it", kind),
			Detail:  "The API server answers `spec.selector: Required value`: apps/v1 does not copy the template labels into the selector as extensions/v1beta1 did. Add spec.selector.matchLabels with the labels of the pod template."})
		return
	case len(sel.MatchLabels)+len(sel.MatchExpressions) == 0:
		p.Report(Diagnostic{Path: path,
			Message: fmt.Sprintf("spec.selector of %s is empty, so the API server rejects it", kind),
			Detail:  "An empty selector would select every Pod of the namespace, and validation refuses it (`empty selector is invalid for deployment`). Select the pod template's labels with matchLabels."})
		return
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		p.Report(Diagnostic{Path: path,
			Message: fmt.Sprintf("spec.selector of %s is not a valid label selector", kind),
			Detail:  fmt.Sprintf("The API server rejects it: %v. Fix the selector.", err)})
		return
	}
	tmpl := p.Object.TemplateMeta
	if s.Matches(labels.Set(tmpl.Labels)) {
		return
	}
	at := p.Object.TemplatePath.Field("metadata").Field("labels")
	msg := fmt.Sprintf("the pod template's labels do not match the selector of %s (%s)", kind, s)
	detail := "The API server rejects the object (`selector` does not match template `labels`), because the controller would create Pods it does not own. Add the selector's labels to spec.template.metadata.labels."
	if len(tmpl.Labels) == 0 {
		at = p.Object.TemplatePath.Field("metadata")
		msg = fmt.Sprintf("the pod template has no labels, so the selector of %s (%s) matches none", kind, s)
	}
	p.Report(Diagnostic{Path: at, Message: msg, Detail: detail, Related: []Related{{Path: path, Message: "the selector"}}})
}

// checkNegativeProbeFields follows validateProbe and validateLivenessProbe:
// the five numbers must not be negative, and a probe-level
// terminationGracePeriodSeconds must be greater than 0.
func checkNegativeProbeFields(p *Pass) {
	for _, pr := range p.Probes() {
		name := pr.Container.Name()
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
				p.Report(Diagnostic{Path: pr.Field(f.field), Container: name.Name,
					Message: fmt.Sprintf("%s %d in the %s of %q is negative: the Pod is rejected", f.field, f.v, pr.Name(), name),
					Detail:  "The API server rejects the Pod: validation requires the value to be greater than or equal to 0. Write the value you mean, or remove the field for the default."})
			}
		}
		if g := pr.P.TerminationGracePeriodSeconds; g != nil && *g <= 0 && pr.Kind != "readinessProbe" {
			p.Report(Diagnostic{Path: pr.Field("terminationGracePeriodSeconds"), Container: name.Name,
				Message: fmt.Sprintf("terminationGracePeriodSeconds %d in the %s of %q is not positive: the Pod is rejected", *g, pr.Name(), name),
				Detail:  "The API server rejects the Pod: validation requires a probe-level grace period greater than 0. Remove it to use the Pod's grace period, or give at least 1s."})
		}
	}
}

// checkDaemonSetStrategy follows ValidateRollingUpdateDaemonSet: after
// defaulting (maxUnavailable 1, maxSurge 0) exactly one of the two must be
// non-zero, so a DaemonSet that sets only maxSurge is rejected.
func checkDaemonSetStrategy(p *Pass) {
	t := p.Timeline()
	if t == nil || t.DaemonSet == nil || t.DaemonSet.Invalid == "" || p.IsFragment() {
		return
	}
	d := t.DaemonSet
	msg, fix := "the API server rejects maxSurge beside a non-zero maxUnavailable", "Set maxUnavailable: 0 to surge, or remove maxSurge."
	switch {
	case strings.HasPrefix(d.Invalid, "maxUnavailable cannot be 0"):
		msg, fix = "the API server rejects maxUnavailable 0 without a maxSurge", "Set maxUnavailable or maxSurge above 0."
	case !strings.HasPrefix(d.Invalid, "maxSurge may not"):
		msg, fix = "the API server rejects this DaemonSet update strategy", "Use a non-negative number or a percentage."
	}
	p.Report(Diagnostic{Path: d.InvalidPath, Message: msg,
		Detail: fmt.Sprintf("A DaemonSet rolling update either replaces Pods node by node (maxUnavailable, maxSurge 0) or surges (maxSurge, maxUnavailable 0), so after defaulting exactly one of the two must be non-zero (%s); here maxSurge is %s and maxUnavailable %s. kubectl apply fails and the DaemonSet is not created or updated. %s",
			d.Invalid, intOrPercentText(p, "maxSurge", "0"), intOrPercentText(p, "maxUnavailable", "1"), fix)})
}

// intOrPercentText is a DaemonSet rollingUpdate field as written, or its
// default.
func intOrPercentText(p *Pass, field, def string) string {
	ru := p.Workload.DaemonSet.UpdateStrategy.RollingUpdate
	if ru == nil {
		return def + " (default)"
	}
	v := ru.MaxSurge
	if field == "maxUnavailable" {
		v = ru.MaxUnavailable
	}
	if v == nil {
		return def + " (default)"
	}
	return v.String()
}
