package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/podlint/podlint/finding"
	corev1 "k8s.io/api/core/v1"
)

var LivenessEqualsReadiness = &Rule{
	ID: "PL105", Name: "liveness-equals-readiness", Title: "liveness probe checks the same thing as the readiness probe, and no more leniently",
	Severity: finding.Warning,
	Check: func(p *Pass) {
		for _, c := range p.Containers() {
			if c.Type == Init || c.C.LivenessProbe == nil || c.C.ReadinessProbe == nil {
				continue
			}
			l, r := c.C.LivenessProbe, c.C.ReadinessProbe
			what, same := sameCheck(c.C, &l.ProbeHandler, &r.ProbeHandler)
			if !same {
				continue
			}
			lv, rv := defaulted(l), defaulted(r)
			lw, rw := lv.hangDetection(), rv.hangDetection()
			timing := func(v probeValues) string {
				return fmt.Sprintf("every %s, timeout %s, %d failures", secs(v.P), secs(v.T), int(v.FT))
			}
			name := c.Name()
			var msg, detail string
			switch {
			case lw == rw && !readinessCheck(&r.ProbeHandler):
				// The same check of the process itself, failing at the same
				// moment for both: the restart is what a liveness probe is
				// for, and the readiness probe still gates start-up. They were
				// 62 findings on the corpus of docs/precision.md, and none of
				// the 7 sampled was one an operator would change.
				continue
			case lw == rw:
				msg = fmt.Sprintf("liveness probe restarts %q whenever its readiness check fails", name)
				detail = fmt.Sprintf("Both probes run the same %s with the same failure timing (liveness %s; readiness %s): when a slow dependency or a pause makes it fail, %q is restarted %s after the failure starts, at the same moment it is taken out of traffic, and replicas that share the dependency restart together. Point the liveness probe at a check of the process alone, or make it clearly more lenient (for example a higher failureThreshold).",
					what, timing(lv), timing(rv), name, lv.hangText())
			case lw.Lo <= rw.Lo && lw.Hi <= rw.Hi:
				msg = fmt.Sprintf("liveness probe restarts %q before readiness takes it out of traffic", name)
				detail = fmt.Sprintf("It runs the same %s as the readiness probe but gives up sooner (liveness %s: restart %s after the check starts failing; readiness %s: out of traffic after %s), so a slow dependency turns into restarts. Point the liveness probe at a check of the process alone, or make it more lenient than the readiness probe.",
					what, timing(lv), lv.hangText(), timing(rv), rv.hangText())
			default:
				continue
			}
			p.Report(Diagnostic{Path: c.Field("livenessProbe"), Container: name.Name, Message: msg, Detail: detail,
				Related: []Related{{Path: c.Field("readinessProbe"), Message: "readiness probe with the same check"}}})
		}
	},
}

// readinessCheck reports whether a probe's check says it is a readiness
// check: its HTTP path, command or gRPC service names readiness (/ready,
// /readyz, /health/readiness, pg_isready), or it is Spring Boot's aggregate
// /actuator/health, which includes the health of the database, caches and
// brokers the application uses (its liveness group is
// /actuator/health/liveness). Such a check is meant to fail while the
// process is alive (a dependency is down, the server is warming up or
// recovering), so a liveness probe that runs it with the same timing
// restarts a healthy container.
func readinessCheck(h *corev1.ProbeHandler) bool {
	var s string
	switch {
	case h.HTTPGet != nil:
		s = h.HTTPGet.Path
		if path, _, _ := strings.Cut(s, "?"); strings.HasSuffix(strings.TrimSuffix(path, "/"), "/actuator/health") {
			return true
		}
	case h.Exec != nil:
		s = strings.Join(h.Exec.Command, " ")
	case h.GRPC != nil && h.GRPC.Service != nil:
		s = *h.GRPC.Service
	}
	s = strings.ToLower(s)
	return strings.Contains(s, "ready") || strings.Contains(s, "readiness")
}

// sameCheck reports whether two probe handlers check the same thing, and
// describes it. TCP checks are never "the same check" here: a connect
// succeeds while the process listens (the kernel accepts for a busy
// application), so it cannot turn a slow dependency into a restart.
func sameCheck(c *corev1.Container, a, b *corev1.ProbeHandler) (string, bool) {
	switch {
	case a.HTTPGet != nil && b.HTTPGet != nil:
		x, y := a.HTTPGet, b.HTTPGet
		px, py := resolvePort(c, x.Port), resolvePort(c, y.Port)
		if px < 0 || px != py || httpPath(x.Path) != httpPath(y.Path) || httpScheme(x.Scheme) != httpScheme(y.Scheme) ||
			x.Host != y.Host || !sameHeaders(x.HTTPHeaders, y.HTTPHeaders) {
			return "", false
		}
		return fmt.Sprintf("HTTP GET %s on port %d", httpPath(x.Path), px), true
	case a.GRPC != nil && b.GRPC != nil:
		sx, sy := "", ""
		if a.GRPC.Service != nil {
			sx = *a.GRPC.Service
		}
		if b.GRPC.Service != nil {
			sy = *b.GRPC.Service
		}
		if a.GRPC.Port != b.GRPC.Port || sx != sy {
			return "", false
		}
		return "gRPC health check on port " + strconv.Itoa(int(a.GRPC.Port)), true
	case a.Exec != nil && b.Exec != nil:
		if len(a.Exec.Command) == 0 || !slices.Equal(a.Exec.Command, b.Exec.Command) {
			return "", false
		}
		cmd := strings.Join(a.Exec.Command, " ")
		if len(cmd) > 60 {
			cmd = cmd[:57] + "..."
		}
		return fmt.Sprintf("command %q", cmd), true
	}
	return "", false
}

func httpPath(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

func httpScheme(s corev1.URIScheme) corev1.URIScheme {
	if s == "" {
		return corev1.URISchemeHTTP
	}
	return s
}

func sameHeaders(a, b []corev1.HTTPHeader) bool {
	key := func(hs []corev1.HTTPHeader) []string {
		var out []string
		for _, h := range hs {
			out = append(out, strings.ToLower(h.Name)+":"+h.Value)
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(key(a), key(b))
}
