package rules

import (
	"fmt"
	"github.com/podlint/podlint/finding"
)

var ProgressDeadlineInvalid = &Rule{
	ID: "PL502", Name: "progress-deadline-invalid", Title: "progressDeadlineSeconds is not greater than minReadySeconds",
	Severity: finding.Error,
	Check: func(p *Pass) {
		d := p.Workload.Deployment
		if d == nil {
			return
		}
		spec := p.Workload.Path
		mrsPath := spec.Join("spec.minReadySeconds")
		pdsPath := spec.Join("spec.progressDeadlineSeconds")
		mrs := d.MinReadySeconds
		if d.ProgressDeadlineSeconds == nil {
			if legacyDeploymentAPI(p) || mrs < 600 {
				return
			}
			p.Report(Diagnostic{Path: mrsPath,
				Message: fmt.Sprintf("minReadySeconds %ds is not below the default progressDeadlineSeconds of 600s", mrs),
				Detail:  "The API server rejects the Deployment (progressDeadlineSeconds must be greater than minReadySeconds). Set progressDeadlineSeconds above minReadySeconds plus the time a new Pod needs to become Ready, or lower minReadySeconds."})
			return
		}
		pds := *d.ProgressDeadlineSeconds
		switch {
		case pds < 0:
			p.Report(Diagnostic{Path: pdsPath, Message: fmt.Sprintf("progressDeadlineSeconds %d is negative", pds),
				Detail: "The API server rejects the Deployment. Remove it (600s by default) or give the seconds a rollout may go without progress."})
		case pds <= mrs:
			why := ""
			if pds == 0 {
				why = "; 0 does not switch the deadline off"
			}
			p.Report(Diagnostic{Path: pdsPath, Related: []Related{{Path: mrsPath, Message: fmt.Sprintf("minReadySeconds %d", mrs)}},
				Message: fmt.Sprintf("progressDeadlineSeconds %ds is not greater than minReadySeconds %ds", pds, mrs),
				Detail:  fmt.Sprintf("The API server rejects the Deployment (it must be greater than minReadySeconds%s). Raise progressDeadlineSeconds above minReadySeconds plus the time a new Pod needs to become Ready, or lower minReadySeconds.", why)})
		}
	},
}
