package rules

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/workload"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var ProbeHandlerInvalid = &Rule{
	ID: "PL114", Name: "probe-handler-invalid", Title: "probe handler is missing, ambiguous or malformed",
	Severity: finding.Error,
	Check: func(p *Pass) {
		for _, pr := range p.Probes() {
			checkProbeHandler(p, pr)
		}
	},
}

func checkProbeHandler(p *Pass, pr ProbeRef) {
	h := &pr.P.ProbeHandler
	name := pr.Container.C.Name
	var set []string
	if h.Exec != nil {
		set = append(set, "exec")
	}
	if h.HTTPGet != nil {
		set = append(set, "httpGet")
	}
	if h.TCPSocket != nil {
		set = append(set, "tcpSocket")
	}
	if h.GRPC != nil {
		set = append(set, "grpc")
	}
	report := func(path workload.Path, format string, args ...any) {
		p.Report(Diagnostic{Path: path, Container: name, Message: sprintf(format, args...)})
	}
	switch len(set) {
	case 0:
		report(pr.Path, "%s of %q has no handler, so the API server rejects the Pod; add exactly one of exec, httpGet, tcpSocket or grpc", pr.Name(), name)
		return
	case 1:
	default:
		report(pr.Path, "%s of %q sets both %s; a probe may have only one handler and the API server rejects the Pod; keep one", pr.Name(), name, strings.Join(set, " and "))
		return
	}
	switch {
	case h.Exec != nil:
		if len(h.Exec.Command) == 0 {
			report(pr.Field("exec"), "%s of %q has an exec handler without a command, so the API server rejects the Pod; add the command to run", pr.Name(), name)
		}
	case h.HTTPGet != nil:
		checkPort(report, pr.Field("httpGet.port"), pr.Name(), name, h.HTTPGet.Port)
		if s := h.HTTPGet.Scheme; s != "" && s != corev1.URISchemeHTTP && s != corev1.URISchemeHTTPS {
			report(pr.Field("httpGet.scheme"), "%s of %q uses scheme %q; only HTTP and HTTPS are accepted (upper case), so the API server rejects the Pod", pr.Name(), name, s)
		}
	case h.TCPSocket != nil:
		checkPort(report, pr.Field("tcpSocket.port"), pr.Name(), name, h.TCPSocket.Port)
	case h.GRPC != nil:
		if h.GRPC.Port < 1 || h.GRPC.Port > 65535 {
			report(pr.Field("grpc.port"), "%s of %q uses gRPC port %d, outside 1–65535, so the API server rejects the Pod", pr.Name(), name, h.GRPC.Port)
		}
	}
}

var portNameChars = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// portNameProblem explains why s is not an IANA service name, as the API
// server's IsValidPortName would, or returns "".
func portNameProblem(s string) string {
	switch {
	case s == "":
		return "the port is empty"
	case len(s) > 15:
		return "port names are at most 15 characters"
	case !portNameChars.MatchString(s):
		return "port names contain only lower-case letters, digits and inner hyphens"
	case strings.Contains(s, "--"):
		return "port names may not contain two hyphens in a row"
	case strings.IndexFunc(s, func(r rune) bool { return r >= 'a' && r <= 'z' }) < 0:
		return "port names must contain at least one letter"
	}
	return ""
}

func checkPort(report func(workload.Path, string, ...any), path workload.Path, probe, container string, port intstr.IntOrString) {
	if port.Type == intstr.Int {
		if port.IntVal < 1 || port.IntVal > 65535 {
			report(path, "%s of %q uses port %d, outside 1–65535, so the API server rejects the Pod", probe, container, port.IntVal)
		}
		return
	}
	if why := portNameProblem(port.StrVal); why != "" {
		if _, err := strconv.Atoi(port.StrVal); err == nil {
			report(path, "%s of %q gives the port as the string %q, which is read as a port name, and %s; the API server rejects the Pod; write the number without quotes: port: %s", probe, container, port.StrVal, why, port.StrVal)
			return
		}
		report(path, "%s of %q uses port name %q, but %s; the API server rejects the Pod", probe, container, port.StrVal, why)
	}
}
