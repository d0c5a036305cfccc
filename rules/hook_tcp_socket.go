package rules

import "fmt"

import "github.com/podlint/podlint/finding"

var HookTCPSocket = &Rule{
	ID: "PL204", Name: "hook-tcp-socket", Title: "lifecycle hook uses tcpSocket, which fails at runtime",
	Severity: finding.Error,
	Check: func(p *Pass) {
		for _, h := range p.Hooks() {
			if h.H.TCPSocket == nil {
				continue
			}
			name := h.Container.Name()
			detail := "The hook fails at once (FailedPreStopHook) and the container gets SIGTERM without the intended wait. Use an exec, httpGet or sleep handler."
			if h.Kind == "postStart" {
				detail = "The hook fails on every start, so the container is killed (FailedPostStartHook) and restarted forever (CrashLoopBackOff). Use an exec or httpGet handler."
			}
			p.Report(Diagnostic{Path: h.Field("tcpSocket"), Container: name.Name,
				Message: fmt.Sprintf("%s of %q uses tcpSocket, which the kubelet does not implement", h.Kind, name), Detail: detail})
		}
	},
}
