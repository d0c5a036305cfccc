package rules

import "github.com/podlint/podlint/finding"

var SidecarStartupOrder = &Rule{
	ID: "PL404", Name: "sidecar-startup-order", Title: "containers after a sidecar do not wait for its readiness",
	Severity: finding.Info,
	Doc: `Containers declared after a sidecar (init containers with ` + "`restartPolicy: Always`" + `) start as soon as
the sidecar is **running** – or, if it has a ` + "`startupProbe`" + `, as soon as that probe has succeeded
([R-4](../semantics.md#r-4)). A sidecar's readiness probe does not hold anything back: it only gates the Pod's
Ready condition ([PH-2](../semantics.md#ph-2)). So an app that needs its proxy, its secrets agent or its database
tunnel at start-up can start while the sidecar is still coming up, fail its first connections and,
depending on how it handles that, crash and restart.

podlint reports a sidecar that has a ` + "`readinessProbe`" + ` but neither a ` + "`startupProbe`" + ` nor a ` + "`postStart`" + ` hook
(which also holds back the next container, and is how some meshes wait for their proxy) and has
containers declared after it: the readiness probe suggests that the sidecar needs time to become
usable, and nothing makes the later containers wait for that.

This rule is informational: if the containers after the sidecar cope with it not being ready
yet, there is nothing to fix.

**Fix:** add a ` + "`startupProbe`" + ` to the sidecar that passes when it is usable (often the same check as its
readiness probe); the next container then starts only after it succeeded.`,
	Check: func(p *Pass) {
		if !p.Version.Sidecars() || p.IsFragment() {
			return
		}
		all := p.Containers()
		for i, c := range all {
			if c.Type != Sidecar || c.C.ReadinessProbe == nil || c.C.StartupProbe != nil || (c.C.Lifecycle != nil && c.C.Lifecycle.PostStart != nil) {
				continue
			}
			var later []string
			for _, o := range all[i+1:] {
				later = append(later, o.C.Name)
			}
			if len(later) == 0 {
				continue
			}
			verb := "start"
			if len(later) == 1 {
				verb = "starts"
			}
			p.Report(Diagnostic{Path: c.Path, Container: c.C.Name, Related: []Related{{Path: c.Field("readinessProbe"), Message: "readiness does not gate the start of later containers"}},
				Message: sprintf("%s, declared after sidecar %q, %s as soon as %q is running, without waiting for its readiness probe to pass; if %s %q at start-up, add a startupProbe to it (the next container then waits until it succeeds)",
					nameList(later, 4), c.C.Name, verb, c.C.Name, map[bool]string{true: "it needs", false: "they need"}[len(later) == 1], c.C.Name)})
		}
	},
}
