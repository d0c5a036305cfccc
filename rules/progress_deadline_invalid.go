package rules

import (
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
