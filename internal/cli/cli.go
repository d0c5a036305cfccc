// Package cli is podlint's command line: flags, configuration discovery, and
// the one place where errors become exit codes.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/mattn/go-isatty"
	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/gctune"
	"github.com/podlint/podlint/internal/settings"
	"github.com/podlint/podlint/internal/textsafe"
	podversion "github.com/podlint/podlint/internal/version"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/render"
	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/timeline"
	ucli "github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// Exit codes.
const (
	ExitOK       = 0 // nothing at or above --fail-on
	ExitFindings = 1 // findings at or above --fail-on
	ExitError    = 2 // usage, configuration or I/O error
)

// version is podlint's version as the SARIF driver reports it ("v1.2.3").
func version() string { return podversion.Get().Version }

func init() {
	// --version prints exactly what the version command prints.
	ucli.VersionPrinter = func(c *ucli.Context) {
		fmt.Fprintln(c.App.Writer, podversion.Get())
	}
}

// exitError is an error that ends the run with its exit code (ExitError for
// usage, configuration and I/O problems) after printing its message.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// Run runs podlint with args (args[0] is the program name) and returns the
// exit code. It leaves the garbage collector as it is: tests run it, and
// the collector's settings are the process's (Main paces it).
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runWith(args, stdin, stdout, stderr, nil)
}

// Main is Run for the podlint executable: it also paces the garbage
// collector to the run's heap (internal/gctune), unless GOGC or GOMEMLIMIT
// is set in the environment.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runWith(args, stdin, stdout, stderr, os.Getenv)
}

// runWith is Run, pacing the collector when getenv is set.
func runWith(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) (code int) {
	if render.IsChild() {
		// Started to render one chart or kustomization within limits
		// (render/child.go): podlint starts podlint-render for that, and
		// refuses here as it links no engine; a test binary that links
		// render/engine renders.
		return render.ChildMain(stdin, stdout, stderr)
	}
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "podlint: internal error: %s\n%s\nplease report this bug\n", textsafe.Escape(fmt.Sprint(r)), debug.Stack())
			code = ExitError
		}
	}()
	env := &runEnv{stdin: stdin, stdout: stdout, stderr: stderr, code: ExitOK}
	if getenv != nil {
		gctune.Start(getenv, env.inputs.Load)
	}
	routeLibraryLogs(stderr)
	app := newApp(env)
	err := app.Run(reorderArgs(app, args))
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			if ee.msg != "" {
				env.warnf("%s", ee.msg)
			}
			return ee.code
		}
		env.warnf("%v", err)
		return ExitError
	}
	return env.code
}

// runEnv is the state of one run of podlint.
type runEnv struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	code           int
	// inputs counts the bytes of the large inputs the run's scheduler
	// holds (analyzer.Options.InputBytes), for the collector's pacing.
	inputs atomic.Int64
}

// warnf prints one line on standard error. The whole line is escaped
// (textsafe.Escape): messages name files and directories, and a name with
// a newline, an escape sequence or a bidi control must not start a GitHub
// workflow command or reach the terminal raw.
func (env *runEnv) warnf(format string, args ...any) {
	fmt.Fprintf(env.stderr, "podlint: %s\n", textsafe.Escape(fmt.Sprintf(format, args...)))
}

// App returns the command and flag definitions with no input or output
// attached, for the documentation generator (internal/gendocs).
func App() *ucli.App {
	return newApp(&runEnv{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard})
}

func newApp(env *runEnv) *ucli.App {
	app := &ucli.App{
		Name:      "podlint",
		Usage:     "find Pod lifecycle settings that fail at runtime, before you apply them",
		UsageText: "podlint check [flags] PATH...\npodlint fix [--unsafe] [--diff|--check] [--select RULE] [flags] PATH...\npodlint timeline [flags] PATH...\npodlint observe [--from FILE... | --context NAME -n NS|-A --watch DURATION] -o FILE\npodlint rules [--format text|markdown|json] [RULE...]\npodlint lsp [flags]\npodlint version\npodlint completion bash|zsh|fish|powershell",
		Description: `podlint reads Kubernetes manifests (YAML or JSON files, directories, or - for
standard input), decodes every workload exactly as kubectl would, computes the
worst-case Pod lifecycle (probe windows, kills, readiness, termination, restart
back-off, Job retries) and reports settings that the kubelet or the controllers
will turn into failures: a liveness probe that kills a slow starter, a preStop
hook longer than the grace period, a startup longer than the rollout deadline.

Exit status: 0 when nothing is at or above --fail-on, 1 when something is,
2 on usage, configuration or I/O errors.

Documentation: https://github.com/podlint/podlint/tree/main/docs`,
		Version: version(),
		Reader:  env.stdin,
		// urfave/cli's own messages quote what was typed (an unknown flag).
		Writer:               textsafe.Writer{W: env.stdout},
		ErrWriter:            textsafe.Writer{W: env.stderr},
		EnableBashCompletion: true,
		Suggest:              true,
		// --set a={x,y} and values file names may hold commas; the rule
		// lists split on commas themselves.
		DisableSliceFlagSeparator: true,
		HideHelpCommand:           false,
		CustomAppHelpTemplate:     appHelpTemplate,
		ExitErrHandler:            func(*ucli.Context, error) {},
		OnUsageError: func(c *ucli.Context, err error, isSubcommand bool) error {
			return &exitError{code: ExitError, msg: err.Error() + flagSuggestion(c, err) + " (see podlint " + c.Command.Name + " --help)"}
		},
		Commands: []*ucli.Command{
			checkCommand(env),
			fixCommand(env),
			timelineCommand(env),
			observeCommand(env),
			rulesCommand(env),
			lspCommand(env),
			{
				Name:  "version",
				Usage: "print podlint's version",
				Action: func(c *ucli.Context) error {
					fmt.Fprintln(env.stdout, podversion.Get())
					return nil
				},
			},
			completionCommand(env),
			completeCommand(env),
		},
		CommandNotFound: func(c *ucli.Context, name string) {
			var names []string
			for _, cmd := range c.App.Commands {
				names = append(names, cmd.Name)
			}
			env.warnf("unknown command %s%s; run podlint --help", textsafe.Quote(name), settings.DidYouMean(name, names))
			env.code = ExitError
		},
	}
	for _, cmd := range app.Commands {
		if cmd.OnUsageError == nil {
			cmd.OnUsageError = app.OnUsageError
		}
		skipFlagActions(cmd)
	}
	return app
}

// skipFlagActions keeps urfave/cli v2 from looking for flag actions that
// podlint does not have. Between a command's Before and its Action,
// runFlagActions asks IsSet of every name of every flag, and each IsSet of
// a flag not given walks all the command's flags, running a regular
// expression on every name (FlagNames): quadratic in the flags, a third of
// the instructions of `podlint check` on one small file, where it decides
// nothing (no podlint flag has an Action: TestNoFlagHasAnAction). The
// command's flags are set aside after Before and back before Action runs;
// help, parsing, completion and the required-flag check come before Before
// and see them as ever.
func skipFlagActions(cmd *ucli.Command) {
	if cmd.Action == nil || len(cmd.Flags) == 0 || len(cmd.Subcommands) > 0 {
		return
	}
	flags, before, action := cmd.Flags, cmd.Before, cmd.Action
	cmd.Before = func(c *ucli.Context) error {
		if before != nil {
			if err := before(c); err != nil {
				return err
			}
		}
		cmd.Flags = nil
		return nil
	}
	cmd.Action = func(c *ucli.Context) error {
		cmd.Flags = flags
		return action(c)
	}
}

// appHelpTemplate is urfave/cli's, with the global options listed without
// their categories: the help flag is one value shared with the commands,
// whose grouping gives it the category Output, and podlint --help showed
// that heading above --help alone.
var appHelpTemplate = func() string {
	const grouped = `{{if .VisibleFlagCategories}}

GLOBAL OPTIONS:{{template "visibleFlagCategoryTemplate" .}}{{else if .VisibleFlags}}`
	if !strings.Contains(ucli.AppHelpTemplate, grouped) {
		panic("urfave/cli's AppHelpTemplate changed: update appHelpTemplate")
	}
	return strings.Replace(ucli.AppHelpTemplate, grouped, "{{if .VisibleFlags}}", 1)
}()

// reorderArgs moves flags given after paths (`podlint check ./k8s -f json`)
// in front of them: urfave/cli, like the flag package, stops at the first
// path.
//
// `podlint check --pre-commit` (the hook's entry) is followed by the hook's
// args and then the staged file names pre-commit appends. A staged file
// named --output=victim.yaml was taken as a flag there and overwrote
// victim.yaml; so with --pre-commit an argument that names an existing
// file is always a path, while the hook's args still parse as flags.
func reorderArgs(app *ucli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	var cmd *ucli.Command
	ci := -1
	for i := 1; i < len(args); i++ {
		if !strings.HasPrefix(args[i], "-") {
			cmd = app.Command(args[i])
			ci = i
			break
		}
	}
	preCommit := cmd != nil && ci+1 < len(args) && args[ci+1] == "--"+preCommitFlag
	// Shell completion appends --generate-bash-completion, which urfave/cli
	// honours only as the last argument and not after a "--"; reordering
	// `podlint check k8s/ --f<TAB>` broke it. Completion reads the words as
	// typed anyway.
	if args[len(args)-1] == "--generate-bash-completion" && !preCommit {
		return args
	}
	if cmd == nil || cmd.SkipFlagParsing {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*ucli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var flags, paths []string
	rest := args[ci+1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case preCommit && i > 0 && stagedFile(a):
			if a == "-" {
				a = "./-" // a file, not standard input
			}
			paths = append(paths, a)
		case a == "--":
			paths = append(paths, rest[i+1:]...)
			i = len(rest)
		case a == "-" || !strings.HasPrefix(a, "-"):
			paths = append(paths, a)
		default:
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] && i+1 < len(rest) {
				flags = append(flags, rest[i+1])
				i++
			}
		}
	}
	out := append([]string{}, args[:ci+1]...)
	out = append(out, flags...)
	if len(paths) > 0 {
		out = append(out, "--")
		out = append(out, paths...)
	}
	return out
}

// preCommitFlag is the flag the pre-commit hooks' entry starts with.
const preCommitFlag = "pre-commit"

// stagedFile reports whether a, an argument starting with -, names a file
// or folder (a link included, even a broken one: pre-commit passes those).
func stagedFile(a string) bool {
	if !strings.HasPrefix(a, "-") {
		return false
	}
	_, err := os.Lstat(a)
	return err == nil
}

// commonFlags are shared by check and timeline.
func commonFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.BoolFlag{Name: "allow-empty", Usage: "exit 0, not 2, when a directory holds no manifest file"},
		&ucli.StringFlag{Name: "config", Usage: "read settings from `FILE` instead of the nearest " + settings.ConfigFileName + " or " + settings.ConfigFileAltName},
		&ucli.BoolFlag{Name: "no-config", Usage: "ignore " + settings.ConfigFileName + " files"},
		&ucli.StringFlag{Name: "kube-version", Usage: "Kubernetes `VERSION` of the target cluster (e.g. 1.30); default " + timeline.Latest.String()},
		&ucli.StringFlag{Name: "stdin-filename", Usage: "`NAME` to show for standard input (-)", Value: "<stdin>"},
		&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the report to `FILE` instead of standard output"},
		&ucli.StringFlag{Name: "color", Usage: "colored text output: `WHEN` = auto, always or never (auto honours NO_COLOR)", Value: "auto"},
		&ucli.StringFlag{Name: "pull-time", Usage: "assumed image pull `DURATION` per container (e.g. 20s); unknown by default"},
		&ucli.StringFlag{Name: "start-time", Usage: "assume every container's app takes `DURATION` from start to healthy, for the computed times only; unlike --expected-startup, findings are never about missing it; unknown by default"},
		&ucli.StringFlag{Name: "shutdown-time", Usage: "assumed application shutdown `DURATION`, SIGTERM to exit; unknown by default"},
		&ucli.StringFlag{Name: "expected-startup", Usage: "start-up `TIME` the probes must allow, per container (90s, or app=90s,*-proxy=5s; the podlint.dev/expected-startup annotation wins): findings report probes that kill or give up sooner"},
		&ucli.StringFlag{Name: "expected-shutdown", Usage: "shutdown `TIME` after SIGTERM, as in the podlint.dev/expected-shutdown annotation: 20s, or api=20s"},
		&ucli.StringSliceFlag{Name: "exclude", Usage: "skip files matching the glob `PATTERN` (** matches folders; repeat for more)"},
		&ucli.StringFlag{Name: "observation-latency", Usage: "the kubelet notices that a container started or exited `DURATION` after it happened", Value: "1s"},
		&ucli.StringFlag{Name: "action-latency", Usage: "a probe result reaches the kubelet step that acts on it (a restart, a readiness change) `DURATION` after the probe", Value: "0.5s"},
		&ucli.StringFlag{Name: "stop-latency", Usage: "the container runtime delivers a SIGKILL up to `DURATION` after the grace period ends, and answers a stop call up to DURATION after the container exited (each sidecar waits for that answer on a delete)", Value: "1s"},
		&ucli.IntFlag{Name: "nodes", Usage: "`N` nodes the Pods can be scheduled on, for rollout and drain estimates; unknown by default"},
		&ucli.StringFlag{Name: "observed", Usage: "take the start-ups and shutdowns of the profile `FILE` podlint observe wrote as expected where they are longer; check reports the probe kills and SIGKILLs it saw, timeline and the editor's hover show them"},
		debugFlag(),
		&ucli.Int64Flag{Name: "max-file-size", Usage: "skip files larger than `BYTES` with a limit-exceeded finding", Value: manifest.DefaultLimits.MaxFileSize},
		&ucli.IntFlag{Name: "max-documents", Usage: "lint at most `N` YAML documents per file", Value: manifest.DefaultLimits.MaxDocuments},
		&ucli.IntFlag{Name: "max-depth", Usage: "refuse documents nested deeper than `N` levels", Value: manifest.DefaultLimits.MaxDepth},
		&ucli.IntFlag{Name: "max-nodes", Usage: "refuse documents that expand to more than `N` nodes (YAML alias bombs)", Value: manifest.DefaultLimits.MaxNodes},
	}
}

// flagsOf reads the flags of c's command into the settings' plain flags:
// the flags of check, fix, timeline and lsp that Load reads.
func flagsOf(c *ucli.Context) *settings.Flags {
	f := &settings.Flags{
		Command: c.Command.Name, Paths: c.Args().Slice(),
		Config: c.String("config"), NoConfig: c.Bool("no-config"),
		KubeVersion: c.String("kube-version"), KubeVersionSet: c.IsSet("kube-version"),
		PullTime: c.String("pull-time"), StartTime: c.String("start-time"), ShutdownTime: c.String("shutdown-time"),
		ObservationLatency: c.String("observation-latency"), ActionLatency: c.String("action-latency"), StopLatency: c.String("stop-latency"),
		ExpectedStartup: c.String("expected-startup"), ExpectedShutdown: c.String("expected-shutdown"),
		Nodes: c.Int("nodes"), NodesSet: c.IsSet("nodes"), Observed: c.String("observed"),
		Limits: manifest.Limits{
			MaxFileSize:  c.Int64("max-file-size"),
			MaxDocuments: c.Int("max-documents"),
			MaxDepth:     c.Int("max-depth"),
			MaxNodes:     c.Int("max-nodes"),
		},
		Exclude: c.StringSlice("exclude"), Color: c.String("color"), Output: c.String("output"),
		Render: c.String("render"), Values: c.StringSlice("values"), Set: c.StringSlice("set"),
		ReleaseName: c.String("release-name"), Namespace: c.String("namespace"),
		RenderCPU: c.String("render-cpu"), RenderMemory: c.String("render-memory"), RenderTimeout: c.String("render-timeout"),
		RenderMaxOutput: c.String("render-max-output"), RenderBudget: c.String("render-budget"),
		ReadUntracked: c.StringSlice("read-untracked"),
	}
	switch f.Command {
	case "check", "fix":
		f.FailOn, f.FailOnSet, f.Show = c.String("fail-on"), c.IsSet("fail-on"), c.String("show")
		f.Enable, f.Disable, f.Policy = c.StringSlice("enable"), c.StringSlice("disable"), c.StringSlice("policy")
	}
	// fix and lsp accept --debug but trace nothing.
	f.Debug = (f.Command == "check" || f.Command == "timeline") && c.Bool("debug")
	return f
}

// settingsEnv is what settings.Load reads of the process: the working
// directory wd, the environment, standard output's terminal, and
// podlint observe's profile reader when this executable links it.
func (env *runEnv) settingsEnv(wd string) settings.Env {
	e := settings.Env{WorkDir: wd, Getenv: os.Getenv, Warnf: env.warnf, Stderr: env.stderr, Now: now,
		Terminal: func() bool { return isTerminal(env.stdout) },
		Width: func() int {
			f, ok := env.stdout.(*os.File)
			if !ok || !isTerminal(env.stdout) {
				return 0
			}
			w, _, err := term.GetSize(int(f.Fd()))
			if err != nil {
				return 0
			}
			return w
		}}
	if observer != nil {
		e.ReadProfile = observer.Expectations
	}
	return e
}

// loadSettings reads the settings of c's command (settings.Load), its
// errors usage errors.
func loadSettings(c *ucli.Context, env *runEnv) (*settings.Settings, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, &exitError{ExitError, "cannot read the working directory: " + err.Error()}
	}
	s, err := settings.Load(flagsOf(c), env.settingsEnv(wd))
	if err != nil {
		return nil, &settingsError{&exitError{ExitError, err.Error()}, err}
	}
	s.Run.InputBytes = &env.inputs
	return s, nil
}

// settingsError is an error of settings.Load as an exit (status 2, its
// message) that still says which setting failed (a settings.RenderError).
type settingsError struct {
	exit *exitError
	err  error
}

func (e *settingsError) Error() string   { return e.exit.msg }
func (e *settingsError) Unwrap() []error { return []error{e.exit, e.err} }

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// sources expands the command-line paths; standard input is read here.
func sources(s *settings.Settings, c *ucli.Context, env *runEnv) ([]manifest.Source, []manifest.Hint, []error) {
	paths := c.Args().Slice()
	srcs, hints, errs := manifest.DiscoverTrace(paths, s.Excludes, s.Render, s.Trace)
	discovered := srcs
	if s.Trace != nil {
		discovered = slices.Clone(srcs)
	}
	if s.Render {
		srcs = render.Plan(srcs)
		if s.Renderer != nil {
			// One budget per run, spent in the order of the sources.
			s.Renderer.Budget = render.NewBudget(s.Budget, srcs)
		}
	} else {
		srcs = render.DropPatches(srcs)
	}
	tracePlan(s, discovered, srcs)
	// A directory that yields nothing (empty, only hidden folders, all
	// excluded) is an error unless --allow-empty says it is expected: a
	// run that lints nothing must not read as a clean one.
	kept := hints[:0]
	for _, h := range hints {
		if h.Empty && !c.Bool("allow-empty") {
			errs = append(errs, fmt.Errorf("%s; nothing was linted there (--allow-empty accepts this)", h.Message))
			continue
		}
		kept = append(kept, h)
	}
	hints = kept
	for _, p := range paths {
		if p != "-" {
			continue
		}
		data, tooBig, err := manifest.ReadCapped(env.stdin, "-", s.Linter.Limits.MaxFileSize)
		if err != nil {
			errs = append(errs, fmt.Errorf("standard input: %v", err))
			continue
		}
		if tooBig {
			errs = append(errs, errors.New(analyzer.TooBig("standard input", s.Linter.Limits.MaxFileSize)))
			continue
		}
		srcs = append(srcs, manifest.Source{Path: c.String("stdin-filename"), Data: data, Explicit: true})
		break // stdin can be read once
	}
	return srcs, hints, errs
}

// ruleInfos lists the enabled rules for the report writers; withDocs adds
// each rule's documentation, which only SARIF prints.
func ruleInfos(sev map[*rules.Rule]finding.Severity, withDocs bool) []finding.RuleInfo {
	var out []finding.RuleInfo
	for _, r := range rules.All {
		if s := sev[r]; s > finding.Off {
			info := r.Brief()
			if withDocs {
				info = r.Info()
			}
			info.Severity = s
			out = append(out, info)
		}
	}
	return out
}
