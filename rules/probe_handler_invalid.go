package rules

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/podlint/podlint/finding"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var ProbeHandlerInvalid = &Rule{
	ID: "PL114", Name: "probe-handler-invalid", Title: "probe handler is missing, ambiguous or malformed",
	Severity: finding.Error,
	Check: func(p *Pass) {
		if !p.PodValidated() {
			return
		}
		for _, pr := range p.Probes() {
			checkProbeHandler(p, pr)
		}
	},
}

func checkProbeHandler(p *Pass, pr ProbeRef) {
	h := &pr.P.ProbeHandler
	name := pr.Container.Name()
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
	switch len(set) {
	case 0:
		p.Report(Diagnostic{Path: pr.Path, Container: name.Name, Message: fmt.Sprintf("%s of %q has no handler", pr.Name(), name),
			Detail: "The API server rejects the Pod. Add exactly one of exec, httpGet, tcpSocket or grpc."})
		return
	case 1:
	default:
		p.Report(Diagnostic{Path: pr.Path, Container: name.Name, Message: fmt.Sprintf("%s of %q sets both %s", pr.Name(), name, strings.Join(set, " and ")),
			Detail: "A probe may have only one handler and the API server rejects the Pod. Keep one."})
		return
	}
	switch {
	case h.Exec != nil:
		if len(h.Exec.Command) == 0 {
			p.Report(Diagnostic{Path: pr.Field("exec"), Container: name.Name, Message: fmt.Sprintf("%s of %q has an exec handler without a command", pr.Name(), name),
				Detail: "The API server rejects the Pod. Add the command to run."})
		}
	case h.HTTPGet != nil:
		if m, d := portProblem(pr.Name(), name, h.HTTPGet.Port); m != "" {
			p.Report(Diagnostic{Path: pr.Field("httpGet.port"), Container: name.Name, Message: m, Detail: d})
		}
		if s := h.HTTPGet.Scheme; s != "" && s != corev1.URISchemeHTTP && s != corev1.URISchemeHTTPS {
			p.Report(Diagnostic{Path: pr.Field("httpGet.scheme"), Container: name.Name, Message: fmt.Sprintf("%s of %q uses scheme %q, which is not HTTP or HTTPS", pr.Name(), name, s),
				Detail: "Only HTTP and HTTPS are accepted (upper case), so the API server rejects the Pod."})
		}
	case h.TCPSocket != nil:
		if m, d := portProblem(pr.Name(), name, h.TCPSocket.Port); m != "" {
			p.Report(Diagnostic{Path: pr.Field("tcpSocket.port"), Container: name.Name, Message: m, Detail: d})
		}
	case h.GRPC != nil:
		if h.GRPC.Port < 1 || h.GRPC.Port > 65535 {
			p.Report(Diagnostic{Path: pr.Field("grpc.port"), Container: name.Name, Message: fmt.Sprintf("%s of %q uses gRPC port %d, outside 1–65535", pr.Name(), name, h.GRPC.Port),
				Detail: "The API server rejects the Pod."})
		}
	}
}

var portNameChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`) })

// portNameProblem explains why s is not an IANA service name, as the API
// server's IsValidPortName would, or returns "".
func portNameProblem(s string) string {
	switch {
	case s == "":
		return "the port is empty"
	case len(s) > 15:
		return "port names are at most 15 characters"
	case !portNameChars().MatchString(s):
		return "port names contain only lower-case letters, digits and inner hyphens"
	case strings.Contains(s, "--"):
		return "port names may not contain two hyphens in a row"
	case strings.IndexFunc(s, func(r rune) bool { return r >= 'a' && r <= 'z' }) < 0:
		return "port names must contain at least one letter"
	}
	return ""
}

// portProblem returns the headline and detail of a finding about a probe
// port that the API server rejects, or "" when the port is valid.
func portProblem(probe string, container containerName, port intstr.IntOrString) (headline, detail string) {
	if port.Type == intstr.Int {
		if port.IntVal < 1 || port.IntVal > 65535 {
			return fmt.Sprintf("%s of %q uses port %d, outside 1–65535", probe, container, port.IntVal), "The API server rejects the Pod."
		}
		return "", ""
	}
	why := portNameProblem(port.StrVal)
	if why == "" {
		return "", ""
	}
	if _, err := strconv.Atoi(port.StrVal); err == nil {
		return fmt.Sprintf("%s of %q gives the port as the string %q, which is read as a port name", probe, container, port.StrVal),
			fmt.Sprintf("As a name it is invalid (%s), so the API server rejects the Pod. Write the number without quotes: port: %s.", why, port.StrVal)
	}
	return fmt.Sprintf("%s of %q uses the invalid port name %q", probe, container, port.StrVal),
		fmt.Sprintf("The API server rejects the Pod: %s.", why)
}
