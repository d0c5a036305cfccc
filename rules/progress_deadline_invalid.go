package rules

import (
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
)

var ProgressDeadlineInvalid = &Rule{
	ID: "PL502", Name: "progress-deadline-invalid", Title: "progressDeadlineSeconds is not greater than minReadySeconds",
	Severity: finding.Error,
	Doc: `The API server requires a Deployment's ` + "`progressDeadlineSeconds`" + ` to be non-negative and **greater
than** ` + "`minReadySeconds`" + ` ([Deployment](../semantics.md#deployment), [V-11](../semantics.md#v-11)), and rejects the Deployment otherwise
(` + "`must be greater than minReadySeconds`" + `). The check runs after defaulting, so with the default
deadline of 600 s any ` + "`minReadySeconds`" + ` of 600 or more is rejected, and ` + "`progressDeadlineSeconds: 0`" + `
is rejected too: 0 does not switch the deadline off.

The rule behind it: a new Pod must be Ready and then stay Ready for ` + "`minReadySeconds`" + ` before it
counts as available, and the controller needs to see progress within the deadline.

Only ` + "`apps/v1`" + ` (and ` + "`apps/v1beta2`" + `) default the deadline to 600 s; the long-removed
` + "`extensions/v1beta1`" + ` and ` + "`apps/v1beta1`" + ` Deployments had no deadline by default.

**Fix:** set ` + "`progressDeadlineSeconds`" + ` above ` + "`minReadySeconds`" + ` plus the time a new Pod needs to become
Ready, or lower ` + "`minReadySeconds`" + `.`,
	Check: func(p *Pass) {
		d := p.Workload.Deployment
		if d == nil {
			return
		}
		spec := p.Workload.Path
		mrsPath := timeline.Join(spec, "spec.minReadySeconds")
		pdsPath := timeline.Join(spec, "spec.progressDeadlineSeconds")
		mrs := d.MinReadySeconds
		if d.ProgressDeadlineSeconds == nil {
			if legacyDeploymentAPI(p) || mrs < 600 {
				return
			}
			p.Report(Diagnostic{Path: mrsPath,
				Message: sprintf("minReadySeconds %ds is not below the default progressDeadlineSeconds of 600s; the API server rejects the Deployment (progressDeadlineSeconds must be greater than minReadySeconds); set progressDeadlineSeconds above minReadySeconds plus the time a new Pod needs to become Ready, or lower minReadySeconds", mrs)})
			return
		}
		pds := *d.ProgressDeadlineSeconds
		switch {
		case pds < 0:
			p.Reportf(pdsPath, "progressDeadlineSeconds %d is negative; the API server rejects the Deployment; remove it (600s by default) or give the seconds a rollout may go without progress", pds)
		case pds <= mrs:
			why := ""
			if pds == 0 {
				why = " (0 does not switch the deadline off)"
			}
			p.Report(Diagnostic{Path: pdsPath, Related: []Related{{Path: mrsPath, Message: sprintf("minReadySeconds %d", mrs)}},
				Message: sprintf("progressDeadlineSeconds %ds is not greater than minReadySeconds %ds%s; the API server rejects the Deployment (must be greater than minReadySeconds); raise progressDeadlineSeconds above minReadySeconds plus the time a new Pod needs to become Ready, or lower minReadySeconds", pds, mrs, why)})
		}
	},
}
