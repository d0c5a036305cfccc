package rules

import (
	"fmt"

	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
)

// slowStartSeconds is the stated start-up from which a container without
// readiness probe is reported by default (PL111, PL705): a gap shorter
// than that is about what a client's retries of a refused connection
// cover, a longer one fails requests on every start. A liveness probe's
// initialDelaySeconds says less: authors pad it several times over and
// copy the docs' examples (3 to 30 s), so only a delay PL103 takes for a
// wait for start-up (longLivenessDelay) counts as a slow start.
const slowStartSeconds = 10

// readinessSignal is why a container is known to need time after it
// starts before it can answer, the fact that makes a missing readiness
// probe matter: a stated expected start-up (annotation, configuration or
// observed profile) of at least slowStartSeconds, else a liveness probe
// that waits longLivenessDelay or more, else an accelerator it requests. It is "" when
// nothing says so, when a stated start-up is shorter, and when a
// startupProbe holds Ready back until the app answers (P-3: a container
// without readiness probe is Ready once its startup probe succeeds).
func readinessSignal(w *workload.Workload, params timeline.Params, name string, livenessDelay int32, startupProbe bool, accelerator string) string {
	if startupProbe {
		return ""
	}
	// A malformed annotation is PL014's finding; the configuration is
	// still read.
	exp, _ := timeline.ExpectedStartup(w, params, name)
	switch {
	case exp.OK && exp.Seconds >= slowStartSeconds:
		return fmt.Sprintf("it is expected to need %s to start (%s)", dur(exp.Seconds), describeExpected(exp))
	case exp.OK:
		return ""
	case livenessDelay >= longLivenessDelay:
		return fmt.Sprintf("its liveness probe waits initialDelaySeconds %s after start, so it needs about that long before it answers", secs(float64(livenessDelay)))
	case accelerator != "":
		return fmt.Sprintf("it requests %s, and servers on accelerators load a model or compile kernels before they answer, often for minutes", accelerator)
	}
	return ""
}
