package integration

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestActionPolicy: the action's policy input reaches every run of podlint
// as --policy (the log, SARIF, annotations and the fix gate), and a
// .podlint.yaml of the checkout cannot redefine the workflow's policy.
func TestActionPolicy(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the action's steps are run here on Linux and macOS")
	}
	root := repoRoot(t)
	a, _ := loadAction(t, filepath.Join(root, "action.yml"))
	const policy = "policies:\n  - name: lb\n    require: {min-grace-after-prestop: 60s}\n"

	t.Run("policy input", func(t *testing.T) {
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{"k8s/web.yaml": goodPod, "org/policies.yaml": policy})
		r := releasedRunner(t, a, root, ws, map[string]string{"paths": "k8s", "policy": "org/policies.yaml", "fix-check": "true"})
		r.run()
		if r.failedStep != "Fail on findings" || r.exitCode != 1 || r.output("errors") != "1" {
			t.Fatalf("want the policy's error and the last step failing with 1; step %q exited %d, errors %q:\n%s", r.failedStep, r.exitCode, r.output("errors"), &r.log)
		}
		if ids := sarifResults(t, r.output("sarif-file")); !slices.Equal(ids, []string{"PL801"}) {
			t.Errorf("SARIF results %v, want [PL801]", ids)
		}
		if log := r.log.String(); !strings.Contains(log, "::error file=k8s/web.yaml,line=5,") || !strings.Contains(log, `policy "lb"`) {
			t.Errorf("log lacks the policy's annotation:\n%s", log)
		}
		if r.output("fix-exit-code") != "1" {
			t.Errorf("fix-exit-code %q, want 1: the fix gate runs with the policy too", r.output("fix-exit-code"))
		}
	})

	t.Run("the checkout cannot redefine it", func(t *testing.T) {
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{"k8s/web.yaml": goodPod, "org/policies.yaml": policy,
			".podlint.yaml": "policies:\n  - name: lb\n    require: {min-grace-after-prestop: 1s}\n"})
		r := releasedRunner(t, a, root, ws, map[string]string{"paths": "k8s", "policy": "org/policies.yaml"})
		r.run()
		if r.output("exit-code") != "2" || !strings.Contains(r.log.String(), `policy "lb" is the workflow's`) {
			t.Errorf("exit-code %q, want 2 with the error naming the policy:\n%s", r.output("exit-code"), &r.log)
		}
	})
}
