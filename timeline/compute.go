package timeline

import (
	"fmt"
	"math"
	"slices"

	"github.com/podlint/podlint/workload"
	corev1 "k8s.io/api/core/v1"
)

// crashLoopSteps is how many restarts Pod.RestartSchedule lists: enough to
// reach the 300 s cap (restart 7) and show it holding.
const crashLoopSteps = 8

// Compute derives the timeline of one workload on Kubernetes version v
// (zero Version = Latest) with the runtime parameters p (start from
// DefaultParams). It never panics on any input, including a nil Workload,
// a nil Spec and extreme values.
func Compute(w *workload.Workload, v Version, p Params) *Timeline {
	v = v.orLatest()
	p = p.clean().crashCurve(v)
	t := &Timeline{Version: v, Params: p}
	if w == nil {
		return t
	}
	t.Kind = w.Kind
	k := &computer{w: w, v: v, p: p, t: t, reported: map[string]bool{}}
	if w.Spec != nil {
		k.pod()
	}
	k.controllers()
	return t
}

type computer struct {
	w        *workload.Workload
	v        Version
	p        Params
	t        *Timeline
	grace    Value
	policy   corev1.RestartPolicy
	reported map[string]bool
	// stated holds StatedExit and StatedRun of each container the
	// computation asked about: both parse the command's script, and the
	// restart schedule, the Job's pod run and its failure policy each ask.
	stated map[*corev1.Container]statedCommand
}

type statedCommand struct {
	code        int32
	exits, runs bool
	run         float64
}

// statedOf is StatedExit and StatedRun of ctr, worked out once.
func (k *computer) statedOf(ctr *corev1.Container) statedCommand {
	if sc, ok := k.stated[ctr]; ok {
		return sc
	}
	var sc statedCommand
	sc.code, sc.exits = StatedExit(ctr)
	if sc.exits {
		sc.run, sc.runs = statedRunOf(ctr)
	}
	if k.stated == nil {
		k.stated = map[*corev1.Container]statedCommand{}
	}
	k.stated[ctr] = sc
	return sc
}

func (k *computer) note(path workload.Path, format string, args ...any) {
	k.t.Notes = append(k.t.Notes, Note{Path: path, Text: fmt.Sprintf(format, args...)})
}

// expectation resolves a container's expected startup or shutdown and
// records a malformed annotation once per key.
func (k *computer) expectation(f func(*workload.Workload, Params, string) (Expected, error), name string) Expected {
	e, err := f(k.w, k.p, name)
	if ae, ok := err.(*AnnotationError); ok && !k.reported[ae.Key] {
		k.reported[ae.Key] = true
		k.t.Errors = append(k.t.Errors, err)
	}
	return e
}

func (k *computer) pod() {
	spec, sp := k.w.Spec, k.w.SpecPath
	k.policy = restartPolicy(spec)
	k.grace = podGrace(spec, sp, &k.t.Notes)
	pod := &Pod{
		Path:          sp,
		RestartPolicy: k.policy,
		GracePeriod:   k.grace,
		QOSClass:      qosClass(spec, k.v),
	}
	k.t.Pod = pod
	if spec.ActiveDeadlineSeconds != nil {
		pod.ActiveDeadline = &Value{V: float64(*spec.ActiveDeadlineSeconds), Path: sp.Join("activeDeadlineSeconds"), Set: true}
	}
	for _, g := range spec.ReadinessGates {
		pod.ReadinessGates = append(pod.ReadinessGates, string(g.ConditionType))
	}

	// Start chain (F-9): scheduling and sandbox, init containers and
	// sidecars one after another, then regular containers one after
	// another (each pull + start + postStart blocks the next).
	cursor := k.unknown(k.p.Scheduling, "scheduling and sandbox")
	for i := range spec.InitContainers {
		ic := &spec.InitContainers[i]
		typ := Init
		cpath := sp.Field("initContainers").Index(i)
		if workload.IsSidecar(ic) {
			if k.v.Sidecars() {
				typ = Sidecar
			} else {
				k.note(cpath.Join("restartPolicy"), "sidecar containers need Kubernetes 1.29+; on %s %q runs as a regular init container that never completes, so the pod never starts", k.v, workload.ContainerName{Name: ic.Name, Image: ic.Image, Index: i})
			}
		}
		c := k.container(ic, typ, i, cpath)
		c.Start = cursor.Add(c.Pull)
		switch typ {
		case Init:
			run := k.initRun(ic, c)
			if workload.IsSidecar(ic) {
				run = span(From(0), cpath.Join("restartPolicy"))
			}
			c.InitFailure = k.initFailure(c, run)
			c.Run = &run
			done := c.Start.Add(run).Add(span(Between(0, k.p.Epsilon)))
			c.Done = &done
		case Sidecar:
			// The next init container starts once the sidecar runs, its
			// postStart is done and its startup probe (if any) passed.
			gate := c.Started
			if c.PostStart != nil {
				gate = LaterSpan(gate, c.PostStart.Duration)
			}
			done := c.Start.Add(gate)
			if c.Startup != nil {
				done = done.Add(span(Between(0, k.p.Epsilon)))
			}
			c.Done = &done
		}
		cursor = *c.Done
		k.t.Containers = append(k.t.Containers, c)
	}
	pod.Initialized = cursor
	for i := range spec.Containers {
		cpath := sp.Field("containers").Index(i)
		c := k.container(&spec.Containers[i], Regular, i, cpath)
		c.Start = cursor.Add(c.Pull)
		cursor = c.Start
		if c.PostStart != nil && c.PostStart.Skipped == "" {
			cursor = cursor.Add(c.PostStart.Duration)
		}
		k.t.Containers = append(k.t.Containers, c)
	}

	// Pod Ready: all regular containers and sidecars (PH-2), after their
	// postStart hooks (the container is not Running before, T-6).
	var ready *Span
	for _, c := range k.t.Containers {
		if c.Type == Init || c.Ready == nil {
			continue
		}
		r := *c.Ready
		if c.PostStart != nil && c.PostStart.Skipped == "" {
			r = LaterSpan(r, c.PostStart.Duration)
		}
		at := c.Start.Add(r)
		if ready == nil {
			ready = &at
		} else {
			l := LaterSpan(*ready, at)
			ready = &l
		}
	}
	if ready != nil && len(pod.ReadinessGates) > 0 {
		ready.Plus = merge(ready.Plus, []string{"readiness gates"})
		ready.Paths = merge(ready.Paths, []workload.Path{sp.Join("readinessGates")})
	}
	if len(spec.Containers) > 0 {
		pod.Ready = ready
	}

	k.deletion(pod)

	if k.crashLoops() {
		k.restartSchedule(pod)
	}
}

// restartSchedule is the crash loop of the regular containers restarted
// after a failure (R-3, F-10), with the run the commands state, else the
// configured one; an unknown run counts as 0 and the exits and starts name
// it.
func (k *computer) restartSchedule(pod *Pod) {
	run, name, stated := math.Inf(1), "", true
	pod.Completes = true
	for _, c := range k.t.ContainersOf(Regular) {
		if !c.RestartsOnFailure {
			continue
		}
		ctr := &k.w.Spec.Containers[c.Index]
		sc := k.statedOf(ctr)
		if !sc.exits || sc.code != 0 || restartsAfterSuccess(ctr, k.policy, k.v) {
			pod.Completes = false
		}
		if name == "" {
			name = c.Name
		}
		stated = stated && sc.runs
		run = math.Min(run, sc.run)
	}
	pod.Completes = pod.Completes && name != ""
	switch {
	case name != "" && stated:
		pod.RestartRun, pod.RestartRunFrom = Seconds(run), "command"
	case k.p.CrashRun.usable() && !math.IsInf(k.p.CrashRun.Seconds, 1):
		pod.RestartRun, pod.RestartRunFrom = k.p.CrashRun, "params"
	}
	pod.RestartSchedule = CrashLoop(pod.RestartRun.Seconds, crashLoopSteps, k.v, k.p)
	if pod.RestartRun.Known {
		return
	}
	if name == "" {
		name = "the container"
	}
	term := []string{RestartRunUnknown(name)}
	for i := range pod.RestartSchedule {
		pod.RestartSchedule[i].Exit.Plus = term
		pod.RestartSchedule[i].Start.Plus = term
	}
}

// podRun is how long one Pod of a Job runs before it fails: the configured
// JobRun, else the longest run its regular containers state (StatedRun),
// when each states one.
func (k *computer) podRun() Duration {
	if d := k.p.JobRun; d.usable() && !math.IsInf(d.Seconds, 1) {
		return d
	}
	cs := k.t.ContainersOf(Regular)
	run := 0.0
	for _, c := range cs {
		sc := k.statedOf(&k.w.Spec.Containers[c.Index])
		if !sc.runs {
			return k.p.JobRun
		}
		run = math.Max(run, sc.run)
	}
	if len(cs) == 0 {
		return k.p.JobRun
	}
	return Seconds(run)
}

// crashLoops reports whether a regular container that keeps failing is
// restarted by the kubelet: the Pod's restartPolicy, or with
// ContainerRestartRules each container's own.
func (k *computer) crashLoops() bool {
	for _, c := range k.t.ContainersOf(Regular) {
		if c.RestartsOnFailure {
			return true
		}
	}
	return len(k.w.Spec.Containers) == 0 && k.policy != corev1.RestartPolicyNever
}

// restarts is whether the kubelet restarts a regular or regular init
// container after a probe kill (R-2: its policy is not Never; rules are not
// consulted, the container has not exited) and after a failure (R-1,
// podutil.ContainerShouldRestart): the first restartPolicyRules entry that
// matches the exit code decides (Restart restarts, with the usual crash-loop
// back-off), else the container's policy. The code is the one the command
// states (StatedExit); when it states none, the crash podlint models exits
// with a code no rule lists, which only operator NotIn matches. The
// container's own fields count only where ContainerRestartRules is on for
// v; before, the API server drops them and the Pod's policy applies.
func restarts(ctr *corev1.Container, pod corev1.RestartPolicy, v Version) (kill, failure bool) {
	kill = pod != corev1.RestartPolicyNever
	if !v.ContainerRestartRules() || ctr.RestartPolicy == nil {
		return kill, kill
	}
	kill = *ctr.RestartPolicy != corev1.ContainerRestartPolicyNever
	code, known := StatedExit(ctr)
	known = known && code != 0
	for _, r := range ctr.RestartPolicyRules {
		if r.ExitCodes != nil && exitCodesMatch(string(r.ExitCodes.Operator), r.ExitCodes.Values, code, known) {
			return kill, r.Action == corev1.ContainerRestartRuleActionRestart
		}
	}
	return kill, kill
}

// restartsAfterSuccess is whether the kubelet restarts a container that
// exited with code 0 (ContainerShouldRestart): the first restart rule
// matching 0 where ContainerRestartRules is on, else the container's own
// policy, else the Pod's; only Always restarts after a success.
func restartsAfterSuccess(ctr *corev1.Container, pod corev1.RestartPolicy, v Version) bool {
	if !v.ContainerRestartRules() || ctr.RestartPolicy == nil {
		return pod == corev1.RestartPolicyAlways || pod == ""
	}
	for _, r := range ctr.RestartPolicyRules {
		if r.ExitCodes != nil && exitCodesMatch(string(r.ExitCodes.Operator), r.ExitCodes.Values, 0, true) {
			return r.Action == corev1.ContainerRestartRuleActionRestart
		}
	}
	return *ctr.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// exitCodesMatch applies an onExitCodes operator (In or NotIn, the same
// words for container restart rules and podFailurePolicy) to an exit code;
// an unknown code is one no rule lists.
func exitCodesMatch(op string, values []int32, code int32, known bool) bool {
	switch op {
	case "In":
		return known && slices.Contains(values, code)
	case "NotIn":
		return !known || !slices.Contains(values, code)
	}
	return false
}

// unknown turns a runtime duration into a span: exact when known, else a
// symbolic Plus term.
func (k *computer) unknown(d Duration, what string) Span {
	if d.usable() {
		if math.IsInf(d.Seconds, 1) {
			return Span{Interval: From(0)}
		}
		return Span{Interval: At(d.Seconds)}
	}
	return Span{Interval: At(0), Plus: []string{what}}
}

func (k *computer) initRun(ic *corev1.Container, c *Container) Span {
	cp := k.p.Containers[ic.Name]
	return k.unknown(pick(cp.Run, k.p.InitRun), "run of init container "+ic.Name)
}

func (k *computer) container(ctr *corev1.Container, typ ContainerType, idx int, cpath workload.Path) *Container {
	c := &Container{Name: ctr.Name, Type: typ, Index: idx, Path: cpath}
	cp := k.p.Containers[ctr.Name]
	c.Pull = k.unknown(pick(cp.ImagePull, k.p.ImagePull), "image pull of "+ctr.Name)
	c.ExpectedStartup = k.expectation(ExpectedStartup, ctr.Name)
	c.ExpectedShutdown = k.expectation(ExpectedShutdown, ctr.Name)
	c.AppStart = pick(cp.Start, k.p.AppStart)
	if c.ExpectedStartup.OK {
		c.AppStart = Seconds(c.ExpectedStartup.Seconds)
	}
	c.AppShutdown = pick(cp.Shutdown, k.p.AppShutdown)
	if c.ExpectedShutdown.OK {
		c.AppShutdown = Seconds(c.ExpectedShutdown.Seconds)
	}

	if typ == Sidecar {
		c.Restarts, c.RestartsOnFailure = true, true
	} else {
		c.Restarts, c.RestartsOnFailure = restarts(ctr, k.policy, k.v)
	}
	if typ == Init {
		// Validation forbids probes and lifecycle on regular init
		// containers (V-8); they are not modelled.
		return c
	}

	var lc *corev1.Lifecycle = ctr.Lifecycle
	if lc != nil {
		c.PostStart = postStartHook(lc.PostStart, cpath.Join("lifecycle.postStart"), ctr, k.v)
		k.checkSleep(lc.PreStop, cpath.Join("lifecycle.preStop.sleep.seconds"))
		k.checkSleep(lc.PostStart, cpath.Join("lifecycle.postStart.sleep.seconds"))
	}
	eps, lam := k.p.Epsilon, k.p.Lambda

	// Startup probe (F-6) and the "started" instant.
	c.Started = span(Between(0, eps))
	if ctr.StartupProbe != nil {
		sp := &StartupProbe{Probe: defaultProbe(ctr.StartupProbe, cpath.Join("startupProbe"))}
		D, P, T, FT := sp.InitialDelay.V, sp.Period.V, sp.Timeout.V, sp.FailureThreshold.V
		aHi := math.Max(D, eps)
		dLo := earliestDelay(D)
		ps := sp.paths()
		sp.FirstProbe = span(Between(dLo, aHi+P), sp.InitialDelay.Path, sp.Period.Path)
		sp.GuaranteedBudget = span(At(dLo+(FT-1)*P), ps...)
		sp.MaxBudget = span(At(aHi+FT*P), ps...)
		sp.KillDecision = span(Between(dLo+(FT-1)*P, aHi+FT*P), ps...)
		sp.KillDecisionHang = span(Between(dLo+(FT-1)*sp.Spacing+T, aHi+P+(FT-1)*sp.Spacing+T), append(ps, sp.Timeout.Path)...)
		sp.GracePeriod = k.killGrace(c, ctr.StartupProbe, sp.Path)
		sp.Kill = terminate("startup", sp.GracePeriod, k.preStop(ctr, cpath, sp.GracePeriod.V), lam, c.AppShutdown, 0)
		if c.Restarts {
			sp.Restarts = probeKillRestarts(killCycle(sp.KillDecision.Interval, sp.KillDecisionHang.Interval, sp.Kill), crashLoopSteps, k.v, k.p)
		}
		c.Startup = sp
		c.Started = k.started(c, sp)
	}

	// Liveness (F-4, F-5, F-7).
	if ctr.LivenessProbe != nil {
		lp := &LivenessProbe{Probe: defaultProbe(ctr.LivenessProbe, cpath.Join("livenessProbe"))}
		P, T, FT := lp.Period.V, lp.Timeout.V, lp.FailureThreshold.V
		ps := lp.paths()
		lp.FirstProbe = k.gatedFirst(&lp.Probe, c, false)
		lp.Gated = c.Startup != nil
		lp.KillDecision = lp.FirstProbe.Add(span(At((FT-1)*P), ps...))
		lp.KillDecisionHang = lp.FirstProbe.Add(span(At((FT-1)*lp.Spacing+T), append(ps, lp.Timeout.Path)...))
		lp.HangDetection = span(Between((FT-1)*lp.Spacing+T, FT*lp.Spacing+T), append(ps, lp.Timeout.Path)...)
		lp.GracePeriod = k.killGrace(c, ctr.LivenessProbe, lp.Path)
		lp.Kill = terminate("liveness", lp.GracePeriod, k.preStop(ctr, cpath, lp.GracePeriod.V), lam, c.AppShutdown, 0)
		if c.Restarts {
			next := span(killCycle(lp.KillDecision.Interval, lp.KillDecisionHang.Interval, lp.Kill), ps...)
			lp.NextStart = &next
			lp.UnhealthyRestarts = probeKillRestarts(next.Interval, crashLoopSteps, k.v, k.p)
			k.livenessRestarts(lp, ctr)
		}
		c.Liveness = lp
	}

	// Readiness (F-2, X-10) and the container's Ready (F-8).
	if ctr.ReadinessProbe != nil {
		rp := &ReadinessProbe{Probe: defaultProbe(ctr.ReadinessProbe, cpath.Join("readinessProbe"))}
		D, P, T, FT := rp.InitialDelay.V, rp.Period.V, rp.Timeout.V, rp.FailureThreshold.V
		rp.FirstProbe = k.gatedFirst(&rp.Probe, c, true)
		rp.Gated = c.Startup != nil
		rp.FastPath = D <= eps
		switch {
		case rp.Gated:
			rp.FirstProbeTypical = rp.FirstProbe.Lo
		case k.v.RelistAfterRuntimeAction():
			// The sync that sees the start follows it within
			// milliseconds: it probes at once (D = 0) or restarts the
			// ticker there.
			rp.FirstProbeTypical = math.Ceil(D/P) * P
		case rp.FastPath:
			rp.FirstProbeTypical = eps
		case k.v.ProbeTickerReset():
			rp.FirstProbeTypical = eps + math.Ceil((D-eps)/P)*P
		default:
			// Before 1.32 the ticker keeps its phase: the first tick
			// after D is anywhere in [D, D+P), on average half a period.
			rp.FirstProbeTypical = D + P/2
		}
		rp.NotReadyDetection = span(Between((FT-1)*rp.Spacing+T, FT*rp.Spacing+T), rp.paths()...)
		rp.NotReadyDetectionFast = span(Between((FT-1)*P, FT*P), rp.Period.Path, rp.FailureThreshold.Path)
		c.Readiness = rp
	}
	r := k.ready(c)
	c.Ready = &r
	return c
}

// livenessRestarts sets lp.Restarts from the runs the container states
// (StatedHealth): healthy h seconds, then the probe's failures and the
// kill; with nothing stated, runs of the kill window or longer.
func (k *computer) livenessRestarts(lp *LivenessProbe, ctr *corev1.Container) {
	h, alive, ok := StatedHealth(ctr, ctr.LivenessProbe)
	switch {
	case ok && h == 0:
		lp.HealthyFor, lp.Restarts = Seconds(0), lp.UnhealthyRestarts
		return
	case ok:
		fast, hang := lp.FailingFrom(h, false), lp.FailingFrom(h, true)
		// A command that ends before the probe acts crashes instead.
		if decided := Later(fast, hang); !decided.HiUnbounded && alive >= decided.Hi-h {
			lp.HealthyFor = Seconds(h)
			lp.Restarts = probeKillRestarts(killCycle(fast, hang, lp.Kill), crashLoopSteps, k.v, k.p)
			return
		}
	}
	lp.Restarts = healthUnknownRestarts(lp.NextStart.Interval, crashLoopSteps, k.v, k.p)
}

// killCycle is how long an instance that a probe kills at every start
// runs, start to exit: from the earliest fast-failure decision plus the
// quickest exit to the latest decision (failing fast or hanging) plus the
// slowest.
func killCycle(fast, hang Interval, kill *Termination) Interval {
	decided := Later(fast, hang)
	return Interval{Lo: fast.Lo + kill.Exit.Lo, Hi: decided.Hi + kill.Exit.Hi, HiUnbounded: decided.HiUnbounded || kill.Exit.HiUnbounded}.norm()
}

// checkSleep notes a sleep action the API server rejects (T-5): seconds
// must lie in [0, TGPS] ([1, TGPS] before 1.33). The model still runs the
// hook, cut at the grace period, as the kubelet would if it got that far.
func (k *computer) checkSleep(h *corev1.LifecycleHandler, p workload.Path) {
	if h == nil || h.Sleep == nil || !k.v.SleepAction() {
		return
	}
	s := float64(h.Sleep.Seconds)
	if s > k.grace.V {
		k.note(p, "sleep of %s is rejected at admission: it must not exceed terminationGracePeriodSeconds (%s)", FormatSeconds(s), FormatSeconds(k.grace.V))
	} else if s < 0 || (s == 0 && !k.v.SleepZero()) {
		k.note(p, "sleep of %s is rejected at admission on %s", FormatSeconds(s), k.v)
	}
}

func (pr *Probe) paths() []workload.Path {
	return []workload.Path{pr.InitialDelay.Path, pr.Period.Path, pr.FailureThreshold.Path}
}

// probeGrace is the grace of a liveness/startup kill: the probe's
// terminationGracePeriodSeconds when set and honoured on this version,
// else the pod's (T-2 step 1).
func (k *computer) probeGrace(pr *corev1.Probe, probePath workload.Path) Value {
	if pr.TerminationGracePeriodSeconds != nil {
		p := probePath.Join("terminationGracePeriodSeconds")
		if k.v.ProbeGracePeriod() {
			g := float64(*pr.TerminationGracePeriodSeconds)
			if g < 1 {
				g = 1 // validation requires > 0; keep the kubelet's 1 s floor
			}
			return Value{V: g, Path: p, Set: true}
		}
		k.note(p, "probe-level terminationGracePeriodSeconds is ignored before Kubernetes 1.25; the pod's grace period applies")
	}
	return k.grace
}

// killGrace is the grace of a probe kill. When the killed container is
// the Pod's only regular container and is not restarted, nothing is left
// to keep or start, so computePodActions kills the whole Pod instead
// (KillPod), and killContainersWithSyncResult passes no reason: the Pod's
// grace period applies and the probe's is ignored (observed on v1.37.2:
// SIGKILL 30 s after the decision with probe grace 3 s; T-2).
func (k *computer) killGrace(c *Container, pr *corev1.Probe, probePath workload.Path) Value {
	g := k.probeGrace(pr, probePath)
	if c.Type == Regular && !c.Restarts && len(k.w.Spec.Containers) == 1 {
		if pr.TerminationGracePeriodSeconds != nil && g.V != k.grace.V {
			k.note(probePath.Join("terminationGracePeriodSeconds"), "%q is the only container and is not restarted, so its probe kill stops the whole Pod with the Pod's grace period (%s), not this one", c.Name, FormatSeconds(k.grace.V))
		}
		return k.grace
	}
	return g
}

func (k *computer) preStop(ctr *corev1.Container, cpath workload.Path, G float64) *Hook {
	if ctr.Lifecycle == nil {
		return nil
	}
	return preStopHook(ctr.Lifecycle.PreStop, cpath.Join("lifecycle.preStop"), G, k.v, ctr)
}

// gatedFirst is the first liveness/readiness probe: F-1 without a startup
// probe; with one, F-5: max(D, T_started + λ), and initialDelaySeconds
// still counts from the container start.
func (k *computer) gatedFirst(pr *Probe, c *Container, poked bool) Span {
	D, P := pr.InitialDelay.V, pr.Period.V
	aHi := math.Max(D, k.p.Epsilon)
	if c.Startup == nil {
		return span(Between(earliestDelay(D), aHi+P), pr.InitialDelay.Path, pr.Period.Path)
	}
	// The startup verdict reaches the sync loop within milliseconds on an
	// idle node (3 ms observed), so λ bounds only the upper edge (P-13).
	st := c.Started.Shift(k.p.Lambda)
	first := Interval{Lo: math.Max(earliestDelay(D), c.Started.Lo), HiUnbounded: st.HiUnbounded}
	switch {
	case poked && aHi <= c.Started.Lo:
		// The startup success pokes readiness at once (P-13).
		first.Hi = st.Hi
	case poked:
		// D may not have passed at the poke: then the tick after D.
		first.Hi = math.Max(aHi+P, st.Hi)
	default:
		// Liveness has no poke: its next tick after success and D.
		first.Hi = math.Max(aHi, st.Hi) + P
	}
	return Span{Interval: first.norm(), Plus: st.Plus, Paths: merge(c.Started.Paths, []workload.Path{pr.InitialDelay.Path, pr.Period.Path})}
}

// earliestDelay is the earliest instant after S at which a probe with
// initialDelaySeconds D may run: doProbe compares whole seconds since the
// startedAt of the status manager's copy, which normalizeStatus truncates
// to whole seconds, so probing may begin at ⌊S⌋ + D, up to one second
// before S + D (P-11, F-1).
func earliestDelay(D float64) float64 {
	return math.Max(D-StartedAtResolution, 0)
}

// started is when the startup probe first succeeds, relative to S, for an
// app healthy at AppStart (known) or at any time the probe tolerates.
func (k *computer) started(c *Container, sp *StartupProbe) Span {
	D, P := sp.InitialDelay.V, sp.Period.V
	aHi := math.Max(D, k.p.Epsilon)
	ps := sp.paths()
	if !c.AppStart.usable() {
		// Unknown start: the earliest success is the first probe, the
		// latest is the last probe before the kill (B_max).
		return span(Between(earliestDelay(D), sp.KillDecision.Hi), ps...)
	}
	h := c.AppStart.Seconds
	lo := math.Max(h, earliestDelay(D))
	if h >= sp.MaxBudget.Lo {
		k.note(sp.Path, "startup probe of %q kills it before its expected start-up of %s (budget %s to %s)", workload.ContainerName{Name: c.Name, Index: c.Index}, FormatSeconds(h), FormatSeconds(sp.GuaranteedBudget.Lo), FormatSeconds(sp.MaxBudget.Lo))
		never := span(From(lo), ps...)
		never.Never = true
		return never
	}
	hi := math.Min(math.Max(h, aHi)+P, sp.KillDecision.Hi)
	return span(Between(lo, math.Max(lo, hi)), ps...)
}

// ready is the container's first Ready, relative to S (F-8).
func (k *computer) ready(c *Container) Span {
	eps, lam := k.p.Epsilon, k.p.Lambda
	rp := c.Readiness
	if c.Startup != nil {
		if rp == nil {
			// Ready as soon as started (P-3), in the sync the verdict
			// triggers: within λ, milliseconds on an idle node.
			r := c.Started
			r.Interval = Interval{Lo: r.Lo, Hi: r.Hi + lam, HiUnbounded: r.HiUnbounded}.norm()
			return r
		}
		return rp.FirstProbe.Add(span(At((rp.SuccessThreshold.V-1)*rp.Period.V), rp.SuccessThreshold.Path))
	}
	if rp == nil {
		// No probes gating readiness: ready once the kubelet sees it run.
		return span(Between(0, eps))
	}
	// The app answers from h on; h is AppStart when known, otherwise
	// anything from 0 to the latest start liveness tolerates (or
	// unbounded without liveness).
	hLo, hHi, unbounded, never := 0.0, 0.0, false, false
	var paths []workload.Path
	switch {
	case c.AppStart.usable():
		hLo, hHi = c.AppStart.Seconds, c.AppStart.Seconds
		unbounded = math.IsInf(hHi, 1)
		if c.Liveness != nil {
			if _, must := c.Liveness.Outcome(hLo); must {
				k.note(c.Liveness.Path, "liveness probe of %q kills it before its expected start-up of %s: it never becomes ready", workload.ContainerName{Name: c.Name, Index: c.Index}, FormatSeconds(hLo))
				unbounded, never = true, true
				paths = c.Liveness.KillDecision.Paths
			}
		}
	case c.Liveness != nil:
		hHi = c.Liveness.KillDecision.Hi
		unbounded = c.Liveness.KillDecision.HiUnbounded
		paths = c.Liveness.KillDecision.Paths
	default:
		unbounded = true
	}
	D, P, ST := rp.InitialDelay.V, rp.Period.V, rp.SuccessThreshold.V
	tail := (ST - 1) * P
	r := Interval{Lo: math.Max(hLo, earliestDelay(D)) + tail, HiUnbounded: unbounded}
	if !unbounded {
		r.Hi = math.Max(hHi, math.Max(D, eps)) + P + tail
	}
	return Span{Interval: r.norm(), Paths: merge(paths, append(rp.paths(), rp.SuccessThreshold.Path)), Never: never}
}

// deletion models the pod delete with the pod's grace (F-11, T-4, E-7):
// regular containers are stopped concurrently; each sidecar gets its stop
// signal after its preStop, after every regular container is gone and after
// the sidecar declared after it is gone, each hand-over up to X later (the
// runtime's stop call, T-9), but no later than the grace.
func (k *computer) deletion(pod *Pod) {
	G := k.grace
	if G.V < 1 {
		// On deletion the kubelet never uses less than 1 s of pod grace
		// (calculateEffectiveGracePeriod), so a preStop still runs, for 1 s;
		// only probe kills with grace 0 skip it.
		G.V = 1
	}
	x := k.p.StopLatency
	spec := k.w.Spec
	for _, c := range k.t.ContainersOf(Init) {
		// A Pod deleted while initializing: the running init container
		// is stopped like any other (killContainersWithSyncResult), with
		// no preStop (validation forbids lifecycle on it). The Pod's
		// Terminated below is for a Pod that got past its init containers.
		c.Termination = terminate("delete", G, nil, 0, c.AppShutdown, x)
	}
	var mainGone, all Interval
	for _, c := range k.t.Containers {
		if c.Type != Regular {
			continue
		}
		ctr := &spec.Containers[c.Index]
		c.Termination = terminate("delete", G, k.preStop(ctr, c.Path, G.V), 0, c.AppShutdown, x)
		if pre := c.Termination.PreStop; pre != nil && pre.Skipped == "" && !k.v.PreStopInGrace() {
			graceAfterPreStop(c.Termination, c.AppShutdown, x)
			k.note(pre.Path, "on Kubernetes %s the grace period starts again after the preStop hook of %q on a delete (fixed in 1.28, kubernetes#115835): SIGKILL comes up to %s after the delete request, not %s", k.v, c.Name, FormatSeconds(c.Termination.SIGKILL.Max()), FormatSeconds(G.V+MinimumStopGrace))
		}
		mainGone = Later(mainGone, c.Termination.Exit.Interval)
	}
	all = mainGone
	var regularNames []string
	for _, c := range k.t.ContainersOf(Regular) {
		regularNames = append(regularNames, c.Name)
	}
	sidecars := k.t.ContainersOf(Sidecar)
	next := At(0)
	nextName := ""
	for i := len(sidecars) - 1; i >= 0; i-- {
		c := sidecars[i]
		ctr := &spec.InitContainers[c.Index]
		pre := k.preStop(ctr, c.Path, G.V)
		p := At(0)
		if pre != nil && pre.Skipped == "" {
			p = pre.Duration.Interval
		}
		// The turn comes when the StopContainer calls of the containers
		// waited for have returned (killContainer closes a container's
		// ordering channel after the call), up to X after their exits.
		turn := Later(mainGone, next).Add(Between(0, x))
		stop := Later(p, turn)
		// The wait is bounded by the remaining grace, on the kubelet's
		// own timer (waitForTurn), which no runtime call delays.
		stop = Earlier(stop, Later(p, At(G.V)))
		kill := killRange(stop, G.V).Add(Between(0, x))
		paths := []workload.Path{G.Path, c.Path}
		if pre != nil {
			paths = append(paths, pre.Path)
		}
		waits := append([]string(nil), regularNames...)
		if nextName != "" {
			waits = append(waits, nextName)
		}
		c.Termination = &Termination{
			Reason:      "delete",
			GracePeriod: G,
			PreStop:     pre,
			StopSignal:  span(closedHi(stop), paths...),
			SIGKILL:     span(closedHi(kill), paths...),
			Exit:        span(closedHi(exitOf(stop, kill, c.AppShutdown)), paths...),
			WaitsFor:    waits,
		}
		next, nextName = c.Termination.Exit.Interval, c.Name
		all = Later(all, next)
		pod.SidecarStopOrder = append(pod.SidecarStopOrder, c.Name)
	}
	// Reached, not just approached: an app that uses the whole grace is
	// SIGKILLed at it, and a sidecar's wait for its turn times out at it
	// (T-2, T-4).
	pod.Terminated = span(closedHi(all), G.Path)
}

// initFailure is what a non-zero exit of a regular init container leads to
// (R-4, PH-1): the Pod fails in the sync after the kubelet sees the exit
// when the container's effective policy is Never; otherwise the container
// is retried with the crash-loop back-off, each attempt running `run`.
func (k *computer) initFailure(c *Container, run Span) *InitFailure {
	if !c.RestartsOnFailure {
		// The next relist sees the exit, up to ε later (plegRelistPeriod,
		// wait.Until), and its event reaches the sync that writes Failed
		// as a probe result does, up to λ later (plegCh →
		// HandlePodSyncs → SyncPod → generateAPIPodStatus).
		failed := span(Between(0, k.p.Epsilon+k.p.Lambda), k.w.SpecPath.Join("restartPolicy"))
		return &InitFailure{PodFails: true, PodFailed: &failed}
	}
	r := 0.0
	if run.Exact() && len(run.Plus) == 0 {
		r = run.Lo
	}
	return &InitFailure{Restarts: CrashLoop(r, crashLoopSteps, k.v, k.p)}
}
