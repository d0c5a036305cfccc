package main

import (
	"fmt"
	"strings"
	"time"
)

// A scenario is one Pod and the quantities read off it. Each check pairs a
// field of `podlint timeline -f json` (an interval relative to the event the
// field's documentation names) with the same quantity observed on the
// kubelet, relative to the same event.
type scenario struct {
	name     string
	manifest string
	// deleteAfter: seconds after the manifest is written until it is
	// removed (the static Pod's delete request).
	deleteAfter float64
	checks      []check
}

type check struct {
	quantity string
	field    string // podlint JSON path; also the predicted interval unless predict is set
	predict  func(*prediction) (interval, error)
	observe  func(*pod) (float64, error)
	tol      float64
	note     string
}

// Shell fragments of the containers (busybox sh). `idle` keeps a container
// running; the trap decides what SIGTERM does.
const (
	idle        = `while :; do sleep 1 & wait $!; done`
	ignoreTerm  = `trap "log sigterm" TERM; `
	exitOnTerm  = `trap "log sigterm; exit 0" TERM; `
	slowOnTerm  = `trap "log sigterm; sleep 1; log exit; exit 0" TERM; `
	countedFail = `n=$(cat /obs/count-$C 2>/dev/null || echo 0); echo $((n+1)) >/obs/count-$C; `
)

// cmd is a container command: it sources the log helper, logs its start,
// then runs script.
func cmd(c, script string) string {
	return fmt.Sprintf("command: [sh, -c, '%s']", "C="+c+"; . /obs/lib.sh; log start; "+script)
}

// probeCmd is an exec probe that logs each run as EVENT and then runs script.
func probeCmd(c, event, script string) string {
	return fmt.Sprintf("exec: {command: [sh, -c, 'C=%s; . /obs/lib.sh; log %s; %s']}", c, event, script)
}

// podYAML assembles a Pod: spec lines (at two spaces) and containers, each
// given as its lines after "- name: X" (at four spaces).
func podYAML(annotations string, spec []string, initContainers, containers [][2]string) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Pod\nmetadata:\n  name: @NAME@\n  namespace: @NS@\n  uid: @UID@\n")
	if annotations != "" {
		b.WriteString("  annotations: {" + annotations + "}\n")
	}
	b.WriteString("spec:\n")
	for _, s := range spec {
		b.WriteString("  " + s + "\n")
	}
	b.WriteString("  volumes: [{name: obs, hostPath: {path: @OBS@}}]\n")
	for _, list := range []struct {
		key string
		cs  [][2]string
	}{{"initContainers", initContainers}, {"containers", containers}} {
		if len(list.cs) == 0 {
			continue
		}
		b.WriteString("  " + list.key + ":\n")
		for _, c := range list.cs {
			b.WriteString("  - name: " + c[0] + "\n")
			b.WriteString("    image: " + appImage + "\n    imagePullPolicy: Never\n")
			b.WriteString("    volumeMounts: [{name: obs, mountPath: /obs}]\n")
			for _, l := range strings.Split(strings.TrimSpace(c[1]), "\n") {
				b.WriteString("    " + strings.TrimSpace(l) + "\n")
			}
		}
	}
	return b.String()
}

var hostNet = "hostNetwork: true"

// restartTol: a restart's wait, from the runtime's exit to the kubelet's
// start of the next instance, also holds, after a probe kill, the return
// of the runtime's stop call (0.2–0.7 s on a loaded 2-core machine), and
// the relist jitter around ε; podlint models neither.
const restartTol = 1.0

// Observation shorthands; inst counts a container's instances from 0.

func start(p *pod, c string, inst int) (time.Time, error) { return p.obsN(c, "start", inst) }

func since(a func() (time.Time, error), b func() (time.Time, error)) (float64, error) {
	x, err := a()
	if err != nil {
		return 0, err
	}
	y, err := b()
	if err != nil {
		return 0, err
	}
	return secs(x, y), nil
}

// deleted is when the kubelet saw the manifest go ("SyncLoop REMOVE"),
// else when it was removed.
func deleted(p *pod) func() (time.Time, error) {
	return func() (time.Time, error) {
		for _, l := range p.kubelet {
			if l.kind == "remove" && !l.t.Before(p.deleted.Add(-time.Second)) {
				return l.t, nil
			}
		}
		return p.deleted, nil
	}
}

// sigkilled is the exit of a container that ignored SIGTERM: status 137.
func sigkilled(p *pod, c string, inst int) func() (time.Time, error) {
	return func() (time.Time, error) {
		e, err := p.exitN(c, inst)
		if err != nil {
			return time.Time{}, err
		}
		if e.status != 137 {
			return time.Time{}, fmt.Errorf("%s exited with %d, not 137 (SIGKILL)", c, e.status)
		}
		return e.t, nil
	}
}

func exited(p *pod, c string, inst int) func() (time.Time, error) {
	return func() (time.Time, error) {
		e, err := p.exitN(c, inst)
		return e.t, err
	}
}

// lastExit is when the last container of the Pod was gone.
func lastExit(p *pod) func() (time.Time, error) {
	return func() (time.Time, error) {
		var last time.Time
		for _, es := range p.exits {
			for _, e := range es {
				if e.t.After(last) {
					last = e.t
				}
			}
		}
		if last.IsZero() {
			return last, fmt.Errorf("no container exit seen")
		}
		return last, nil
	}
}

func obs(p *pod, c, ev string, n int) func() (time.Time, error) {
	return func() (time.Time, error) { return p.obsN(c, ev, n) }
}

func startOf(p *pod, c string, inst int) func() (time.Time, error) {
	return func() (time.Time, error) { return start(p, c, inst) }
}

// created is when the kubelet started instance inst of container c
// ("Creating container in pod"): where podlint's restart delays end. The
// runtime's creation and start come after it, 0.1–2.7 s on a loaded
// machine (task creation in the shim and runc), which podlint does not
// model.
func created(p *pod, c string, inst int) func() (time.Time, error) {
	return func() (time.Time, error) { return p.createdN(c, inst) }
}

// taskStart is the runtime's start of instance inst of container c (ctr
// events' /tasks/start, the status's startedAt): a restart's own first
// line comes after its shell has started, which took up to 2.4 s of CPU
// the Pod's BestEffort cgroup shares with compilers on a loaded machine.
func taskStart(p *pod, c string, inst int) func() (time.Time, error) {
	return func() (time.Time, error) { return p.taskStartN(c, inst) }
}

// probeRun is when the kubelet ran the exec probe that logs event for the
// n-th time: the first probe's time as podlint states it, without the
// runtime's exec.
func probeRun(p *pod, c, event string, n int) func() (time.Time, error) {
	return func() (time.Time, error) { return p.probeRunN(c, event, n) }
}

func probe(p *pod, c, typ, result string, n int) func() (time.Time, error) {
	return func() (time.Time, error) { return p.probeN(c, typ, result, n) }
}

func changedAfter(p *pod, key, value string, after func() (time.Time, error)) func() (time.Time, error) {
	return func() (time.Time, error) {
		t, err := after()
		if err != nil {
			return t, err
		}
		return p.changed(key, value, t)
	}
}

// restartChecks compares the wait before each restart of container c,
// from the previous instance's exit (the runtime's) to the kubelet's start
// of the next, with the delay of
// list[n] (restart n+1). seen widens the upper edge by how late the
// kubelet may see the exit, for back-offs that count from the exit as the
// kubelet sees it: the width the exit interval adds to the previous
// start's (ε).
func restartChecks(c, list string, n int, seen bool, note string) []check {
	var out []check
	for i := 0; i < n; i++ {
		i := i
		field := fmt.Sprintf("%s.%d.delay", list, i)
		ck := check{quantity: fmt.Sprintf("wait before restart %d (exit → kubelet starts it)", i+1), field: field, note: note, tol: restartTol,
			observe: func(p *pod) (float64, error) { return since(created(p, c, i+1), exited(p, c, i)) }}
		if seen {
			ck.predict = func(pr *prediction) (interval, error) {
				d, err := pr.iv(field)
				if err != nil {
					return d, err
				}
				e, err := pr.iv(fmt.Sprintf("%s.%d.exit", list, i))
				if err != nil {
					return d, err
				}
				late := e.hi - e.lo
				if i > 0 {
					prev, err := pr.iv(fmt.Sprintf("%s.%d.start", list, i-1))
					if err != nil {
						return d, err
					}
					late -= prev.hi - prev.lo
				}
				return interval{d.lo, d.hi + late}, nil
			}
		}
		out = append(out, ck)
	}
	return out
}

// startChecks compares each restart's start, counted from the first
// start (the runtime's), with list[n].start: the runs and the waits
// together.
func startChecks(c, list string, n int) []check {
	var out []check
	for i := 0; i < n; i++ {
		i := i
		out = append(out, check{quantity: fmt.Sprintf("restart %d starts (after the first start)", i+1), field: fmt.Sprintf("%s.%d.start", list, i),
			tol: restartTol, observe: func(p *pod) (float64, error) { return since(taskStart(p, c, i+1), taskStart(p, c, 0)) }})
	}
	return out
}

func scenarios() []*scenario {
	return []*scenario{
		{
			name: "first-probe",
			manifest: podYAML("", []string{hostNet, "terminationGracePeriodSeconds: 2"}, nil, [][2]string{{"app", cmd("app", exitOnTerm+idle) + `
				livenessProbe: {` + probeCmd("app", "lprobe", "exit 0") + `, initialDelaySeconds: 4, periodSeconds: 3}
				readinessProbe: {` + probeCmd("app", "rprobe", "exit 0") + `, periodSeconds: 10}`}}),
			deleteAfter: 12,
			checks: []check{
				{quantity: "first liveness probe (D = 4) after start", field: "containers.app.livenessProbe.firstProbe",
					observe: func(p *pod) (float64, error) { return since(probeRun(p, "app", "lprobe", 0), startOf(p, "app", 0)) }},
				{quantity: "first readiness probe (D = 0) after start", field: "containers.app.readinessProbe.firstProbe",
					observe: func(p *pod) (float64, error) { return since(probeRun(p, "app", "rprobe", 0), startOf(p, "app", 0)) }},
				{quantity: "first readiness probe, typical value", field: "containers.app.readinessProbe.firstProbeTypical", tol: 0.1,
					observe: func(p *pod) (float64, error) { return since(probeRun(p, "app", "rprobe", 0), startOf(p, "app", 0)) }},
				{quantity: "container Ready after start", field: "containers.app.ready",
					observe: func(p *pod) (float64, error) {
						return since(changedAfter(p, "ready/app", "true", startOf(p, "app", 0)), startOf(p, "app", 0))
					}},
			},
		},
		{
			name: "liveness-exec-kill",
			manifest: podYAML("", []string{hostNet, "terminationGracePeriodSeconds: 4"}, nil, [][2]string{{"app", cmd("app", ignoreTerm+idle) + `
				livenessProbe: {` + probeCmd("app", "lprobe", "exit 1") + `, initialDelaySeconds: 2, periodSeconds: 2, failureThreshold: 3}`}}),
			deleteAfter: 135,
			checks: append([]check{
				{quantity: "first liveness probe after start", field: "containers.app.livenessProbe.firstProbe",
					observe: func(p *pod) (float64, error) { return since(probeRun(p, "app", "lprobe", 0), startOf(p, "app", 0)) }},
				{quantity: "kill decision (3rd failure) after start", field: "containers.app.livenessProbe.killDecision",
					observe: func(p *pod) (float64, error) {
						return since(probe(p, "app", "Liveness", "failed", 2), startOf(p, "app", 0))
					}},
				{quantity: "SIGTERM after the kill decision", field: "containers.app.livenessProbe.kill.sigterm",
					observe: func(p *pod) (float64, error) {
						return since(obs(p, "app", "sigterm", 0), probe(p, "app", "Liveness", "failed", 2))
					}},
				{quantity: "SIGKILL after the kill decision", field: "containers.app.livenessProbe.kill.sigkill",
					observe: func(p *pod) (float64, error) {
						return since(sigkilled(p, "app", 0), probe(p, "app", "Liveness", "failed", 2))
					}},
				{quantity: "replacement starts (after the first start)", field: "containers.app.livenessProbe.nextStart",
					observe: func(p *pod) (float64, error) { return since(startOf(p, "app", 1), startOf(p, "app", 0)) }},
			}, restartChecks("app", "containers.app.livenessProbe.restarts", 5, false, "")...),
		},
		{
			name: "liveness-http-kill",
			manifest: podYAML("", []string{"terminationGracePeriodSeconds: 2", "restartPolicy: Never"}, nil, [][2]string{{"app", cmd("app", "httpd -p 8080 -h /www; "+exitOnTerm+idle) + `
				livenessProbe: {httpGet: {path: /healthz, port: 8080}, initialDelaySeconds: 1, periodSeconds: 3, failureThreshold: 2}`}}),
			deleteAfter: 20,
			checks: []check{
				{quantity: "first HTTP liveness probe after start (Pod network)", field: "containers.app.livenessProbe.firstProbe",
					observe: func(p *pod) (float64, error) { return since(probe(p, "app", "Liveness", "", 0), startOf(p, "app", 0)) }},
				{quantity: "kill decision (2nd 404) after start", field: "containers.app.livenessProbe.killDecision",
					observe: func(p *pod) (float64, error) {
						return since(probe(p, "app", "Liveness", "failed", 1), startOf(p, "app", 0))
					}},
				{quantity: "SIGTERM after the kill decision", field: "containers.app.livenessProbe.kill.sigterm",
					observe: func(p *pod) (float64, error) {
						return since(obs(p, "app", "sigterm", 0), probe(p, "app", "Liveness", "failed", 1))
					}},
			},
		},
		{
			name: "startup-budget",
			manifest: podYAML("", []string{hostNet, "terminationGracePeriodSeconds: 2", "restartPolicy: Never"}, nil, [][2]string{{"app", cmd("app", exitOnTerm+idle) + `
				startupProbe: {` + probeCmd("app", "sprobe", "exit 1") + `, initialDelaySeconds: 3, periodSeconds: 2, failureThreshold: 3}`}}),
			deleteAfter: 20,
			checks: []check{
				{quantity: "first startup probe (D = 3) after start", field: "containers.app.startupProbe.firstProbe",
					observe: func(p *pod) (float64, error) { return since(probeRun(p, "app", "sprobe", 0), startOf(p, "app", 0)) }},
				{quantity: "startup kill decision (3rd failure) after start", field: "containers.app.startupProbe.killDecision",
					observe: func(p *pod) (float64, error) {
						return since(probe(p, "app", "Startup", "failed", 2), startOf(p, "app", 0))
					}},
				{quantity: "SIGTERM after the kill decision", field: "containers.app.startupProbe.kill.sigterm",
					observe: func(p *pod) (float64, error) {
						return since(obs(p, "app", "sigterm", 0), probe(p, "app", "Startup", "failed", 2))
					}},
			},
		},
		{
			name: "readiness-fast-fail",
			manifest: podYAML("", []string{hostNet, "terminationGracePeriodSeconds: 2"}, nil, [][2]string{{"app",
				cmd("app", exitOnTerm+"touch /tmp/ready; sleep 9; rm /tmp/ready; log unready; "+idle) + `
				readinessProbe: {` + probeCmd("app", "rprobe", "test -e /tmp/ready") + `, periodSeconds: 2, failureThreshold: 2}`}}),
			deleteAfter: 20,
			checks: []check{
				{quantity: "container Ready after start", field: "containers.app.ready",
					observe: func(p *pod) (float64, error) {
						return since(changedAfter(p, "ready/app", "true", startOf(p, "app", 0)), startOf(p, "app", 0))
					}},
				{quantity: "not-ready after the check starts failing fast (P = 2, FT = 2)", field: "containers.app.readinessProbe.notReadyDetectionFast",
					observe: func(p *pod) (float64, error) {
						return since(changedAfter(p, "ready/app", "false", obs(p, "app", "unready", 0)), obs(p, "app", "unready", 0))
					}},
			},
		},
		{
			name: "readiness-hang",
			manifest: podYAML("", []string{hostNet, "terminationGracePeriodSeconds: 2"}, nil, [][2]string{{"app",
				cmd("app", exitOnTerm+"sleep 8; touch /tmp/hang; log hang; "+idle) + `
				readinessProbe: {` + probeCmd("app", "rprobe", "if [ -e /tmp/hang ]; then sleep 30; fi") + `, periodSeconds: 2, timeoutSeconds: 1, failureThreshold: 2}`}}),
			deleteAfter: 22,
			checks: []check{
				{quantity: "not-ready after the check starts hanging (T = 1)", field: "containers.app.readinessProbe.notReadyDetection",
					observe: func(p *pod) (float64, error) {
						return since(changedAfter(p, "ready/app", "false", obs(p, "app", "hang", 0)), obs(p, "app", "hang", 0))
					}},
			},
		},
		{
			name: "prestop-exec-grace",
			manifest: podYAML("", []string{hostNet, "terminationGracePeriodSeconds: 8"}, nil, [][2]string{{"app", cmd("app", ignoreTerm+idle) + `
				lifecycle: {preStop: {exec: {command: [sh, -c, 'C=app; . /obs/lib.sh; log prestop; sleep 3']}}}`}}),
			deleteAfter: 8,
			checks: []check{
				{quantity: "SIGTERM after the delete (preStop sleeps 3 s)", field: "containers.app.termination.sigterm",
					observe: func(p *pod) (float64, error) { return since(obs(p, "app", "sigterm", 0), deleted(p)) }},
				{quantity: "SIGKILL after the delete (grace 8 s)", field: "containers.app.termination.sigkill",
					observe: func(p *pod) (float64, error) { return since(sigkilled(p, "app", 0), deleted(p)) }},
				{quantity: "Pod gone after the delete", field: "pod.terminated",
					observe: func(p *pod) (float64, error) { return since(lastExit(p), deleted(p)) }},
			},
		},
		{
			name: "sleep-action-floor",
			manifest: podYAML("", []string{hostNet, "terminationGracePeriodSeconds: 8"}, nil, [][2]string{{"app", cmd("app", ignoreTerm+idle) + `
				lifecycle: {preStop: {sleep: {seconds: 7}}}`}}),
			deleteAfter: 8,
			checks: []check{
				{quantity: "SIGTERM after the delete (sleep action 7 s)", field: "containers.app.termination.sigterm",
					observe: func(p *pod) (float64, error) { return since(obs(p, "app", "sigterm", 0), deleted(p)) }},
				{quantity: "SIGKILL after the delete (2 s floor: 7 + max(8 − 7, 2))", field: "containers.app.termination.sigkill",
					observe: func(p *pod) (float64, error) { return since(sigkilled(p, "app", 0), deleted(p)) }},
			},
		},
		{
			name: "sleep-action",
			manifest: podYAML("", []string{hostNet, "terminationGracePeriodSeconds: 10"}, nil, [][2]string{{"app", cmd("app", exitOnTerm+idle) + `
				lifecycle: {preStop: {sleep: {seconds: 3}}}`}}),
			deleteAfter: 8,
			checks: []check{
				{quantity: "SIGTERM after the delete (sleep action 3 s)", field: "containers.app.termination.sigterm",
					observe: func(p *pod) (float64, error) { return since(obs(p, "app", "sigterm", 0), deleted(p)) }},
				{quantity: "Pod gone after the delete", field: "pod.terminated",
					observe: func(p *pod) (float64, error) { return since(lastExit(p), deleted(p)) }},
			},
		},
		{
			name: "probe-grace-kill",
			manifest: podYAML("", []string{hostNet, "terminationGracePeriodSeconds: 30", "restartPolicy: Never"}, nil, [][2]string{{"app", cmd("app", ignoreTerm+idle) + `
				livenessProbe: {` + probeCmd("app", "lprobe", "exit 1") + `, initialDelaySeconds: 1, periodSeconds: 1, failureThreshold: 2, terminationGracePeriodSeconds: 3}`}}),
			deleteAfter: 16,
			checks: []check{
				{quantity: "kill decision (2nd failure) after start", field: "containers.app.livenessProbe.killDecision",
					observe: func(p *pod) (float64, error) {
						return since(probe(p, "app", "Liveness", "failed", 1), startOf(p, "app", 0))
					}},
				{quantity: "SIGTERM after the kill decision", field: "containers.app.livenessProbe.kill.sigterm",
					observe: func(p *pod) (float64, error) {
						return since(obs(p, "app", "sigterm", 0), probe(p, "app", "Liveness", "failed", 1))
					}},
				{quantity: "SIGKILL after the kill decision (probe grace 3 s)", field: "containers.app.livenessProbe.kill.sigkill",
					observe: func(p *pod) (float64, error) {
						return since(sigkilled(p, "app", 0), probe(p, "app", "Liveness", "failed", 1))
					}},
			},
		},
		{
			name: "sidecar-start-order",
			manifest: podYAML("", []string{hostNet, "terminationGracePeriodSeconds: 2"}, [][2]string{
				{"sc1", "restartPolicy: Always\n" + cmd("sc1", exitOnTerm+"sleep 3; touch /tmp/up; "+idle) + `
				startupProbe: {exec: {command: [test, -e, /tmp/up]}, periodSeconds: 1, failureThreshold: 10}`},
				{"sc2", "restartPolicy: Always\n" + cmd("sc2", exitOnTerm+idle)},
			}, [][2]string{{"app", cmd("app", exitOnTerm+idle)}}),
			deleteAfter: 12,
			checks: []check{
				{quantity: "sc2 starts after sc1 (sc1's startup probe passes at about 3 s)", field: "containers.sc1.started",
					predict: func(pr *prediction) (interval, error) {
						s, err := pr.iv("containers.sc1.started")
						return s.add(interval{0, 1}), err
					},
					note:    "predicted: sc1's started + [0, ε]",
					observe: func(p *pod) (float64, error) { return since(startOf(p, "sc2", 0), startOf(p, "sc1", 0)) }},
				{quantity: "app starts after sc2", field: "containers.sc2.started",
					observe: func(p *pod) (float64, error) { return since(startOf(p, "app", 0), startOf(p, "sc2", 0)) }},
			},
		},
		{
			name: "sidecar-stop-order",
			manifest: podYAML(`podlint.dev/expected-shutdown: "1s"`, []string{hostNet, "terminationGracePeriodSeconds: 10"}, [][2]string{
				{"sc1", "restartPolicy: Always\n" + cmd("sc1", slowOnTerm+idle)},
				{"sc2", "restartPolicy: Always\n" + cmd("sc2", slowOnTerm+idle)},
			}, [][2]string{{"app", cmd("app", slowOnTerm+idle)}}),
			deleteAfter: 8,
			checks: []check{
				{quantity: "app SIGTERM after the delete", field: "containers.app.termination.sigterm",
					observe: func(p *pod) (float64, error) { return since(obs(p, "app", "sigterm", 0), deleted(p)) }},
				{quantity: "sc2 SIGTERM after the delete (app gone, its stop call returned)", field: "containers.sc2.termination.sigterm",
					observe: func(p *pod) (float64, error) { return since(obs(p, "sc2", "sigterm", 0), deleted(p)) }},
				{quantity: "sc1 SIGTERM after the delete (sc2 gone, its stop call returned)", field: "containers.sc1.termination.sigterm",
					observe: func(p *pod) (float64, error) { return since(obs(p, "sc1", "sigterm", 0), deleted(p)) }},
				{quantity: "Pod gone after the delete", field: "pod.terminated",
					observe: func(p *pod) (float64, error) { return since(lastExit(p), deleted(p)) }},
			},
		},
		{
			name: "sidecar-grace-used",
			manifest: podYAML("", []string{hostNet, "terminationGracePeriodSeconds: 5"}, [][2]string{
				{"sc1", "restartPolicy: Always\n" + cmd("sc1", exitOnTerm+idle)},
			}, [][2]string{{"app", cmd("app", ignoreTerm+idle)}}),
			deleteAfter: 8,
			checks: []check{
				{quantity: "app SIGKILL after the delete (it ignores SIGTERM)", field: "containers.app.termination.sigkill",
					observe: func(p *pod) (float64, error) { return since(sigkilled(p, "app", 0), deleted(p)) }},
				{quantity: "sidecar SIGTERM after the delete (its wait times out at the grace)", field: "containers.sc1.termination.sigterm",
					observe: func(p *pod) (float64, error) { return since(obs(p, "sc1", "sigterm", 0), deleted(p)) }},
				{quantity: "Pod gone after the delete", field: "pod.terminated",
					observe: func(p *pod) (float64, error) { return since(lastExit(p), deleted(p)) }},
			},
		},
		{
			name: "init-fail-never",
			manifest: podYAML("", []string{hostNet, "terminationGracePeriodSeconds: 2", "restartPolicy: Never"}, [][2]string{
				{"init", cmd("init", "exit 1")},
			}, [][2]string{{"app", cmd("app", exitOnTerm+idle)}}),
			deleteAfter: 8,
			checks: []check{
				{quantity: "Pod Failed after the init container exits 1", field: "containers.init.initFailure.podFailed",
					observe: func(p *pod) (float64, error) {
						return since(changedAfter(p, "phase", "Failed", exited(p, "init", 0)), exited(p, "init", 0))
					}},
			},
		},
		{
			name: "init-fail-onfailure",
			manifest: podYAML("", []string{hostNet, "terminationGracePeriodSeconds: 2", "restartPolicy: OnFailure"}, [][2]string{
				{"init", cmd("init", countedFail+"[ $n -ge 2 ] || exit 1")},
			}, [][2]string{{"app", cmd("app", exitOnTerm+idle)}}),
			deleteAfter: 30,
			checks:      restartChecks("init", "containers.init.initFailure.restarts", 2, true, ""),
		},
		{
			name: "init-fail-always",
			manifest: podYAML("", []string{hostNet, "terminationGracePeriodSeconds: 2", "restartPolicy: Always"}, [][2]string{
				{"init", cmd("init", countedFail+"[ $n -ge 2 ] || exit 1")},
			}, [][2]string{{"app", cmd("app", exitOnTerm+idle)}}),
			deleteAfter: 30,
			checks:      restartChecks("init", "containers.init.initFailure.restarts", 2, true, ""),
		},
		{
			name: "crash-loop",
			manifest: podYAML("", []string{hostNet, "terminationGracePeriodSeconds: 2"}, nil, [][2]string{
				{"app", cmd("app", "sleep 1; exit 1")},
			}),
			deleteAfter: 135,
			checks:      restartChecks("app", "controller.restartSchedule", 4, true, ""),
		},
		{
			name: "liveness-restarts",
			manifest: podYAML("", []string{hostNet, "terminationGracePeriodSeconds: 1"}, nil, [][2]string{{"app", cmd("app", exitOnTerm+idle) + `
				livenessProbe: {` + probeCmd("app", "lprobe", "exit 1") + `, periodSeconds: 1, failureThreshold: 1}`}}),
			deleteAfter: 135,
			checks:      restartChecks("app", "containers.app.livenessProbe.restarts", 5, false, ""),
		},
		// Issue 38, items 1 and 2: every way a container dies, with the run
		// length as a term, and readiness right after start-up.
		{
			// Killed by its startup probe at every start (3 failures, P = 1):
			// runs of about 3 s, so each restart waits its back-off from the
			// previous exit (doBackOff after a probe kill).
			name: "startup-kill-restarts",
			manifest: podYAML("", []string{hostNet, "terminationGracePeriodSeconds: 1"}, nil, [][2]string{{"app", cmd("app", exitOnTerm+idle) + `
				startupProbe: {` + probeCmd("app", "sprobe", "exit 1") + `, periodSeconds: 1, failureThreshold: 3}`}}),
			deleteAfter: 135,
			checks: append([]check{
				{quantity: "startup kill decision (3rd failure) after start", field: "containers.app.startupProbe.killDecision",
					observe: func(p *pod) (float64, error) {
						return since(probe(p, "app", "Startup", "failed", 2), startOf(p, "app", 0))
					}},
			}, restartChecks("app", "containers.app.startupProbe.restarts", 5, false, "")...),
		},
		{
			// Healthy for 8 s of every run, then its liveness probe fails
			// (FT = 2, P = 1): runs of about 10 s.
			name: "liveness-healthy-then-fail",
			manifest: podYAML("", []string{hostNet, "terminationGracePeriodSeconds: 1"}, nil, [][2]string{{"app",
				cmd("app", exitOnTerm+"touch /tmp/ok; sleep 8; rm /tmp/ok; log unhealthy; "+idle) + `
				livenessProbe: {` + probeCmd("app", "lprobe", "test -e /tmp/ok") + `, periodSeconds: 1, failureThreshold: 2}`}}),
			deleteAfter: 135,
			checks:      restartChecks("app", "containers.app.livenessProbe.restarts", 4, false, ""),
		},
		{
			// A stated run of 25 s, then exit 1: a container that exits by
			// itself waits its full back-off from the exit, so the starts
			// (from the first) hold the runs. The 600 s expiry of the
			// back-off entry (HasExpiredFunc) needs runs over 10 minutes,
			// two of them to show a restart that it makes immediate: too
			// long for a run of this harness.
			name: "long-run-crash",
			manifest: podYAML("", []string{hostNet, "terminationGracePeriodSeconds: 2"}, nil, [][2]string{
				{"app", cmd("app", "sleep 25; exit 1")},
			}),
			deleteAfter: 140,
			checks: append(restartChecks("app", "controller.restartSchedule", 3, true, ""),
				startChecks("app", "controller.restartSchedule", 3)...),
		},
		{
			// The startup probe passes at its first run (D = 7); the
			// readiness probe (P = 10) runs right after it, not a period
			// later: the startup result pokes the readiness worker
			// (UpdatePodStatus, manualTriggerCh).
			name: "readiness-after-startup",
			manifest: podYAML("", []string{hostNet, "terminationGracePeriodSeconds: 2"}, nil, [][2]string{{"app", cmd("app", exitOnTerm+idle) + `
				startupProbe: {` + probeCmd("app", "sprobe", "exit 0") + `, initialDelaySeconds: 7, periodSeconds: 2, failureThreshold: 1}
				readinessProbe: {` + probeCmd("app", "rprobe", "exit 0") + `, periodSeconds: 10}`}}),
			deleteAfter: 20,
			checks: []check{
				{quantity: "first readiness probe after start (startup passes at D = 7)", field: "containers.app.readinessProbe.firstProbe",
					observe: func(p *pod) (float64, error) { return since(probeRun(p, "app", "rprobe", 0), startOf(p, "app", 0)) }},
				{quantity: "container Ready after start", field: "containers.app.ready",
					observe: func(p *pod) (float64, error) {
						return since(changedAfter(p, "ready/app", "true", startOf(p, "app", 0)), startOf(p, "app", 0))
					}},
			},
		},
		{
			name: "restart-rules",
			manifest: podYAML("", []string{hostNet, "terminationGracePeriodSeconds: 2", "restartPolicy: Never"}, nil, [][2]string{
				{"app", cmd("app", countedFail+"[ $n -ge 2 ] || exit 3; "+exitOnTerm+idle) + `
				restartPolicy: Never
				restartPolicyRules: [{action: Restart, exitCodes: {operator: NotIn, values: [0]}}]`},
			}),
			deleteAfter: 30,
			checks:      restartChecks("app", "controller.restartSchedule", 2, true, ""),
		},
	}
}
