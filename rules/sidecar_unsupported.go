package rules

import "github.com/podlint/podlint/finding"

var SidecarUnsupported = &Rule{
	ID: "PL402", Name: "sidecar-unsupported", Title: "sidecar container on a Kubernetes version without sidecars",
	Severity: finding.Error,
	Doc: `An init container with ` + "`restartPolicy: Always`" + ` is a sidecar: it starts in its init slot, the next
containers start as soon as it runs (or its startup probe passed), and it keeps running beside
the app ([R-4](../semantics.md#r-4)). That needs the SidecarContainers feature, beta and on by default since
Kubernetes 1.29 (alpha and off in 1.28, GA in 1.33).

On an older cluster the field does not take effect: 1.28 drops it silently, and before 1.28 the
field does not exist (kubectl rejects it as an unknown field, or the API server drops it). The
container then runs as a regular init container, and the next init container and the app
containers wait for it to **exit**. A sidecar is written to keep running (a proxy, a log shipper),
so it never exits: the Pod stays in ` + "`Init:0/1`" + ` forever and the app never starts.

podlint checks against ` + "`--kube-version`" + ` (default: the latest release).

**Fix:** run the workload on Kubernetes 1.29 or later; on an older cluster, move the container to
` + "`containers`" + ` (it then starts together with the app, without ordering).`,
	Check: func(p *Pass) {
		if p.Version.Sidecars() {
			return
		}
		n := len(p.Spec.InitContainers)
		for i, c := range p.Containers() {
			if c.Type != Sidecar {
				continue
			}
			fate := "drops restartPolicy silently"
			if !p.Version.AtLeast(28) {
				fate = "does not know restartPolicy on init containers (kubectl rejects the unknown field; applied without validation, the server drops it)"
			}
			p.Report(Diagnostic{Path: c.Field("restartPolicy"), Container: c.C.Name,
				Message: sprintf("init container %q is a sidecar (restartPolicy: Always), which needs Kubernetes 1.29; %s %s, so it runs as a regular init container that the next containers wait for: if it keeps running, the Pod stays in Init:%d/%d and %s; upgrade the cluster, or move it to containers",
					c.C.Name, p.Version, fate, i, n, neverStart(p))})
		}
	},
}
