package rules

import "github.com/podlint/podlint/finding"

var HookTCPSocket = &Rule{
	ID: "PL204", Name: "hook-tcp-socket", Title: "lifecycle hook uses tcpSocket, which fails at runtime",
	Severity: finding.Error,
	Check: func(p *Pass) {
		for _, h := range p.Hooks() {
			if h.H.TCPSocket == nil {
				continue
			}
			name := h.Container.C.Name
			var msg string
			if h.Kind == "postStart" {
				msg = sprintf("postStart of %q uses tcpSocket, which the kubelet does not implement: the hook fails on every start, so the container is killed (FailedPostStartHook) and restarted forever (CrashLoopBackOff); use an exec or httpGet handler", name)
			} else {
				msg = sprintf("preStop of %q uses tcpSocket, which the kubelet does not implement: the hook fails at once (FailedPreStopHook) and the container gets SIGTERM without the intended wait; use an exec, httpGet or sleep handler", name)
			}
			p.Report(Diagnostic{Path: h.Field("tcpSocket"), Container: name, Message: msg})
		}
	},
}
