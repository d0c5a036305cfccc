package rules

import "fmt"

import "github.com/podlint/podlint/finding"

var SidecarStartupOrder = &Rule{
	ID: "PL404", Name: "sidecar-startup-order", Title: "containers after a sidecar do not wait for its readiness",
	Severity: finding.Info,
	Check: func(p *Pass) {
		if !p.Version.Sidecars() || p.IsFragment() {
			return
		}
		all := p.Containers()
		for i, c := range all {
			if c.Type != Sidecar || c.C.ReadinessProbe == nil || c.C.StartupProbe != nil || (c.C.Lifecycle != nil && c.C.Lifecycle.PostStart != nil) {
				continue
			}
			var later []containerName
			for _, o := range all[i+1:] {
				later = append(later, o.Name())
			}
			if len(later) == 0 {
				continue
			}
			verb := "start"
			if len(later) == 1 {
				verb = "starts"
			}
			p.Report(Diagnostic{Path: c.Path, Container: c.C.Name, Related: []Related{{Path: c.Field("readinessProbe"), Message: "readiness does not gate the start of later containers"}},
				Message: fmt.Sprintf("containers after sidecar %q start without waiting for it to be ready", c.Name()),
				Detail: fmt.Sprintf("%s, declared after sidecar %q, %s as soon as %q is running, without waiting for its readiness probe to pass. If %s %q at start-up, add a startupProbe to it (the next container then waits until it succeeds).",
					quoted(later, 4), c.Name(), verb, c.Name(), map[bool]string{true: "it needs", false: "they need"}[len(later) == 1], c.Name())})
		}
	},
}
