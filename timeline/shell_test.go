package timeline

import (
	"math"
	"regexp"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestStatedSleep(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		cmd  []string
		want float64
		ok   bool
	}{
		{[]string{"sleep", "15"}, 15, true},
		{[]string{"/bin/sleep", "1m", "30s"}, 90, true},
		{[]string{"sleep", "infinity"}, inf, true},
		{[]string{"sleep", "$DELAY"}, 0, false},
		{[]string{"/bin/sh", "-c", "sleep 15"}, 15, true},
		{[]string{"sh", "-c", "sleep 5 && nginx -s quit"}, 5, true},
		{[]string{"bash", "-ec", "sleep 10\nsleep 20 # two sleeps add up"}, 30, true},
		{[]string{"sh", "-o", "pipefail", "-c", "sleep 7"}, 7, true},
		{[]string{"busybox", "sh", "-c", "exec sleep 3"}, 3, true},
		{[]string{"sh", "-c", "sleep 5 || true"}, 5, true},
		// not certain to run
		{[]string{"sh", "-c", "true || sleep 5"}, 0, false},
		{[]string{"sh", "-c", "sleep 5 &"}, 0, false},
		{[]string{"sh", "-c", "sleep 5 | cat"}, 0, false},
		{[]string{"sh", "-c", "if [ -f /x ]; then sleep 60; fi"}, 0, false},
		{[]string{"sh", "-c", "while killall -0 nginx; do sleep 1; done"}, 0, false},
		{[]string{"sh", "-c", "for i in 1 2; do\n  sleep 5\ndone"}, 0, false},
		{[]string{"sh", "-c", "(sleep 5)"}, 0, false},
		// A command substitution in an earlier command does not stop the
		// script (the hand splitter took all after "(" as opaque).
		{[]string{"sh", "-c", "echo $(date); sleep 5"}, 5, true},
		{[]string{"sh", "-c", "f() { sleep 5; }; f"}, 0, false},
		{[]string{"sh", "-c", "echo 'sleep 5'"}, 0, false},
		{[]string{"sh", "-c", "echo \"a; sleep 5\""}, 0, false},
		{[]string{"sh", "/scripts/stop.sh"}, 0, false},
		{[]string{"nginx", "-s", "quit"}, 0, false},
		{nil, 0, false},
	} {
		got, _, ok := StatedSleep(tc.cmd)
		if ok != tc.ok || got != tc.want {
			t.Errorf("StatedSleep(%q) = %v, %v; want %v, %v", tc.cmd, got, ok, tc.want, tc.ok)
		}
	}
}

// TestStatedExit: only a command that certainly ends with a literal code
// states it; anything that may leave earlier or elsewhere does not.
func TestStatedExit(t *testing.T) {
	tests := []struct {
		cmd, args []string
		code      int32
		ok        bool
	}{
		{cmd: []string{"sh", "-c", "exit 42"}, code: 42, ok: true},
		{cmd: []string{"/bin/bash", "-c"}, args: []string{"echo start; sleep 5\nexit 3"}, code: 3, ok: true},
		{cmd: []string{"sh", "-c", "exit 300"}, code: 44, ok: true},
		{cmd: []string{"false"}, code: 1, ok: true},
		{cmd: []string{"sh", "-c", "exit 0"}, code: 0, ok: true},
		{cmd: []string{"sh", "-c", "run || exit 2"}},
		{cmd: []string{"sh", "-c", "exit 2; exit 3"}},
		{cmd: []string{"sh", "-c", "if x; then exit 1; fi; exit 2"}},
		{cmd: []string{"sh", "-ec", "migrate; exit 4"}},
		{cmd: []string{"sh", "-c", "set -e; migrate; exit 4"}},
		{cmd: []string{"sh", "-c", "exec app; exit 4"}},
		{cmd: []string{"sh", "-c", "exit $CODE"}},
		{cmd: []string{"sh", "-c", "exit"}},
		{cmd: []string{"app", "--exit", "3"}},
		{args: []string{"sh", "-c", "exit 1"}}, // args alone run the image's entrypoint
	}
	for _, tc := range tests {
		code, ok := StatedExit(&corev1.Container{Command: tc.cmd, Args: tc.args})
		if ok != tc.ok || code != tc.code {
			t.Errorf("%q %q: (%d, %v), want (%d, %v)", tc.cmd, tc.args, code, ok, tc.code, tc.ok)
		}
	}
}

// TestStatedHealth: a command that creates the file its exec liveness
// probe checks, sleeps and removes it states how long each run stays
// healthy (the documentation's exec-liveness example: 30 s); a probe that
// states its failure is unhealthy from the start; anything the reader
// cannot follow states nothing.
func TestStatedHealth(t *testing.T) {
	inf := math.Inf(1)
	shell := func(script string) []string { return []string{"/bin/sh", "-c", script} }
	exec := func(cmd ...string) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: cmd}}}
	}
	docs := "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"
	for _, tc := range []struct {
		name           string
		c              corev1.Container
		probe          *corev1.Probe
		healthy, alive float64
		ok             bool
	}{
		{"documentation example, args only", corev1.Container{Args: shell(docs)}, exec("cat", "/tmp/healthy"), 30, 600, true},
		{"command", corev1.Container{Command: shell(docs)}, exec("test", "-e", "/tmp/healthy"), 30, 600, true},
		{"bracket test in a probe script, endless loop after", corev1.Container{Command: shell(
			`C=app; . /obs/lib.sh; trap "exit 0" TERM; touch /tmp/ok; sleep 8; rm /tmp/ok; while :; do sleep 1 & wait $!; done`)},
			exec("sh", "-c", "log probe; [ -f /tmp/ok ]"), 8, inf, true},
		{"sleep from the env", corev1.Container{Command: shell("touch /tmp/ok; sleep $UP; rm /tmp/ok; sleep infinity"),
			Env: []corev1.EnvVar{{Name: "UP", Value: "20"}}}, exec("cat", "/tmp/ok"), 20, inf, true},
		{"probe states exit 1", corev1.Container{Command: shell("sleep infinity")}, exec("sh", "-c", "exit 1"), 0, inf, true},
		{"probe false", corev1.Container{}, exec("/bin/false"), 0, inf, true},
		{"command ends after the rm", corev1.Container{Command: shell("touch /tmp/ok; sleep 5; rm /tmp/ok")}, exec("cat", "/tmp/ok"), 5, 0, true},
		// Nothing stated.
		{"probe checks another file", corev1.Container{Args: shell(docs)}, exec("cat", "/tmp/other"), 0, 0, false},
		{"probe exits 0", corev1.Container{Args: shell(docs)}, exec("sh", "-c", "exit 0"), 0, 0, false},
		{"probe does more after the check", corev1.Container{Args: shell(docs)}, exec("sh", "-c", "cat /tmp/healthy; echo ok"), 0, 0, false},
		{"http probe", corev1.Container{Args: shell(docs)}, &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/"}}}, 0, 0, false},
		{"sleep before the file exists", corev1.Container{Command: shell("sleep 3; touch /tmp/ok; sleep 5; rm /tmp/ok; sleep 60")}, exec("cat", "/tmp/ok"), 0, 0, false},
		{"rm only in a branch", corev1.Container{Command: shell("touch /tmp/ok; sleep 5; if [ -x /x ]; then rm /tmp/ok; fi; sleep 60")}, exec("cat", "/tmp/ok"), 0, 0, false},
		{"never removed", corev1.Container{Command: shell("touch /tmp/ok; sleep infinity")}, exec("cat", "/tmp/ok"), 0, 0, false},
		{"exit before the rm", corev1.Container{Command: shell("touch /tmp/ok; sleep 5; exit 1; rm /tmp/ok")}, exec("cat", "/tmp/ok"), 0, 0, false},
		{"arguments to an image's entrypoint", corev1.Container{Args: []string{"touch", "/tmp/ok"}}, exec("cat", "/tmp/ok"), 0, 0, false},
		{"a pattern", corev1.Container{Command: shell("touch /tmp/ok; sleep 5; rm /tmp/ok; sleep 60")}, exec("ls", "/tmp/o*"), 0, 0, false},
	} {
		h, alive, ok := StatedHealth(&tc.c, tc.probe)
		if ok != tc.ok || ok && (h != tc.healthy || alive != tc.alive) {
			t.Errorf("%s: StatedHealth = %v, %v, %v; want %v, %v, %v", tc.name, h, alive, ok, tc.healthy, tc.alive, tc.ok)
		}
	}
}

// hasExecWord is the regular expression it replaced, on the cases that
// tell a word from part of one.
func TestHasExecWordIsTheRegexp(t *testing.T) {
	re := regexp.MustCompile(`(^|[^A-Za-z0-9_-])exec($|[^A-Za-z0-9_-])`)
	for _, s := range []string{
		"", "exec", "exec nginx", "sleep 1; exec app", "execute", "my-exec", "exec_1", "x exec", "(exec)",
		"executable; exec", "exexec", "exec\texec", "é exec", "execexec exec", "_exec", "exec-", "EXEC", "a&&exec b",
	} {
		if got, want := hasExecWord(s), re.MatchString(s); got != want {
			t.Errorf("hasExecWord(%q) = %v, the regexp says %v", s, got, want)
		}
	}
}
