package rules

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestScriptOfAndSleep(t *testing.T) {
	ref := func(cmd, args []string) ContainerRef {
		return ContainerRef{C: &corev1.Container{Command: cmd, Args: args}, Path: "spec.initContainers[0]"}
	}
	cs := scriptOf(containerCommand(ref([]string{"/bin/bash", "-ec"}, []string{"until x; do sleep 1; done"})))
	if cs.Script.Text != "until x; do sleep 1; done" || cs.Script.Path != "spec.initContainers[0].args[0]" || !cs.Errexit {
		t.Errorf("bash -ec with args: got %+v", cs)
	}
	cs = scriptOf(containerCommand(ref([]string{"timeout", "300", "sh", "-c", "until x; do sleep 1; done"}, nil)))
	if !cs.TimeBounded() || cs.Script.Path != "spec.initContainers[0].command[4]" {
		t.Errorf("timeout sh -c: got %+v", cs)
	}
	if cs := scriptOf(containerCommand(ref([]string{"python", "-c", "print(1)"}, nil))); cs.Script.Text != "" {
		t.Errorf("python -c is not a shell: got %+v", cs)
	}
	for _, tc := range []struct {
		cmd  []string
		want float64
		ok   bool
	}{
		{[]string{"sleep", "30"}, 30, true},
		{[]string{"sh", "-c", "sleep 2m; echo done"}, 120, true},
		{[]string{"sh", "-c", "echo start; sleep 10 && sleep 5"}, 15, true},
		{[]string{"sh", "-c", "if [ -f x ]; then exit 0; fi; sleep 10"}, 0, false},
		{[]string{"sh", "-c", "sleep $DELAY"}, 0, false},
		{[]string{"sh", "-c", "test -f x || sleep 30"}, 0, false},
		{[]string{"sleep", "1m", "30"}, 90, true},
		{[]string{"sleep", "infinity"}, 0, false},
	} {
		got, ok := forcedSleep(ref(tc.cmd, nil))
		if got != tc.want || ok != tc.ok {
			t.Errorf("forcedSleep(%q) = %v, %v; want %v, %v", tc.cmd, got, ok, tc.want, tc.ok)
		}
	}
}
