// Package settings turns the command-line flags of a run and its
// .podlint.yaml into one value: what the linter runs (rules, severities,
// the model's parameters, the input limits, policies, the render stage and
// its limits), how the scheduler spreads it, and how the report looks.
// `podlint check`, `fix` and `timeline` parse their flags into a Flags and
// call Load; the editor server calls Load for each workspace folder with
// the flags it was started with. The trust split between the command line
// and a configuration that can come with the pull request being checked
// (trust.go) lives here, in one place.
//
// Like every package of podlint, it makes no API promise.
package settings

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/textsafe"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/render"
	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/timeline"
)

// Flags are the command line of a run as plain values: a string flag not
// given is "", and the XSet fields say whether a flag was given where its
// default and an explicit value differ in meaning (a configuration's value
// applies, or an error names the flag rather than the file).
type Flags struct {
	// Command is the command whose flags these are: check and fix choose
	// rules (--enable, --disable), the failure level and policies;
	// timeline and lsp run the rules as the configuration sets them.
	Command string
	// Paths are the linted paths, from which the configuration is found.
	Paths []string

	Config   string
	NoConfig bool

	KubeVersion    string
	KubeVersionSet bool
	FailOn         string
	FailOnSet      bool
	Show           string
	Enable         []string
	Disable        []string
	Policy         []string

	// The model's parameters, as typed ("20s", "app=90s").
	PullTime, StartTime, ShutdownTime              string
	ObservationLatency, ActionLatency, StopLatency string
	ExpectedStartup, ExpectedShutdown              string
	Nodes                                          int
	NodesSet                                       bool
	Observed                                       string

	// Limits are the input limits (--max-file-size, --max-documents,
	// --max-depth, --max-nodes), which no configuration can set.
	Limits  manifest.Limits
	Exclude []string

	// Output: --color, and --output, which turns automatic color and the
	// terminal's width off.
	Color  string
	Output string
	// Debug traces each step on Env.Stderr and lints with one worker.
	Debug bool

	// Rendering: --render, the Helm options and the render limits.
	Render                                 string
	Values, Set                            []string
	ReleaseName, Namespace                 string
	RenderCPU, RenderMemory, RenderTimeout string
	RenderMaxOutput, RenderBudget          string
	ReadUntracked                          []string
}

// Env is what Load reads of the process besides the flags.
type Env struct {
	// WorkDir is the working directory: the configuration is found from
	// it, and paths are shown relative to it.
	WorkDir string
	// Getenv reads NO_COLOR, TERM and COLUMNS; nil reads none.
	Getenv func(string) string
	// Terminal says whether standard output is a terminal, and Width
	// its width (0 when unknown); nil for neither.
	Terminal func() bool
	Width    func() int
	// Warnf writes a warning; Stderr receives the --debug trace.
	Warnf  func(format string, args ...any)
	Stderr io.Writer
	// ReadProfile reads a profile of podlint observe (internal/observe,
	// which this package does not import: podlint-render links no
	// cluster client); nil when the executable does not link it. Now is
	// the clock that judges a profile stale (nil: time.Now).
	ReadProfile func(data []byte, name string, now time.Time) (*timeline.Observed, error)
	Now         func() time.Time
}

func (e *Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

func (e *Env) now() time.Time {
	if e.Now == nil {
		return time.Now()
	}
	return e.Now()
}

// Settings is everything a run needs, from the flags and the
// configuration file.
type Settings struct {
	// Config is the configuration in use; empty when there is none.
	Config *Config
	// Linter is what runs on each file.
	Linter analyzer.Linter
	// Run tunes the scheduler (analyzer.Run), for check and fix.
	Run analyzer.Options
	// FailOn is the level at which check and fix fail; Show the lowest
	// they show.
	FailOn, Show finding.Severity
	// Color and Width are the text report's.
	Color bool
	Width int
	// Excludes are the exclude globs, relative to WorkDir.
	Excludes []string
	WorkDir  string
	// Render says whether charts and kustomizations are rendered, with
	// Renderer's options and, together, within Budget of CPU time.
	Render   bool
	Renderer *render.Options
	Budget   time.Duration
	// Trace writes a --debug line; nil without --debug.
	Trace func(format string, args ...any)
}

// RenderError is an error of the render settings (--render, the Helm
// options, the render limits), which Load reports after every other
// setting was read. check writes a failed SARIF log for the others only.
type RenderError struct{ Err error }

func (e *RenderError) Error() string { return e.Err.Error() }
func (e *RenderError) Unwrap() error { return e.Err }

// Load reads the settings of a run: the configuration file, then the
// Kubernetes version, the fail and show levels, the rules, the model
// parameters and profile, the policies, the limits, the excludes and the
// output, then the render stage. Flags win over the configuration file
// throughout, except where the configuration is trusted less (trust.go).
// An error names the flag, or the file and line of the key, that is wrong.
func Load(f *Flags, env Env) (*Settings, error) {
	if env.Warnf == nil {
		env.Warnf = func(string, ...any) {}
	}
	s := &Settings{WorkDir: env.WorkDir}
	var err error
	if s.Config, err = settingsConfig(f.Config, f.NoConfig, env.WorkDir, f.Paths); err != nil {
		return nil, err
	}
	cfg := s.Config
	if s.Linter.Version, err = kubeVersion(f.KubeVersion, f.KubeVersionSet, cfg, env.Warnf); err != nil {
		return nil, err
	}
	// fix takes check's rules and failure level: its exit status is
	// check's on the fixed files.
	check := f.Command == "check" || f.Command == "fix"
	var enable, disable []string
	if check {
		if s.FailOn, s.Show, err = failLevels(f.FailOn, f.FailOnSet, f.Show, cfg); err != nil {
			return nil, err
		}
		enable, disable = f.Enable, f.Disable
	}
	s.Linter.Rules = rules.All
	if s.Linter.Severity, err = ruleSeverities(cfg, enable, disable); err != nil {
		return nil, err
	}
	if s.Linter.Params, err = modelParams(paramFlagsOf(f), cfg); err != nil {
		return nil, err
	}
	if s.Linter.Params.Observed, err = s.observedProfile(f.Observed, &env); err != nil {
		return nil, err
	}
	if check {
		if err := s.policySetup(f, env.Warnf); err != nil {
			return nil, err
		}
	}
	s.Linter.Limits = f.Limits
	if err := checkLimits(s.Linter.Limits); err != nil {
		return nil, err
	}
	s.Excludes = excludePatterns(cfg, env.WorkDir, f.Exclude)
	terminal := func() bool { return env.Terminal != nil && env.Terminal() }
	if s.Color, err = useColor(f.Color, env.getenv("NO_COLOR") != "", env.getenv("TERM") == "dumb", f.Output != "", terminal); err != nil {
		return nil, err
	}
	s.Width = terminalWidth(f.Output, &env)
	if f.Debug {
		s.debug(env.Stderr)
	}
	if err := s.renderSetup(f, env.Warnf); err != nil {
		return nil, &RenderError{err}
	}
	return s, nil
}

// debug turns on --debug: each step of discovery, rendering and position
// mapping writes one "podlint debug: " line to w, escaped like every
// message (textsafe), so a file name cannot start a workflow command or
// move the cursor. Sources are then linted by one worker, in order, so
// that the trace reads the same on every run.
func (s *Settings) debug(w io.Writer) {
	var mu sync.Mutex
	s.Trace = func(format string, args ...any) {
		line := textsafe.Escape(fmt.Sprintf(format, args...))
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "podlint debug: %s\n", line)
	}
	s.Run.Workers = 1
}

// terminalWidth is the width the text format wraps details to: COLUMNS
// when it is set (as GNU tools read it, so `COLUMNS=80 podlint check … |
// less` works), else the terminal's when the report goes to one, else 0
// for report's default of 100 columns, so files and CI logs do not depend
// on who ran podlint.
func terminalWidth(output string, env *Env) int {
	if n, err := strconv.Atoi(env.getenv("COLUMNS")); err == nil && n >= 40 {
		return n
	}
	if output != "" && output != "-" {
		return 0
	}
	if env.Width == nil {
		return 0
	}
	if w := env.Width(); w >= 40 {
		return w
	}
	return 0
}

// ConfigName is the configuration file in use as reports show it
// (relative to the working directory, "../.podlint.yaml" from a
// subfolder, so that reports do not depend on where the checkout is), or "".
func (s *Settings) ConfigName() string {
	p := s.Config.path
	if p == "" {
		return ""
	}
	if abs, err := filepath.Abs(p); err == nil {
		if rel, err := filepath.Rel(s.WorkDir, abs); err == nil {
			return filepath.ToSlash(rel)
		}
		return abs
	}
	return p
}

// Fixable returns which findings podlint fix may fix: those of the rules
// of sel (--select; all when empty), except the configuration's
// fix.never. nil fixes all.
func (s *Settings) Fixable(sel []string) (func(*finding.Finding) bool, error) {
	return fixableRules(sel, s.Config)
}

func fixableRules(sel []string, cfg *Config) (func(*finding.Finding) bool, error) {
	lookup := func(names []string, where string) (map[string]bool, error) {
		list, err := ruleList(names, where)
		out := map[string]bool{}
		for _, r := range list {
			out[r.ID] = true
		}
		return out, err
	}
	selected, err := lookup(sel, "--select")
	if err != nil {
		return nil, err
	}
	var never map[string]bool
	if cfg != nil {
		if never, err = lookup(cfg.Fix.Never, "config "+cfg.path+": fix.never"); err != nil {
			return nil, err
		}
	}
	if len(selected) == 0 && len(never) == 0 {
		return nil, nil
	}
	return func(f *finding.Finding) bool {
		return !never[f.RuleID] && (len(selected) == 0 || selected[f.RuleID])
	}, nil
}

// UnwrapPathErr drops the operation and path of an *os.PathError, for a
// message that names the path itself.
func UnwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
