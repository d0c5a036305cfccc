package main

import (
	"fmt"
	"strings"
	"time"
)

// A scenario is a manifest created in a namespace of its own, the actions
// the harness then takes (an update, an eviction), and the quantities read
// off what the watches saw, each paired with the interval podlint's
// timeline gives for the target object.
type scenario struct {
	name string
	// expect is what the controller's source says should happen, written
	// before podlint's prediction was looked at.
	expect   string
	manifest string // @NS@ is the namespace
	target   string // Kind/name: the object the prediction is read from
	// after, when set, is the manifest as the actions leave it; checks
	// with afterState read their prediction from it.
	after  string
	limit  time.Duration // the scenario's longest time, actions included
	act    func(a *actor) error
	done   func(r *recording) bool
	checks []check
}

func (s *scenario) render(ns string) string { return strings.ReplaceAll(s.manifest, "@NS@", ns) }

const image = "podlint.local/busybox:e2e"

// jobYAML is a Job named job whose one container runs script; spec holds
// the Job's spec fields (at two spaces), pod the pod spec's.
func jobYAML(spec, restartPolicy, script string) string {
	return `apiVersion: batch/v1
kind: Job
metadata: {name: job, namespace: "@NS@"}
spec:
` + indent(spec, "  ") + `  template:
    spec:
      restartPolicy: ` + restartPolicy + `
      terminationGracePeriodSeconds: 1
      containers:
      - name: app
        image: ` + image + `
        imagePullPolicy: Never
        command: [sh, -c, "` + script + `"]
`
}

// servePod is the pod template of the rollouts: ready as soon as its
// readiness probe first runs (podlint.dev/expected-startup states it), no
// ports (implicit hostPorts would keep a surge Pod off the one node),
// stopped at once on delete.
func servePod(app, probe string) string {
	return `  selector: {matchLabels: {app: ` + app + `}}
  template:
    metadata:
      labels: {app: ` + app + `}
      annotations: {podlint.dev/expected-startup: "0s"}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: app
        image: ` + image + `
        imagePullPolicy: Never
        command: [sh, -c, "touch /tmp/ready; trap 'exit 0' TERM; while :; do sleep 1 & wait $!; done"]
        readinessProbe: {exec: {command: [` + probe + `]}, initialDelaySeconds: 1, periodSeconds: 2}
`
}

const readyProbe = "test, -e, /tmp/ready"

// Why a row whose number carries the kubelet's terms can fall outside:
// podlint's controller intervals are checked, but the Pods' Ready and
// stop inside them are the kubelet's (the harness subtracts only what it
// can measure on the API: the Pods' starts). The table prints them only
// on a row that is outside.
const (
	readyNote = "each Pod's Ready includes its exec readiness probe's own run, which podlint's Ready does not count " +
		"(up to timeoutSeconds, 1 s; on a busy node the exec times out and the next period passes it): the kubelet's term, not the controller's"
	stopNote = "the deleted Pod's stop and its report took the kubelet longer than podlint's termination and ε: the kubelet's term, not the controller's"
)

func indent(s, by string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString(by + l + "\n")
	}
	return b.String()
}

func scenarios() []*scenario {
	return []*scenario{
		{
			name: "job-parallel-fail",
			expect: "parallelism 3, backoffLimit 2, every Pod exits 1 at once: the three failures are counted in one sync " +
				"(job_controller.go: failed > backoffLimit), so the Job is Failed (BackoffLimitExceeded) right after them, without a retry.",
			manifest: jobYAML("parallelism: 3\ncompletions: 3\nbackoffLimit: 2\n", "Never", "exit 1"),
			target:   "Job/job", limit: 90 * time.Second, done: jobFinished,
			checks: []check{
				{quantity: "Job Failed after its creation, less the Pods' run time (podlint's jobUnknowns) and the kubelet's report of the last failure", field: "controller.jobGivesUp", observe: jobFailedLessRuns},
				{quantity: "Pods created", field: "controller.jobParallelism", observe: podCount, tol: 0.01},
			},
		},
		{
			name: "job-backoff",
			expect: "parallelism 1, backoffLimit 2: replacements 10 s then 20 s after the previous failure (backoff_utils.go, " +
				"getRemainingTimeForFailuresCount), counted from the container's finishedAt, which the API keeps in whole seconds: " +
				"each wait is 0-1 s shorter than the back-off when measured from the real exit. Failed at the third failure.",
			manifest: jobYAML("backoffLimit: 2\n", "Never", "exit 1"),
			target:   "Job/job", limit: 120 * time.Second, done: jobFinished,
			checks: []check{
				{quantity: "Job Failed after its creation, less the Pods' run time and the kubelet's report of the last failure", field: "controller.jobGivesUp", observe: jobFailedLessRuns},
			},
		},
		{
			name: "job-onfailure",
			expect: "restartPolicy OnFailure, backoffLimit 2: the kubelet restarts the container (at once, then after 10 s); " +
				"the Job fails when the restart counts of its running Pods sum to backoffLimit (pastBackoffLimitOnFailure), " +
				"so about 10 s after the first start plus the runs, and deletes the Pod.",
			manifest: jobYAML("backoffLimit: 2\n", "OnFailure", "exit 1"),
			target:   "Job/job", limit: 90 * time.Second, done: jobFinished,
			checks: []check{
				{quantity: "Job Failed after its Pod's first container start, less each restart's creation by the runtime (Pulled event to running)", field: "controller.jobGivesUp", observe: jobFailedAfterFirstRun,
					note: "the Pod's creation to its first start is podlint's scheduling and sandbox term, left out"},
			},
		},
		{
			name: "job-per-index",
			expect: "Indexed, completions 3, parallelism 3, backoffLimitPerIndex 1: each index fails, is retried after 10 s " +
				"(getRemainingTimePerIndex, from the failed Pod's finishedAt in whole seconds), fails again and is marked failed; " +
				"with every index failed the Job is Failed (FailedIndexes).",
			manifest: jobYAML("completionMode: Indexed\ncompletions: 3\nparallelism: 3\nbackoffLimitPerIndex: 1\n", "Never", "exit 1"),
			target:   "Job/job", limit: 90 * time.Second, done: jobFinished,
			checks: []check{
				{quantity: "Job Failed after its creation, less the Pods' run time and the kubelet's report of the last failure", field: "controller.jobGivesUp", observe: jobFailedLessRuns},
			},
		},
		{
			name: "job-pfp-failjob",
			expect: "podFailurePolicy FailJob on exit code 42, backoffLimit 6, the Pod exits 42: the first failure matches the rule " +
				"(getMatchingFailurePolicyRule) and the Job is Failed (PodFailurePolicy) without a retry.",
			manifest: jobYAML("backoffLimit: 6\npodFailurePolicy:\n  rules:\n  - action: FailJob\n    onExitCodes: {containerName: app, operator: In, values: [42]}\n", "Never", "exit 42"),
			target:   "Job/job", limit: 60 * time.Second, done: jobFinished,
			checks: []check{
				{quantity: "Job Failed after its creation, less the Pod's run time and the kubelet's report of its failure", field: "controller.jobGivesUp", observe: jobFailedLessRuns},
				{quantity: "Pods created", field: "controller.jobParallelism", observe: podCount, tol: 0.01},
			},
		},
		{
			name: "job-deadline",
			expect: "activeDeadlineSeconds 15, backoffLimit 6, Pods exit 1: retries at about 10 s and 30 s; the controller " +
				"re-queues the Job for its deadline (status.startTime, whole seconds, + 15 s), deletes what runs, and marks it " +
				"Failed (DeadlineExceeded) about 15 s after its start, while the second retry waits.",
			manifest: jobYAML("backoffLimit: 6\nactiveDeadlineSeconds: 15\n", "Never", "exit 1"),
			target:   "Job/job", limit: 90 * time.Second, done: jobFinished,
			checks: []check{
				{quantity: "Job Failed after its creation", field: "controller.jobGivesUp", observe: jobFailed},
			},
		},
		{
			name: "deploy-surge0",
			expect: "4 replicas, maxSurge 0, maxUnavailable 50 % (2, rounded down): the update scales the old ReplicaSet to 2 " +
				"and the new one to 2 at once (rolloutRolling, reconcileOldReplicaSets), then the next 2 when those are available: two waves.",
			manifest: deployYAML(4, "maxSurge: 0, maxUnavailable: 50%", 0, 600, readyProbe),
			target:   "Deployment/web", limit: 120 * time.Second,
			act: rollout("Deployment", "web", 4, 4), done: deploymentUpdated(4),
			checks: []check{
				{quantity: "rollout: update to every new Pod available, less each wave's Pod start", field: "rollout.cases.0.duration", observe: rolloutLessStarts, ifOutside: readyNote},
			},
		},
		{
			name: "deploy-minready",
			expect: "2 replicas, maxSurge 1, maxUnavailable 0, minReadySeconds 5: one new Pod at a time, each available 5 s after " +
				"Ready (IsPodAvailable), the next created then: two waves of Ready + 5 s.",
			manifest: deployYAML(2, "maxSurge: 1, maxUnavailable: 0", 5, 600, readyProbe),
			target:   "Deployment/web", limit: 120 * time.Second,
			act: rollout("Deployment", "web", 2, 2), done: deploymentUpdated(2),
			checks: []check{
				{quantity: "rollout: update to every new Pod available, less each wave's Pod start", field: "rollout.cases.0.duration", observe: rolloutLessStarts, ifOutside: readyNote},
			},
		},
		{
			name: "deploy-deadline",
			expect: "progressDeadlineSeconds 10, an update whose Pods never turn Ready: the controller re-queues the Deployment for " +
				"the Progressing condition's lastUpdateTime (whole seconds) + 10 s (progress.go, requeueStuckDeployment) and then " +
				"sets Progressing=False, ProgressDeadlineExceeded: 9-10 s after the update, plus a sync.",
			manifest: deployYAML(1, "maxSurge: 1, maxUnavailable: 0", 0, 10, readyProbe),
			after:    deployYAML(1, "maxSurge: 1, maxUnavailable: 0", 0, 10, "'false'"),
			target:   "Deployment/web", limit: 90 * time.Second,
			act: func(a *actor) error {
				if err := a.until("the Deployment available", deploymentAvailable(1)); err != nil {
					return err
				}
				return a.patchDeployment("web", `{"spec":{"template":{"spec":{"containers":[{"name":"app","readinessProbe":{"exec":{"command":["false"]}}}]}}}}`, "Deployment 1 1")
			},
			done: func(r *recording) bool { return deadlineExceeded(r) == nil },
			checks: []check{
				{quantity: "ProgressDeadlineExceeded after the update, less the update to the last progress (the new ReplicaSet's Pod counted)", field: "controller.progressDeadlineExceeded", observe: deadlineLessProgress},
			},
		},
		{
			name: "sts-ordered",
			expect: "3 replicas, OrderedReady: Pod n+1 is created once Pod n is Ready (monotonic creation, stateful_set_control.go), " +
				"and a rolling update replaces them from the highest ordinal down, each once the previous is Ready again.",
			manifest: stsYAML(3, "OrderedReady", ""),
			target:   "StatefulSet/db", limit: 150 * time.Second,
			act: rollout("StatefulSet", "db", 3, 3), done: statefulSetUpdated(3),
			checks: []check{
				{quantity: "creation: every Pod Ready, less each Pod's start", field: "controller.creation", observe: stsCreationLessStarts, ifOutside: readyNote},
				{quantity: "rolling update: update to every Pod Ready again, less each Pod's start", field: "controller.rollingUpdate", observe: rolloutLessStarts},
			},
		},
		{
			name:     "sts-partition",
			expect:   "3 replicas, partition 2: the update replaces only ordinal 2 (ordinals ≥ partition), the others keep the old revision.",
			manifest: stsYAML(3, "OrderedReady", "partition: 2"),
			target:   "StatefulSet/db", limit: 150 * time.Second,
			act: rollout("StatefulSet", "db", 3, 1), done: statefulSetUpdated(1),
			checks: []check{
				{quantity: "rolling update: update to the replaced Pod Ready again, less its start", field: "controller.rollingUpdate", observe: rolloutLessStarts, ifOutside: stopNote + "; " + readyNote},
				{quantity: "Pods replaced", field: "controller.rollingUpdate", predict: fixed(1), observe: podsReplaced, tol: 0.01,
					note: "podlint has no field for the Pods a partition keeps: compared with 3 − partition"},
			},
		},
		{
			name: "sts-maxunavailable",
			expect: "4 replicas, OrderedReady, maxUnavailable 2 (MaxUnavailableStatefulSet, on by default at 1.37): the update " +
				"deletes two Pods at once from the top, re-creates them in order, then the next two: two waves.",
			manifest: stsYAML(4, "OrderedReady", "maxUnavailable: 2"),
			target:   "StatefulSet/db", limit: 180 * time.Second,
			act: rollout("StatefulSet", "db", 4, 4), done: statefulSetUpdated(4),
			checks: []check{
				{quantity: "rolling update: update to every Pod Ready again, less each Pod's start", field: "controller.rollingUpdate", observe: rolloutLessStarts},
			},
		},
		{
			name: "ds-rolling",
			expect: "a DaemonSet on the one node, maxUnavailable 1: the update deletes the node's old Pod, and creates the new one " +
				"once the old is gone from the API (daemon_controller.go syncNodes: a node with a terminating Pod gets none).",
			manifest: dsYAML(),
			target:   "DaemonSet/agent", limit: 90 * time.Second,
			act: rollout("DaemonSet", "agent", 1, 1), done: daemonSetUpdated,
			checks: []check{
				{quantity: "rollout: update to the new Pod available, less its start", field: "rollout.cases.0.duration", observe: rolloutLessStarts, ifOutside: stopNote + "; " + readyNote},
			},
		},
		{
			name: "cronjob-forbid",
			expect: "schedule every minute, Forbid, each run 75 s: at the next minute the run is still active, so the controller " +
				"records JobAlreadyActive and re-queues (cronjob_controllerv2.go); when the run ends, its Job's update re-queues " +
				"the CronJob, whose most recent missed time (no startingDeadlineSeconds) is then started late, about 15 s plus the " +
				"run's start after its time.",
			manifest: cronYAML(),
			target:   "CronJob/cron", limit: 200 * time.Second,
			done: func(r *recording) bool { return len(r.jobs()) >= 2 },
			checks: []check{
				{quantity: "the missed start's Job created after its scheduled time, less the first run's Pod start and the kubelet's report of its end", field: "controller.lateStart", observe: lateStartLessStart},
				{quantity: "starts refused while the run was active (JobAlreadyActive)", field: "controller.skippedStarts", observe: alreadyActive, tol: 0.01},
			},
		},
		{
			name: "evict-pdb",
			expect: "2 replicas, a PodDisruptionBudget minAvailable 2: the disruption controller computes disruptionsAllowed 0 and " +
				"the Eviction API answers 429; with minAvailable 1 it allows 1, the eviction is accepted, the Pod gets its grace " +
				"period (1 s) and the ReplicaSet creates a replacement at once.",
			manifest: deployYAML(2, "maxSurge: 1, maxUnavailable: 0", 0, 600, readyProbe) + pdbYAML(2),
			after:    deployYAML(2, "maxSurge: 1, maxUnavailable: 0", 0, 600, readyProbe) + pdbYAML(1),
			target:   "Deployment/web", limit: 120 * time.Second,
			act: evictUnderBudget, done: func(r *recording) bool { _, err := r.markAt("replacement-ready"); return err == nil },
			checks: []check{
				{quantity: "disruptions allowed under minAvailable 2", field: "drain.disruptionsAllowed", observe: allowedBefore, tol: 0.01},
				{quantity: "the first eviction refused (1) or not (0)", field: "drain.blocked", predict: blocked, observe: refused, tol: 0.01},
				{quantity: "minAvailable 1: the evicted Pod's containers stopped after its delete (as the kubelet reports them)", field: "drain.evictions.0.terminated", afterState: true, observe: evictedStopped, ifOutside: stopNote},
				{quantity: "minAvailable 1: replacement Ready after the evicted Pod's delete, less its start", field: "drain.evictions.0.replacementReady", afterState: true, observe: replacementReadyLessStart, ifOutside: readyNote},
			},
		},
	}
}

func deployYAML(replicas int, strategy string, minReady, deadline int, probe string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: "@NS@"}
spec:
  replicas: %d
  minReadySeconds: %d
  progressDeadlineSeconds: %d
  strategy: {type: RollingUpdate, rollingUpdate: {%s}}
`, replicas, minReady, deadline, strategy) + servePod("web", probe)
}

func stsYAML(replicas int, policy, rolling string) string {
	s := fmt.Sprintf(`apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: "@NS@"}
spec:
  replicas: %d
  serviceName: db
  podManagementPolicy: %s
`, replicas, policy)
	if rolling != "" {
		s += "  updateStrategy: {type: RollingUpdate, rollingUpdate: {" + rolling + "}}\n"
	}
	return s + servePod("db", readyProbe)
}

func dsYAML() string {
	return `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: "@NS@"}
spec:
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 1}}
` + servePod("agent", readyProbe)
}

func cronYAML() string {
	return `apiVersion: batch/v1
kind: CronJob
metadata: {name: cron, namespace: "@NS@"}
spec:
  schedule: "* * * * *"
  concurrencyPolicy: Forbid
  jobTemplate:
    spec:
      backoffLimit: 0
      template:
        spec:
          restartPolicy: Never
          terminationGracePeriodSeconds: 1
          containers:
          - name: app
            image: ` + image + `
            imagePullPolicy: Never
            command: [sh, -c, "sleep 75; exit 0"]
`
}

func pdbYAML(minAvailable int) string {
	return fmt.Sprintf(`---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: budget, namespace: "@NS@"}
spec:
  minAvailable: %d
  selector: {matchLabels: {app: web}}
`, minAvailable)
}

func fixed(x float64) func(*prediction) (interval, error) {
	return func(*prediction) (interval, error) { return interval{x, x}, nil }
}

// blocked is 1 when podlint says no eviction can succeed, else 0.
func blocked(p *prediction) (interval, error) {
	if _, err := p.get("drain.blocked"); err != nil {
		return interval{0, 0}, nil
	}
	return interval{1, 1}, nil
}
