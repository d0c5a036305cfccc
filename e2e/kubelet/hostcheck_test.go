package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hostShell runs script after sourcing scripts/e2e-hostcheck.sh with
// HOST_ROOT=root, and returns its output and exit status.
func hostShell(t *testing.T, root, script string) (string, int) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash: scripts/e2e-kubelet.sh needs it too")
	}
	lib, err := filepath.Abs("../../scripts/e2e-hostcheck.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, "-c", `set -u; . "$1"; `+script, "hostcheck", lib)
	cmd.Env = append(os.Environ(), "HOST_ROOT="+root, "LC_ALL=C")
	cmd.Dir = t.TempDir()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), 0
}

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHostCheck runs the tear-down's host check of scripts/e2e-kubelet.sh
// on a folder tree standing in for the host: a run that sets
// net.ipv4.ip_forward (what the CNI bridge's isGateway did before the
// stack had a network namespace of its own) and leaves what issue 38 found
// under /run/containerd/{runc,s}, /var/lib/cni/results,
// /var/lib/kubelet/device-plugins/kubelet.sock and /var/log/containers is
// reported, each difference by name; the tear-down's removal takes exactly
// what the run created (a file that was there before stays); and once the
// sysctl is back the check passes.
func TestHostCheck(t *testing.T) {
	// The records go beside the stand-in, as the script keeps them in
	// its state folder, not on the host.
	root := filepath.Join(t.TempDir(), "host")
	writeTree(t, root, map[string]string{
		"proc/sys/net/ipv4/ip_forward":           "0\n",
		"proc/sys/net/ipv4/conf/all/forwarding":  "0\n",
		"proc/sys/net/bridge/bridge-nf-call-arp": "0\n",
		"proc/sys/vm/overcommit_memory":          "0\n",
		"proc/sys/kernel/panic":                  "0\n",
		"run/":                                   "",
		"etc/":                                   "",
		"opt/":                                   "",
		"var/log/":                               "",
		"var/lib/kubelet/config.yaml":            "kept\n",
	})
	if out, rc := hostShell(t, root, `host_state >"$HOST_ROOT/../before"; host_outside_now >"$HOST_ROOT/../outside-before"`); rc != 0 {
		t.Fatalf("recording the host: %d: %s", rc, out)
	}
	before := filepath.Join(root, "..", "before")
	b, err := os.ReadFile(before)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/proc/sys/net/ipv4/ip_forward:0", "/proc/sys/net/bridge/bridge-nf-call-arp:0", "/proc/sys/vm/overcommit_memory:0", "/var/lib/kubelet/config.yaml"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the record of the host has no %s:\n%s", want, b)
		}
	}
	if out, rc := hostShell(t, root, `host_compare "$HOST_ROOT/../before"`); rc != 0 || out != "" {
		t.Fatalf("an untouched host differs (%d):\n%s", rc, out)
	}

	// What a run can leave.
	leftovers := []string{"run/containerd/runc/k8s.io/c1/state.json", "run/containerd/s/0123abcd", "var/lib/cni/results/podlint-e2e-c1-eth0",
		"var/lib/kubelet/device-plugins/kubelet.sock", "var/log/containers/a_podlint-e2e_app-c1.log", "run/mount/utab"}
	files := map[string]string{"proc/sys/net/ipv4/ip_forward": "1\n"}
	for _, l := range leftovers {
		files[l] = ""
	}
	writeTree(t, root, files)
	out, rc := hostShell(t, root, `host_compare "$HOST_ROOT/../before"`)
	if rc != 1 {
		t.Fatalf("a changed host: exit %d, want 1:\n%s", rc, out)
	}
	for _, want := range append([]string{"< " + root + "/proc/sys/net/ipv4/ip_forward:0", "> " + root + "/proc/sys/net/ipv4/ip_forward:1"}, leftovers...) {
		if !strings.Contains(out, want) {
			t.Errorf("the check does not report %s:\n%s", want, out)
		}
	}

	// Tear-down removes what the run created, and only that.
	if out, rc := hostShell(t, root, `host_remove_created "$HOST_ROOT/../outside-before"`); rc != 0 {
		t.Fatalf("removing: %d: %s", rc, out)
	}
	for _, l := range []string{"run/containerd", "run/mount", "var/lib/cni", "var/lib/kubelet/device-plugins", "var/log/containers"} {
		if _, err := os.Lstat(filepath.Join(root, l)); !os.IsNotExist(err) {
			t.Errorf("%s left after the tear-down (%v)", l, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "var/lib/kubelet/config.yaml")); err != nil {
		t.Errorf("the tear-down removed what was there before: %v", err)
	}
	out, rc = hostShell(t, root, `host_compare "$HOST_ROOT/../before"`)
	if rc != 1 || !strings.Contains(out, "ip_forward:1") || strings.Contains(out, "containerd") {
		t.Errorf("after the removal only the sysctl differs; exit %d:\n%s", rc, out)
	}
	writeTree(t, root, map[string]string{"proc/sys/net/ipv4/ip_forward": "0\n"})
	if out, rc := hostShell(t, root, `host_compare "$HOST_ROOT/../before"`); rc != 0 || out != "" {
		t.Errorf("the restored host differs (%d):\n%s", rc, out)
	}
}
