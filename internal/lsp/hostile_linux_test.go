package lsp

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/testgit"
	"github.com/podlint/podlint/render"
)

// savedEngine reports, on every save, one finding at line 1 column 1 of
// each of its files, as a chart's render refusing a link reports one at
// the link; the first also has a related location in each of the others.
type savedEngine struct {
	Engine
	files []string
}

func (e savedEngine) Saved(string) map[string][]finding.Finding {
	out := map[string][]finding.Finding{}
	for i, f := range e.files {
		fd := finding.Finding{RuleID: "chart-render-error", Severity: finding.Error,
			Location: finding.Location{File: f, Line: 1, Column: 1}, Message: "refused"}
		if i == 0 {
			for _, o := range e.files[1:] {
				fd.Related = append(fd.Related, finding.Location{File: o, Line: 1, Column: 1, Message: "here"})
			}
		}
		out[f] = []finding.Finding{fd}
	}
	return out
}

// TestRenderedFindingsReadNoDevice: the files named by the findings of a
// render are read for their positions only as check reads a derived file.
// A FIFO in the chart is never opened (inotify sees every open), and a link
// to /dev/zero, /proc/self/environ or a file outside the repository gives
// no text: the diagnostic sits at the start of the file, where reading the
// target would have stretched its range over the target's first token.
// Before, the FIFO's open never returned and /dev/zero was read until
// memory ran out.
func TestRenderedFindingsReadNoDevice(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	tpl := filepath.Join(repo, "chart", "templates")
	writeFile(t, filepath.Join(base, "secret.yaml"), "hunter2hunter2hunter2\n")
	ok := filepath.Join(tpl, "ok.yaml")
	writeFile(t, ok, "kind: Pod\n")
	fifo := filepath.Join(tpl, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{"zero.yaml": "/dev/zero", "environ.yaml": "/proc/self/environ", "outside.yaml": "../../../secret.yaml"}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(tpl, name)); err != nil {
			t.Fatal(err)
		}
	}
	// A checkout whose index tracks them all, so that the read set (which
	// reads only what git tracks) is not what keeps them out.
	if err := testgit.InitAll(repo); err != nil {
		t.Fatal(err)
	}
	in, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Skip("no inotify:", err)
	}
	defer syscall.Close(in)
	if _, err := syscall.InotifyAddWatch(in, fifo, syscall.IN_OPEN); err != nil {
		t.Fatal(err)
	}

	files := []string{ok, fifo}
	for name := range links {
		files = append(files, filepath.Join(tpl, name))
	}
	e, _ := newEngine(t)
	c := startServer(t, savedEngine{e, files}, -1, nil)
	c.initializeIn(repo)
	c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": pathURI(ok)}})
	got := map[string]publishDiagnosticsParams{}
	// The guard only turns a hang (the FIFO's open) into a failure.
	guard := time.After(2 * time.Minute)
	for len(got) < len(files) {
		select {
		case p := <-c.diags:
			got[p.URI] = p
		case <-guard:
			t.Fatalf("diagnostics of %d of %d files published: reading one blocked", len(got), len(files))
		}
	}

	// The regular file of the chart is still read: its range covers "kind".
	if p := got[pathURI(ok)]; len(p.Diagnostics) != 1 || p.Diagnostics[0].Range.End.Character != 4 {
		t.Fatalf("ok.yaml: %+v; want one diagnostic over \"kind\"", p.Diagnostics)
	}
	related := got[pathURI(ok)].Diagnostics[0].RelatedInformation
	if len(related) != len(files)-1 {
		t.Fatalf("related locations %+v, want %d", related, len(files)-1)
	}
	empty := Range{}
	for _, r := range related {
		if r.Location.Range != empty {
			t.Errorf("related location %s at %+v: its target was read", r.Location.URI, r.Location.Range)
		}
	}
	for _, f := range files[1:] {
		p := got[pathURI(f)]
		if len(p.Diagnostics) != 1 || p.Diagnostics[0].Range != empty {
			t.Errorf("%s: %+v; want one diagnostic at 0:0-0:0 (nothing read)", filepath.Base(f), p.Diagnostics)
		}
	}
	buf := make([]byte, 4096)
	if n, err := syscall.Read(in, buf); n > 0 || !errors.Is(err, syscall.EAGAIN) {
		t.Errorf("the FIFO was opened (inotify read %d bytes, %v)", n, err)
	}
}

// TestSaveOfAChartWithDeviceLinks: the same through the real engine: a
// chart holding a link to a FIFO, to /dev/zero or to /proc/self/environ is
// refused by the render (PL012, at that file), and publishing the finding
// reads none of them: the diagnostic sits at 0:0 and the FIFO is never
// opened. Before, the environ's first "line" set the range, the FIFO's
// open hung the save and /dev/zero was read until memory ran out.
func TestSaveOfAChartWithDeviceLinks(t *testing.T) {
	for _, name := range []string{"environ.yaml", "fifo.yaml", "zero.yaml"} {
		repo := t.TempDir()
		tpl := filepath.Join(repo, "chart", "templates")
		writeFile(t, filepath.Join(repo, "chart", "Chart.yaml"), "apiVersion: v2\nname: c\nversion: 0.1.0\n")
		pod := filepath.Join(tpl, "pod.yaml")
		writeFile(t, pod, pl113YAML)
		bad := filepath.Join(tpl, name)
		var err error
		switch name {
		case "fifo.yaml": // a link to a FIFO of the repository
			if err = syscall.Mkfifo(filepath.Join(repo, "pipe"), 0o644); err == nil {
				err = os.Symlink("../../pipe", bad)
			}
		case "zero.yaml":
			err = os.Symlink("/dev/zero", bad)
		default:
			err = os.Symlink("/proc/self/environ", bad)
		}
		if err != nil {
			t.Fatal(err)
		}
		// Tracked by git, so that the refusal of the device, not the read
		// set's refusal of untracked files, is what is tested.
		if err := testgit.InitAll(repo); err != nil {
			t.Fatal(err)
		}
		in, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
		if err != nil {
			t.Skip("no inotify:", err)
		}
		defer syscall.Close(in)
		if name == "fifo.yaml" {
			if _, err := syscall.InotifyAddWatch(in, filepath.Join(repo, "pipe"), syscall.IN_OPEN); err != nil {
				t.Fatal(err)
			}
		}
		e := &Podlint{Configure: func(path string) (*Config, error) {
			c, err := defaultConfig(path)
			c.Analyzer.Open = (&render.Options{}).Open
			return c, err
		}}
		c := startServer(t, e, -1, nil)
		c.initializeIn(repo)
		c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": pathURI(pod)}})
		guard := time.After(2 * time.Minute) // only turns a hang into a failure
		var got *Diagnostic
		for got == nil {
			select {
			case p := <-c.diags:
				if p.URI == pathURI(bad) {
					got = findDiag(p.Diagnostics, "PL012")
				}
			case <-guard:
				t.Fatalf("%s: no PL012 (chart-render-error) published at it: the save hangs", name)
			}
		}
		if got.Range != (Range{}) {
			t.Errorf("%s: diagnostic at %+v: the target was read", name, got.Range)
		}
		buf := make([]byte, 4096)
		if n, err := syscall.Read(in, buf); n > 0 || !errors.Is(err, syscall.EAGAIN) {
			t.Errorf("%s: the FIFO was opened (inotify read %d bytes, %v)", name, n, err)
		}
	}
}
