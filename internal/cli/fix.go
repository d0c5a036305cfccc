package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/fix"
	"github.com/podlint/podlint/internal/textsafe"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/report"
	ucli "github.com/urfave/cli/v2"
)

func fixCommand(env *runEnv) *ucli.Command {
	flags := append([]ucli.Flag{
		&ucli.BoolFlag{Name: "unsafe", Usage: "also apply fixes that change behaviour or are one of several answers (each rule's page says which)"},
		&ucli.BoolFlag{Name: "diff", Usage: "print the changes as a unified diff and write nothing"},
		&ucli.StringFlag{Name: "fail-on", Usage: "exit 1 when a finding at or above `LEVEL` remains after the fixes: error, warning, info or never (default error)"},
		&ucli.StringFlag{Name: "show", Usage: "print remaining findings at or above `LEVEL`: error, warning or info (default info)"},
		&ucli.BoolFlag{Name: "brief", Usage: "print one line per remaining finding, without source line and detail"},
		&ucli.StringSliceFlag{Name: "enable", Usage: "turn on `RULE` (ID or name; repeat or separate with commas)"},
		&ucli.StringSliceFlag{Name: "disable", Usage: "turn off `RULE` (ID or name; repeat or separate with commas)"},
	}, append(commonFlags(), renderFlags()...)...)
	return &ucli.Command{
		Name:      "fix",
		Usage:     "apply the fixes of findings that have one, then report what remains",
		ArgsUsage: "PATH...",
		Description: `Applies the safe fixes of the findings check reports (with --unsafe, the
unsafe ones too) to the files they are in, then prints the findings that
remain as check would. A fix edits only the bytes that must change (comments,
quoting, flow style and blank lines stay) and is applied only after it was
verified: the edited file parses, its objects differ only at the fixed
fields, the finding is gone and no new finding appears. Fixes whose edits
overlap are applied in later passes (at most 5) or reported as skipped.

With --diff nothing is written: the changes are printed as a unified diff on
standard output and the tally on standard error. Files are written
atomically (a temporary file in the same folder, renamed over the file) and
keep their mode, owner and group; a read-only file is reported, not fixed,
and a symbolic link is reported, never edited through.
Standard input, Helm charts and kustomizations (rendered output) get no
fixes. The exit status is check's, for the findings that remain.`,
		Flags: grouped(flags),
		Action: func(c *ucli.Context) error {
			if c.NArg() == 0 {
				return &exitError{ExitError, "fix needs at least one PATH (a file or a directory)"}
			}
			s, err := loadSettings(c, env, false)
			if err != nil {
				return err
			}
			if err := s.renderSetup(c); err != nil {
				return err
			}
			s.format = "text"
			srcs, hints, errs := s.sources(c, env)
			for _, h := range hints {
				env.warnf("hint: %s", h.Message)
			}
			safety := finding.Safe
			if c.Bool("unsafe") {
				safety = finding.Unsafe
			}
			diff := c.Bool("diff")
			var diffOut io.Writer = env.stdout
			var tally fixTally
			for i := range srcs {
				src := &srcs[i]
				switch {
				case src.Data != nil:
					env.warnf("%s: standard input is not fixed", src.Path)
					continue
				case src.Render != "":
					env.warnf("%s: rendered (a Helm chart or kustomization); its files get no fixes", src.Path)
					continue
				}
				fixed, err := fixFile(&s.an, src, safety, diff, diffOut, env, &tally)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				if fixed != nil {
					src.Data = fixed // the report below is of the fixed text
				}
			}
			res, runErrs := analyzer.Run(&s.an, s.sched, srcs)
			res.Summary.ConfigFile = s.configName()
			errs = append(errs, runErrs...)
			verb := "fixed"
			if diff {
				verb = "would fix"
			}
			env.warnf("%s %d finding(s) in %d file(s)%s; %d fix(es) skipped", verb, tally.applied, tally.files, tally.unsafeNote(safety), tally.skipped)
			if !diff {
				out, err := openOutput(c, env, srcs)
				if err != nil {
					return err
				}
				var errTexts []string
				for _, e := range errs {
					errTexts = append(errTexts, e.Error())
				}
				werr := out.finish(report.Write(out.w, "text", res, report.Options{
					Color: s.color, SrcRoot: s.workDir, ToolVersion: version(), Rules: ruleInfos(s.an.Severity),
					Width: s.width, Brief: c.Bool("brief"), Show: s.show, FailOn: s.failOn, Errors: errTexts,
				}))
				if werr != nil {
					return &exitError{ExitError, "writing the report: " + werr.Error()}
				}
			} else {
				env.warnf("%s", report.SummaryLine(res))
			}
			env.finish(res, errs, s.failOn)
			return nil
		},
	}
}

// fixTally counts what a fix run did.
type fixTally struct {
	applied, skipped, files, unsafeLeft int
}

func (t *fixTally) unsafeNote(safety finding.FixSafety) string {
	if safety == finding.Safe && t.unsafeLeft > 0 {
		return fmt.Sprintf(" (%d more with --unsafe)", t.unsafeLeft)
	}
	return ""
}

// fixFile fixes one file and writes it (or its diff). It returns the fixed
// bytes, or nil when nothing changed.
func fixFile(cfg *analyzer.Linter, src *manifest.Source, safety finding.FixSafety, diff bool, diffOut io.Writer, env *runEnv, t *fixTally) ([]byte, error) {
	fi, err := os.Lstat(src.Path)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %v", src.Path, unwrapPathErr(err))
	case fi.Mode()&fs.ModeSymlink != 0:
		env.warnf("%s: a symbolic link; not edited (fix the file it points to)", src.Path)
		return nil, nil
	case !fi.Mode().IsRegular():
		return nil, nil
	}
	data, tooBig, err := src.Read(cfg.Limits.MaxFileSize)
	if err != nil || tooBig {
		return nil, err // too big: check's run reports it
	}
	res := fix.File(cfg, src.Path, data, safety)
	for _, s := range res.Skipped {
		t.skipped++
		env.warnf("%s:%d:%d: %s not fixed (%s): %s", src.Path, s.Finding.Line, s.Finding.Column, s.Finding.RuleID, s.Fix.Title, s.Reason)
	}
	if safety == finding.Safe {
		for i := range res.Findings {
			if fix.Choose(&res.Findings[i], finding.Safe) == nil && fix.Choose(&res.Findings[i], finding.Unsafe) != nil {
				t.unsafeLeft++
			}
		}
	}
	if !res.Changed() {
		return nil, nil
	}
	if !diff && !mayWrite(src.Path, fi) {
		// Replacing it by a rename would succeed (the folder is
		// writable), but a read-only file says it is not to be changed.
		return nil, fmt.Errorf("%s: read-only (mode %04o); not fixed: podlint fix does not replace a file you may not write (make it writable, or see the changes with --diff)", src.Path, fi.Mode().Perm())
	}
	t.files++
	t.applied += len(res.Applied)
	for _, a := range res.Applied {
		if !diff {
			env.warnf("%s:%d:%d: %s fixed: %s", src.Path, a.Finding.Line, a.Finding.Column, a.Finding.RuleID, a.Fix.Title)
		}
	}
	if diff {
		// The name is escaped as in every other output: a file named
		// "x\n+++ b/y" or holding ESC or U+202E must not forge a diff
		// line, a workflow command or a terminal sequence.
		name := textsafe.Escape(strings.TrimPrefix(filepath.ToSlash(src.Path), "/"))
		if _, err := io.WriteString(diffOut, fix.Diff(name, data, res.Data)); err != nil {
			return nil, err
		}
		return res.Data, nil
	}
	if err := writeAtomic(src.Path, res.Data, fi); err != nil {
		return nil, fmt.Errorf("%s: not written: %v", src.Path, err)
	}
	return res.Data, nil
}

// writeAtomic replaces the regular file at path (fi, from Lstat) with data:
// a temporary file in the same folder, with the file's owner, group and
// mode (setuid, setgid and sticky bits included), synced and renamed over
// it. A path that became a symbolic link since fi was read is refused;
// rename replaces a link itself, never what it points at.
func writeAtomic(path string, data []byte, fi fs.FileInfo) error {
	dir, base := filepath.Split(path)
	tmp, temp, err := createTemp(plainDir(dir), base)
	if err != nil {
		return unwrapPathErr(err)
	}
	// Owner first, as chown clears the setuid and setgid bits, and the
	// mode after the data, as a write by an unprivileged process clears
	// them too.
	werr := keepOwner(tmp, fi)
	if werr == nil {
		_, werr = tmp.Write(data)
	}
	if werr == nil {
		werr = tmp.Chmod(fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky))
	}
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		if now, err := os.Lstat(path); err != nil || !os.SameFile(now, fi) || now.Size() != fi.Size() || !now.ModTime().Equal(fi.ModTime()) {
			werr = errors.New("the file changed while it was being fixed")
		}
	}
	if werr == nil {
		werr = temp.commit(base)
	}
	if werr != nil {
		temp.discard()
	}
	return werr
}

// verifyFixes drops the fixes of res that fail verification (fix.Verify),
// reading each file with fixes again as the run read it.
func verifyFixes(cfg *analyzer.Linter, res *finding.Result, srcs []manifest.Source) {
	byPath := map[string]*manifest.Source{}
	for i := range srcs {
		if srcs[i].Render == "" {
			byPath[srcs[i].Path] = &srcs[i]
		}
	}
	fix.VerifyResult(cfg, res, func(path string) ([]byte, error) {
		src := byPath[path]
		if src == nil {
			return nil, fmt.Errorf("%s: not a source of the run", path)
		}
		if src.Data != nil {
			return src.Data, nil
		}
		data, tooBig, err := src.Read(cfg.Limits.MaxFileSize)
		if err == nil && tooBig {
			err = fmt.Errorf("%s: too big", path)
		}
		return data, err
	})
}
