package rules

import (
	"fmt"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/shellread"
	"github.com/podlint/podlint/timeline"
	"math"
)

// progressDeadline is a Deployment's progressDeadlineSeconds after
// defaulting.
func progressDeadline(v *int32) int32 {
	if v == nil {
		return timeline.DefaultProgressDeadline
	}
	return *v
}

var InitWaitUnbounded = &Rule{
	ID: "PL303", Name: "init-wait-unbounded", Title: "init container waits in a loop with no time limit",
	Severity: finding.Warning,
	Check: func(p *Pass) {
		w := p.Workload
		if p.IsFragment() {
			return // the deadline may be in the base manifest
		}
		deadline := p.Spec.ActiveDeadlineSeconds != nil || (w.Job != nil && w.Job.ActiveDeadlineSeconds != nil)
		var bound string
		switch {
		case w.Job != nil:
			bound = ", or set the Job's activeDeadlineSeconds"
		case !p.IsLongRunning():
			bound = ", or set spec.activeDeadlineSeconds"
		}
		n := len(p.Spec.InitContainers)
		for i, c := range p.Containers() {
			if c.Type != Init {
				continue
			}
			cs := scriptOf(containerCommand(c))
			if cs.Script.Text == "" || cs.TimeBounded() {
				continue
			}
			loops := cs.Parsed.Loops()
			// Loops come in order and an outer loop before those inside
			// it, so a loop is nested in an earlier one exactly when it is
			// inside the last outermost loop seen.
			var outer *shellread.Loop
			for _, l := range loops {
				if outer != nil && l.Inside(*outer) {
					continue
				}
				outer = &l
				if l.Background || !l.Waits() {
					continue
				}
				if l.Infinite() && !l.Leaves() {
					p.Report(Diagnostic{Path: cs.Script.Path, Container: c.C.Name,
						Message: fmt.Sprintf("init container %q never exits, so the Pod never gets past Init:%d/%d", c.Name(), i, n),
						Detail: fmt.Sprintf("It runs an endless loop (%s; … done) with no break or exit: the Pod stays in Init:%d/%d and %s. If it is meant to run beside the app, make it a sidecar (restartPolicy: Always, Kubernetes 1.29+), otherwise leave the loop when its work is done.",
							l.Head, i, n, neverStart(p))})
					break
				}
				if l.GivesUp() || deadline {
					continue
				}
				d := Diagnostic{Path: cs.Script.Path, Container: c.C.Name,
					Message: fmt.Sprintf("init container %q waits in a loop with no time limit", c.Name()),
					Detail: fmt.Sprintf("While the condition of (%s; … done) does not hold the Pod stays in Init:%d/%d with no error, restart or event, and nothing alerts. Bound the wait (timeout 300 sh -c '…', or count attempts and exit 1, so that a failure shows as Init:CrashLoopBackOff)%s.",
						l.Head, i, n, bound)}
				if w.Deployment != nil && progressDeadline(w.Deployment.ProgressDeadlineSeconds) != math.MaxInt32 {
					// A rollout whose new Pods stay in Init ends in
					// ProgressDeadlineExceeded (docs/semantics.md,
					// Deployment): the wait shows there, and only a Pod
					// recreated later waits unnoticed. 2147483647 turns
					// the deadline off.
					d.Info = true
					d.Message = fmt.Sprintf("init container %q waits in a loop that only the rollout's deadline bounds", c.Name())
					d.Detail = fmt.Sprintf("While the condition of (%s; … done) does not hold the Pod stays in Init:%d/%d with no error or restart. A rollout still reports ProgressDeadlineExceeded after progressDeadlineSeconds (%s), but a Pod recreated later (node drain, eviction) waits unnoticed. Bound the wait (timeout 300 sh -c '…', or count attempts and exit 1, so that a failure shows as Init:CrashLoopBackOff).",
						l.Head, i, n, secs(float64(progressDeadline(w.Deployment.ProgressDeadlineSeconds))))
				}
				p.Report(d)
				break
			}
		}
	},
}
