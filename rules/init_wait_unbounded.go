package rules

import (
	"github.com/podlint/podlint/finding"
)

var InitWaitUnbounded = &Rule{
	ID: "PL303", Name: "init-wait-unbounded", Title: "init container waits in a loop with no time limit",
	Severity: finding.Warning,
	Doc: `Init containers run one after the other, and the app containers start only when the last one
has exited with 0 ([R-4](../semantics.md#r-4)). The common "wait for my dependency" init container

` + "```sh" + `
until nslookup mydb; do echo waiting for mydb; sleep 2; done
` + "```" + `

never fails: while the condition does not hold it just keeps looping, so the Pod sits in
` + "`Init:0/1`" + ` (phase ` + "`Pending`" + `) with no error, no restart, no event and nothing that alerts. A typo in the
service name, a dependency in another namespace or a missing secret keeps the Pod there
forever. A loop that gives up instead (` + "`exit 1`" + ` after N attempts) shows up as
` + "`Init:CrashLoopBackOff`" + ` with a growing restart count, which monitoring does see.

podlint reports a regular init container whose ` + "`sh -c`" + ` script contains a polling loop
(` + "`until …`" + `, ` + "`while ! …`" + `, ` + "`while true`" + `, or a ` + "`while`" + ` that sleeps) that neither counts attempts or time
(` + "`$((i+1))`" + `, ` + "`seq`" + `, ` + "`$SECONDS`" + `, ` + "`date +%s`" + `) nor exits non-zero, is not run under ` + "`timeout`" + `, and is not
bounded from outside: neither the Pod's ` + "`activeDeadlineSeconds`" + ` nor, for Jobs, the Job's
` + "`activeDeadlineSeconds`" + ` is set. Long-running controllers (Deployment, StatefulSet, DaemonSet,
ReplicaSet, ReplicationController) may not set ` + "`activeDeadlineSeconds`" + ` (PL504), so for them the loop
itself has to be bounded. A Deployment rollout still reports ` + "`ProgressDeadlineExceeded`" + ` after
` + "`progressDeadlineSeconds`" + `, but a Pod rescheduled later (node drain, eviction) waits silently.

An endless loop with no way out (` + "`while true; do sleep 3600; done`" + ` without ` + "`break`" + ` or ` + "`exit`" + `) is reported
whatever the deadlines: the init container never exits, so the Pod never starts. That is a sidecar
written as an init container.

**Fix:** bound the wait, for example

` + "```yaml" + `
command: ['sh', '-c', 'timeout 300 sh -c "until nslookup mydb; do sleep 2; done"']
` + "```" + `

so that the init container fails after 5 minutes and is retried with back-off (visible as
` + "`Init:CrashLoopBackOff`" + `), or set ` + "`activeDeadlineSeconds`" + ` on a Pod or Job. Turn a container that is meant
to keep running into a sidecar with ` + "`restartPolicy: Always`" + ` (Kubernetes 1.29 and later).`,
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
			loops := shellLoops(cs.Script.Text, shellTokens(cs.Script.Text))
			// Loops come in order and an outer loop before those inside
			// it, so a loop is nested in an earlier one exactly when it is
			// inside the last outermost loop seen.
			var outer *shLoop
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
						Message: sprintf("init container %q runs an endless loop (%s; … done) with no break or exit, so it never exits: the Pod stays in Init:%d/%d and %s; if it is meant to run beside the app, make it a sidecar (restartPolicy: Always, Kubernetes 1.29+), otherwise leave the loop when its work is done",
							c.C.Name, l.Head, i, n, neverStart(p))})
					break
				}
				if l.GivesUp() || deadline {
					continue
				}
				p.Report(Diagnostic{Path: cs.Script.Path, Container: c.C.Name,
					Message: sprintf("init container %q waits in a loop (%s; … done) with no time limit: while the condition does not hold the Pod stays in Init:%d/%d with no error, restart or event, and nothing alerts; bound the wait (timeout 300 sh -c '…', or count attempts and exit 1, so that a failure shows as Init:CrashLoopBackOff)%s",
						c.C.Name, l.Head, i, n, bound)})
				break
			}
		}
	},
}
