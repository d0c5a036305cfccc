package rules

import "fmt"

import "github.com/podlint/podlint/finding"

var HookTCPSocket = &Rule{
	ID: "PL204", Name: "hook-tcp-socket", Title: "lifecycle hook uses tcpSocket, which fails at runtime",
	Severity: finding.Error,
	Doc: `A lifecycle handler accepts ` + "`tcpSocket`" + ` in its schema, and the API server lets it through, but
the kubelet does not implement it: running the hook fails with ` + "`Cannot run handler: invalid handler`" + `.
The API reference says so: "Deprecated. TCPSocket is NOT supported as a LifecycleHandler and kept
for backward compatibility. There is no validation of this field and lifecycle hooks will fail at
runtime when it is specified." What happens next depends on the hook:

* ` + "`postStart`" + `: a failed postStart hook makes the kubelet kill the container
  (` + "`FailedPostStartHook`" + `) right after every start and restart it according to the restart
  policy, so the container never runs: it ends in ` + "`CrashLoopBackOff`" + `, and a Job's Pod fails.
* ` + "`preStop`" + `: the failure is only logged (` + "`FailedPreStopHook`" + `) and the container gets its stop
  signal at once, so whatever the hook was meant to wait for (a connection draining, a port
  closing) does not happen.

Unlike a probe, a hook cannot simply check that a port is open.

**Fix:** use an ` + "`exec`" + ` handler (for example ` + "`[\"sh\", \"-c\", \"until nc -z localhost 5432; do sleep 1; done\"]`" + `),
an ` + "`httpGet`" + ` handler, or, for a plain delay before SIGTERM, ` + "`sleep`" + ` (Kubernetes 1.30 and later).`,
	Check: func(p *Pass) {
		for _, h := range p.Hooks() {
			if h.H.TCPSocket == nil {
				continue
			}
			name := h.Container.C.Name
			detail := "The hook fails at once (FailedPreStopHook) and the container gets SIGTERM without the intended wait. Use an exec, httpGet or sleep handler."
			if h.Kind == "postStart" {
				detail = "The hook fails on every start, so the container is killed (FailedPostStartHook) and restarted forever (CrashLoopBackOff). Use an exec or httpGet handler."
			}
			p.Report(Diagnostic{Path: h.Field("tcpSocket"), Container: name,
				Message: fmt.Sprintf("%s of %q uses tcpSocket, which the kubelet does not implement", h.Kind, name), Detail: detail})
		}
	},
}
