//go:build linux

package render

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"

	"golang.org/x/sys/unix"
)

// confineProbeEnv makes the test binary a probe of confine (TestMain): it
// confines itself to one folder, then tries what a renderer must not do.
const confineProbeEnv = "PODLINT_TEST_CONFINE_PROBE"

type probeRequest struct {
	Readable, Inside, Outside, Dial string
}

type probeResult struct {
	ReadInside, ReadOutside, Dialed, Executed string // "" when it worked, else the error
}

// runProbe runs the probe when this process is one (from TestMain).
func runProbe() (code int, ok bool) {
	if os.Getenv(confineProbeEnv) == "" {
		return 0, false
	}
	return confineProbe(), true
}

func confineProbe() int {
	var req probeRequest
	if json.Unmarshal([]byte(os.Getenv(confineProbeEnv)), &req) != nil {
		return 2
	}
	confine([]string{req.Readable})
	errText := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	var r probeResult
	_, err := os.ReadFile(req.Inside)
	r.ReadInside = errText(err)
	_, err = os.ReadFile(req.Outside)
	r.ReadOutside = errText(err)
	c, err := net.Dial("tcp", req.Dial)
	if err == nil {
		c.Close()
	}
	r.Dialed = errText(err)
	r.Executed = errText(exec.Command("/bin/sh", "-c", "true").Run())
	json.NewEncoder(os.Stdout).Encode(r)
	return 0
}

// TestConfine: after confine, the process can read the render root but
// cannot connect anywhere or run a program (seccomp; independent of
// Landlock), and where Landlock applies it cannot read outside the root.
func TestConfine(t *testing.T) {
	addr, connections := loopbackListener(t)
	root, outside := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(root, "Chart.yaml"), "name: x\n")
	writeFile(t, filepath.Join(outside, "secret"), "s3cr3t\n")
	req, _ := json.Marshal(probeRequest{Readable: root, Inside: filepath.Join(root, "Chart.yaml"), Outside: filepath.Join(outside, "secret"), Dial: addr})
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = []string{confineProbeEnv + "=" + string(req)}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("probe: %v", err)
	}
	var r probeResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("probe output %q: %v", out, err)
	}
	if r.ReadInside != "" {
		t.Errorf("cannot read inside the root: %s", r.ReadInside)
	}
	if _, ok := auditArch(); ok {
		if r.Dialed == "" || connections.Load() != 0 {
			t.Errorf("the confined process connected to a loopback listener (%d connections)", connections.Load())
		}
		if r.Executed == "" {
			t.Error("the confined process ran a program")
		}
	}
	// landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)
	abi, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if !landlockBuilt || errno != 0 || abi < 1 {
		t.Logf("Landlock not applied here (built: %v, ABI %d, %v); the read outside the root is not checked", landlockBuilt, abi, errno)
		return
	}
	if r.ReadOutside == "" {
		t.Error("the confined process read a file outside the render root")
	}
}

// TestWallClockLimit: a kustomization whose resource is a FIFO makes the
// renderer wait for a writer forever, using no CPU; the wall-clock limit
// ends it (unless the FIFO is refused before it is opened, which ends it
// sooner).
func TestWallClockLimit(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "kustomization.yaml"), "resources: [pod.yaml]\n")
	if err := unix.Mkfifo(filepath.Join(dir, "pod.yaml"), 0o644); err != nil {
		t.Skip("no FIFO:", err)
	}
	fs := lintRoot(t, dir, manifest.RenderKustomize, &Options{Limits: Limits{CPU: 30 * time.Second, Memory: 256 << 20, Wall: 2 * time.Second, Output: 1 << 20}})
	if len(fs) != 1 || fs[0].RuleID != rules.ChartRenderError.ID {
		t.Fatalf("want one chart-render-error, got:\n%s", dump(fs))
	}
	if limitHit.MatchString(fs[0].Message) && !strings.Contains(fs[0].Message, "waited 2s without running") {
		t.Errorf("want the wall-clock limit, got: %s", fs[0].Message)
	}
}
