package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/fix"
	"github.com/podlint/podlint/internal/settings"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/report"
	ucli "github.com/urfave/cli/v2"
)

func checkCommand(env *runEnv) *ucli.Command {
	flags := append([]ucli.Flag{
		formatFlag(),
		&ucli.IntFlag{Name: "timelines", Usage: "markdown format: end with the Mermaid timelines of the first `N` workloads that have findings (0 for none)", Value: defaultTimelines},
		&ucli.StringFlag{Name: "fail-on", Usage: "exit 1 when a finding is at or above `LEVEL`: error, warning, info or never (default error)"},
		&ucli.StringFlag{Name: "show", Usage: "print findings at or above `LEVEL`: error, warning or info; the text summary still counts the others (default info)"},
		&ucli.BoolFlag{Name: "brief", Usage: "text format: print one line per finding, without source line and detail"},
		&ucli.StringSliceFlag{Name: "enable", Usage: "turn on `RULE` (ID or name; repeat or separate with commas)"},
		&ucli.StringSliceFlag{Name: "disable", Usage: "turn off `RULE` (ID or name; repeat or separate with commas)"},
		&ucli.StringFlag{Name: "category", Usage: "SARIF analysis category `NAME` (automationDetails.id): code scanning keeps runs of different categories apart"},
		&ucli.BoolFlag{Name: preCommitFlag, Usage: "the arguments end with file names from pre-commit: given first, it makes an argument that names an existing file a path even when it starts with -"},
		&ucli.StringFlag{Name: "src-root", Usage: "make sarif, github, junit, codeclimate and markdown paths relative to `DIR` (default: the working directory)"},
		policyFlag(),
	}, append(commonFlags(), renderFlags()...)...)
	return &ucli.Command{
		Name:      "check",
		Usage:     "lint manifests and report findings",
		ArgsUsage: "PATH...",
		Description: `Lints YAML and JSON manifests. PATH is a file, a directory (walked for
.yaml, .yml and .json files; hidden files and folders, testdata and hack folders
and golden outputs (*.golden.yaml) are skipped unless named, and so are
.json files that are not Kubernetes objects, such as package.json, which the
summary counts) or - for standard input, e.g.
helm template my-release ./chart | podlint check -

A folder holding Chart.yaml (a Helm chart) or kustomization.yaml (a
kustomization) is rendered as helm template and kustomize build would, in a
separate podlint process without network access and within the --render-*
limits; findings point at the template, patch or resource file that set the
field. A file named inside one renders it and reports that file's findings
(a template's include those its helpers write).
--render=never lints such files one by one.

Findings can be suppressed, with a reason, by the annotation
ignore-check.podlint.dev/<rule>: "<reason>" on the workload or its pod
template, or by a comment "# podlint:ignore <rule> <reason>" on or above the
line a finding points at.

--debug traces on standard error, one "podlint debug:" line per step and in
the same order on every run: which files discovery reads or skips and why
(hidden, excluded, not YAML or JSON, a link out of the tree, inside a chart
or kustomization), which roots are rendered and which planning drops (bases
rendered through their overlays, patch files), the child process each root
renders in and what it may read, each rendered document and the file it came
from, and where each finding's field maps to in the template, patch or
values file, exact or approximate.`,
		Flags: grouped(flags),
		Action: func(c *ucli.Context) error {
			if c.NArg() == 0 {
				return &exitError{ExitError, "check needs at least one PATH (a file, a directory, or - for standard input)"}
			}
			s, err := loadSettings(c, env)
			if err != nil {
				// A CI step that uploads the log shows a failed run for a
				// bad setting; a render setting's error has never written
				// one, and still does not.
				if !errors.As(err, new(*settings.RenderError)) {
					failedSARIF(c, env, err)
				}
				return err
			}
			specs, err := reportSpecs(formatItems(c), c.String("output"))
			if err != nil {
				return &exitError{ExitError, err.Error()}
			}
			if c.Int("timelines") < 0 {
				return &exitError{ExitError, fmt.Sprintf("--timelines %d: want 0 or more", c.Int("timelines"))}
			}
			srcRoot := s.WorkDir
			if r := c.String("src-root"); r != "" {
				if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
					return &exitError{ExitError, fmt.Sprintf("--src-root %q is not a directory", r)}
				}
				if srcRoot, err = filepath.Abs(r); err != nil {
					return &exitError{ExitError, fmt.Sprintf("--src-root %q: %v", r, err)}
				}
			}
			timelines := 0
			if hasFormat(specs, "markdown") {
				timelines = c.Int("timelines")
			}
			if timelines > 0 && s.Linter.Open != nil {
				kept := &keptRenders{open: s.Linter.Open}
				defer kept.release()
				s.Linter.Open = kept.Open
			}
			srcs, hints, errs := sources(s, c, env)
			sched := s.Run
			var verify *fix.InRun
			if hasFormat(specs, "json", "sarif") {
				// The formats that offer fixes: the workers verify them
				// while each document is loaded, the rest after the run.
				verify = fix.NewInRun()
				sched.VerifyFixes = verify.Document
			}
			res, runErrs := analyzer.Run(&s.Linter, sched, srcs)
			res.Summary.ConfigFile = s.ConfigName()
			errs = append(errs, runErrs...)
			if verify != nil {
				verify.Finish(&s.Linter, res, sourceBytes(&s.Linter, srcs))
			}
			for _, h := range hints {
				env.warnf("hint: %s", h.Message)
			}
			var errTexts []string
			for _, e := range errs {
				errTexts = append(errTexts, e.Error())
			}
			opts := report.Options{
				Color: s.Color, SrcRoot: srcRoot, ToolVersion: version(), Rules: ruleInfos(s.Linter.Severity, hasFormat(specs, "sarif")),
				Category: c.String("category"),
				Width:    s.Width, Brief: c.Bool("brief"), Show: s.Show, FailOn: s.FailOn, Errors: errTexts,
			}
			opts.Timelines = reportTimelines(s, srcs, res, s.Show, timelines)
			if failed := writeReports(env, specs, srcs, res, opts); len(failed) > 0 {
				for _, f := range failed[1:] {
					env.warnf("%s", f)
				}
				return &exitError{ExitError, failed[0]}
			}
			if !toStdout(specs) {
				// Every report went to a file: the terminal gets the tally.
				env.warnf("%s; %s", report.SummaryLine(res), writtenTo(specs))
			}
			env.finish(res, errs, s.FailOn)
			return nil
		},
	}
}

// failedSARIF writes a SARIF log that says the run failed when a usage or
// configuration error stops podlint before it lints anything and the user
// asked for SARIF: a CI step that uploads the file then shows a failed run
// in code scanning instead of a missing file or, worse, a clean one.
func failedSARIF(c *ucli.Context, env *runEnv, err error) {
	specs, serr := reportSpecs(formatItems(c), c.String("output"))
	if serr != nil {
		return
	}
	var sarif []reportSpec
	for _, sp := range specs {
		if sp.format == "sarif" {
			sarif = append(sarif, sp)
		}
	}
	if len(sarif) == 0 {
		return
	}
	// The same rules as a normal report: no symbolic link at the output
	// path, written to a temporary file and renamed, so a failed run never
	// leaves a partial log or replaces another file.
	var inputs []manifest.Source
	for _, p := range c.Args().Slice() {
		if p != "-" {
			inputs = append(inputs, manifest.Source{Path: p})
		}
	}
	wd, _ := os.Getwd()
	for _, f := range writeReports(env, sarif, inputs, &finding.Result{}, report.Options{SrcRoot: wd, ToolVersion: version(), Category: c.String("category"), Errors: []string{err.Error()}}) {
		env.warnf("%s", f)
	}
}

func failing(res *finding.Result, level finding.Severity) bool {
	for i := range res.Len() {
		if res.SeverityAt(i) >= level {
			return true
		}
	}
	return false
}

// finish prints the run's I/O errors and sets the exit status check and
// fix share: 2 for errors, 1 for findings at or above the failure level.
func (env *runEnv) finish(res *finding.Result, errs []error, failOn finding.Severity) {
	for _, e := range errs {
		env.warnf("%v", e)
	}
	switch {
	case len(errs) > 0:
		env.code = ExitError
	case failing(res, failOn):
		env.code = ExitFindings
	}
}

// policyFlag names a policy file on the command line.
func policyFlag() ucli.Flag {
	return &ucli.StringSliceFlag{Name: "policy", Usage: "check the organisation policies of `FILE` (repeatable); the repository's " +
		settings.ConfigFileName + " may add policies but not change these (see docs/policies.md)"}
}
