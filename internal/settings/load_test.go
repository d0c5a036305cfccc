package settings

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/render"
)

// repo makes a repository holding files (name → text) for Load to find
// its configuration in.
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// load runs Load for check in dir with flags f and returns the settings,
// the warnings and the error.
func load(t *testing.T, dir string, f Flags) (*Settings, string, error) {
	t.Helper()
	var warnings strings.Builder
	f.Command, f.Paths = "check", []string{dir}
	if f.Limits == (manifest.Limits{}) {
		f.Limits = manifest.DefaultLimits
	}
	s, err := Load(&f, Env{WorkDir: dir, Warnf: func(format string, args ...any) { fmt.Fprintf(&warnings, format+"\n", args...) }})
	return s, warnings.String(), err
}

// TestLoadTrustSplit: the one place of the trust split. A configuration
// (found, or named with --config) may lower the render limits and the
// budget, silently; above a default it keeps the default and warns with
// the key's file and line, its value and the ceiling; a flag raises past
// the default, and the configuration's value of that key is not read.
func TestLoadTrustSplit(t *testing.T) {
	hostile, err := os.ReadFile(filepath.Join("..", "..", "testdata", "hostile", "config", "raise-limits.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := repo(t, map[string]string{ConfigFileName: string(hostile) + "render-budget: 100h\n", "named.yaml": string(hostile)})
	for _, f := range []Flags{{}, {Config: filepath.Join(dir, "named.yaml")}} {
		s, warnings, err := load(t, dir, f)
		if err != nil {
			t.Fatal(err)
		}
		if s.Renderer.Limits != render.DefaultLimits {
			t.Errorf("--config %q: limits %+v, want the defaults %+v", f.Config, s.Renderer.Limits, render.DefaultLimits)
		}
		name := cmpOr(f.Config, filepath.Join(dir, ConfigFileName))
		for _, want := range []string{
			`render-cpu in ` + name + `:4: "1000h" is above the default 30s, and a configuration file may only lower a limit`,
			`render-memory in ` + name + `:5: "64GiB" is above the default 1GiB`,
			`render-timeout in ` + name + `:6: "1000h" is above the default 30s`,
			`render-max-output in ` + name + `:7: "1GiB" is above the default 64MiB`,
			"; using 64MiB. Raise it on the command line, with --render-max-output 1GiB (in the GitHub Action, the args input)",
		} {
			if !strings.Contains(warnings, want) {
				t.Errorf("--config %q: no warning %q in\n%s", f.Config, want, warnings)
			}
		}
		if f.Config == "" && (s.Budget != render.DefaultBudget || !strings.Contains(warnings, `render-budget in `+name+`:8: "100h" is above the default `+render.DefaultBudget.String())) {
			t.Errorf("render-budget 100h: budget %v, warnings\n%s", s.Budget, warnings)
		}
	}
	s, warnings, _ := load(t, dir, Flags{RenderCPU: "40s", RenderBudget: "2h"})
	if s.Renderer.Limits.CPU != 40*time.Second || s.Budget != 2*time.Hour || strings.Contains(warnings, "render-cpu in") || strings.Contains(warnings, "render-budget in") {
		t.Errorf("--render-cpu 40s --render-budget 2h: cpu %v, budget %v, warnings\n%s", s.Renderer.Limits.CPU, s.Budget, warnings)
	}
	low := repo(t, map[string]string{ConfigFileName: "render-cpu: 2s\nrender-memory: 100MiB\nrender-budget: 10s\n"})
	s, warnings, _ = load(t, low, Flags{})
	if s.Renderer.Limits.CPU != 2*time.Second || s.Renderer.Limits.Memory != 100<<20 || s.Budget != 10*time.Second || warnings != "" {
		t.Errorf("a configuration that lowers: limits %+v, budget %v, warnings %q", s.Renderer.Limits, s.Budget, warnings)
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestLoad: one value holds what the linter runs, how the scheduler runs
// it and how the report looks; an error of a render setting is a
// RenderError, read after every other setting, and no other is one.
func TestLoad(t *testing.T) {
	dir := repo(t, map[string]string{ConfigFileName: "fail-on: warning\nexclude: [gen/**]\nnodes: 3\n"})
	var trace bytes.Buffer
	f := Flags{Command: "check", Paths: []string{dir}, Limits: manifest.DefaultLimits, Debug: true, Color: "always", Render: "never"}
	s, err := Load(&f, Env{WorkDir: dir, Stderr: &trace, Getenv: func(k string) string { return map[string]string{"COLUMNS": "88"}[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if s.FailOn != finding.Warning || s.Show != finding.Info || s.Linter.Params.Nodes != 3 || len(s.Excludes) != 1 || s.Excludes[0] != "gen/**" {
		t.Errorf("configuration: fail-on %v, show %v, nodes %d, excludes %q", s.FailOn, s.Show, s.Linter.Params.Nodes, s.Excludes)
	}
	if !s.Color || s.Width != 88 || s.Run.Workers != 1 || s.Trace == nil || s.Render || s.Linter.Open != nil || s.ConfigName() != ConfigFileName {
		t.Errorf("color %v, width %d, workers %d, trace %v, render %v, config %q", s.Color, s.Width, s.Run.Workers, s.Trace != nil, s.Render, s.ConfigName())
	}
	s.Trace("a %s", "step\x1b[2J")
	if got := trace.String(); got != "podlint debug: a step\\x1b[2J\n" {
		t.Errorf("trace %q", got)
	}
	for _, tc := range []struct {
		flags  Flags
		want   string
		render bool
	}{
		{Flags{Render: "sometimes"}, `--render "sometimes": want auto or never`, true},
		{Flags{RenderMemory: "lots"}, `--render-memory "lots": want a positive size`, true},
		{Flags{Set: []string{"a[=1"}}, `--set "a[=1"`, true},
		{Flags{Color: "sometimes"}, `--color "sometimes"`, false},
		{Flags{FailOn: "loud", FailOnSet: true}, `--fail-on "loud"`, false},
		{Flags{Limits: manifest.Limits{MaxFileSize: -1, MaxDocuments: 1, MaxDepth: 1, MaxNodes: 1}}, "must be positive", false},
	} {
		_, _, err := load(t, dir, tc.flags)
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.As(err, new(*RenderError)) != tc.render {
			t.Errorf("%+v: error %v; want %q, a render setting's: %v", tc.flags, err, tc.want, tc.render)
		}
	}
}
