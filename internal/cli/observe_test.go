package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podlint/podlint/internal/settings"
	"github.com/podlint/podlint/timeline"
)

// fakeObserver stands in for internal/observe (which cmd/podlint's tests
// run for real): it records the profile it is given and answers with an
// observation of the Pod "live" in namespace "" (any).
type fakeObserver struct {
	read   []string
	source string
}

func (f *fakeObserver) Observe(context.Context, ObserveRequest) ([]byte, string, error) {
	return nil, "", nil
}

func (f *fakeObserver) Expectations(data []byte, name string, now time.Time) (*timeline.Observed, error) {
	f.read = append(f.read, string(data))
	return &timeline.Observed{Source: f.source, Workloads: map[string]map[string]timeline.ObservedContainer{
		"default/Pod/live": {"app": {Starts: 3, StartupMax: 95, StartupP95: 90}},
	}}, nil
}

func withObserver(t *testing.T, f *fakeObserver) {
	old := observer
	observer = f
	t.Cleanup(func() { observer = old })
}

// A profile named by the repository's configuration is read inside the
// repository only, and at most 1 MiB of it; one named outside is refused
// with the key that named it.
func TestObservedFromConfigIsConfined(t *testing.T) {
	f := &fakeObserver{source: "snapshot of 2026-12-01"}
	withObserver(t, f)
	parent := t.TempDir()
	repo := filepath.Join(parent, "repo")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.WriteFile(filepath.Join(repo, "pod.yaml"), []byte(livePod), 0o644)
	os.WriteFile(filepath.Join(repo, "observed.yaml"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(parent, "outside.yaml"), []byte("outside"), 0o644)
	os.WriteFile(filepath.Join(repo, "big.yaml"), make([]byte, 1<<20+1), 0o644)

	os.WriteFile(filepath.Join(repo, settings.ConfigFileName), []byte("observed: observed.yaml\n"), 0o644)
	code, out, stderr := run(t, repo, nil, "check", "pod.yaml")
	if code != ExitFindings || len(f.read) != 1 || f.read[0] != "inside" || !strings.Contains(out, "observed start-up up to 95s") {
		t.Fatalf("exit %d, read %q, stderr %s\n%s", code, f.read, stderr, out)
	}
	for cfg, want := range map[string]string{
		"observed: ../outside.yaml\n": `observed: "../outside.yaml": `,
		"observed: big.yaml\n":        `observed: "big.yaml": `,
	} {
		os.WriteFile(filepath.Join(repo, settings.ConfigFileName), []byte(cfg), 0o644)
		code, _, stderr := run(t, repo, nil, "check", "pod.yaml")
		if code != ExitError || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 naming the key", cfg, code, stderr)
		}
	}
	if len(f.read) != 1 {
		t.Errorf("a refused profile was read: %q", f.read[1:])
	}
	// The command line names any file.
	code, _, stderr = run(t, repo, nil, "check", "--observed", "../outside.yaml", "pod.yaml")
	if code != ExitFindings || f.read[len(f.read)-1] != "outside" {
		t.Errorf("--observed ../outside.yaml: exit %d, %s", code, stderr)
	}
}

func TestObservedStaleSaysSo(t *testing.T) {
	withObserver(t, &fakeObserver{source: "snapshot of 2026-10-01, stale: 67 days old"})
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "pod.yaml"), []byte(livePod), 0o644)
	os.WriteFile(filepath.Join(dir, "p.yaml"), []byte("x"), 0o644)
	code, out, stderr := run(t, dir, nil, "check", "--no-config", "--observed", "p.yaml", "pod.yaml")
	if code != ExitFindings || !strings.Contains(stderr, `--observed "p.yaml": the profile is a snapshot of 2026-10-01, stale: 67 days old; start-ups may have changed`) ||
		!strings.Contains(out, "stale: 67 days old") {
		t.Errorf("exit %d, stderr %q\n%s", code, stderr, out)
	}
}

func TestObserveWithoutObserver(t *testing.T) {
	withObserver(t, nil)
	observer = nil
	code, _, stderr := run(t, "", nil, "observe", "--from", "x.json")
	if code != ExitError || !strings.Contains(stderr, "not built into this executable") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}
