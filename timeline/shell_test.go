package timeline

import (
	"math"
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
