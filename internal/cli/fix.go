package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/fix"
	"github.com/podlint/podlint/internal/settings"
	"github.com/podlint/podlint/internal/textsafe"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/render"
	"github.com/podlint/podlint/report"
	ucli "github.com/urfave/cli/v2"
)

func fixCommand(env *runEnv) *ucli.Command {
	flags := append([]ucli.Flag{
		&ucli.BoolFlag{Name: "unsafe", Usage: "also apply fixes that change behaviour or are one of several answers (each rule's page says which)"},
		&ucli.BoolFlag{Name: "diff", Usage: "print the changes as a unified diff and write nothing; exit 1 when there is a change"},
		&ucli.BoolFlag{Name: "check", Usage: "write nothing and print no diff, only which files would change; exit 1 when one would"},
		&ucli.StringSliceFlag{Name: "select", Usage: "fix only the findings of `RULE` (ID or name; repeat or separate with commas); the other rules still run and report"},
		&ucli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "`FORMAT` of the report: text, or json (what was fixed, what was skipped and why, and check's JSON report of what remains)", Value: "text"},
		&ucli.StringFlag{Name: "fail-on", Usage: "exit 1 when a finding at or above `LEVEL` remains after the fixes: error, warning, info or never (default error)"},
		&ucli.StringFlag{Name: "show", Usage: "print remaining findings at or above `LEVEL`: error, warning or info (default info)"},
		&ucli.BoolFlag{Name: "brief", Usage: "print one line per remaining finding, without source line and detail"},
		&ucli.StringSliceFlag{Name: "enable", Usage: "turn on `RULE` (ID or name; repeat or separate with commas)"},
		&ucli.StringSliceFlag{Name: "disable", Usage: "turn off `RULE` (ID or name; repeat or separate with commas)"},
		&ucli.BoolFlag{Name: preCommitFlag, Usage: "the arguments end with file names from pre-commit: given first, it makes an argument that names an existing file a path even when it starts with -"},
		policyFlag(),
	}, append(commonFlags(), renderFlags()...)...)
	return &ucli.Command{
		Name:      "fix",
		Usage:     "apply the fixes of findings that have one, then report what remains",
		ArgsUsage: "PATH...",
		Description: `Applies the safe fixes of the findings check reports (with --unsafe, the
unsafe ones too) to the files they are in, then prints the findings that
remain as check would. A fix edits only the bytes that must change (comments,
quoting, flow style and blank lines stay) and is applied only after it was
verified: the edited file parses (a JSON file stays JSON), its objects
differ only at the fixed fields, the finding is gone and no new finding
appears. Fixes whose edits overlap are applied in later passes (at most 5)
or reported as skipped.

With --diff nothing is written: the changes are printed as a unified diff on
standard output and the tally on standard error. --check writes and prints
no change, only the files that would change, on standard error. Files are
written atomically (a temporary file in the same folder, renamed over the
file) and keep their mode, owner and group; a read-only file is reported, not
fixed, and a symbolic link is reported, never edited through.

--enable and --disable choose the rules that run, as for check; --select
then chooses, among them, the rules whose findings are fixed (the others
still report). The configuration's fix.never lists rules that are never
fixed, whatever --select says.

PATH - reads standard input and writes the fixed text to standard output
(the diff with --diff, nothing with --check), the report to standard error.

A finding of a Helm chart or kustomization is fixed in the file that writes
the value: a literal on a template line (not {{ }}), a values.yaml key
whose value the template writes unchanged, or a kustomize patch, inside
the chart or kustomization folder. Each such fix is verified by rendering
again, in the same limited child as check: the finding is gone, none is
new, and every rendered object is compared; a fix that would also change
other fields (a values key read twice) is unsafe, and says which.

Exit status:
  0  nothing to change, and no finding at or above --fail-on remains
  1  --diff or --check: a fix would change a file; or a finding at or
     above --fail-on remains after the fixes
  2  usage, configuration or I/O error`,
		Flags: grouped(flags),
		Action: func(c *ucli.Context) error {
			if c.NArg() == 0 {
				return &exitError{ExitError, "fix needs at least one PATH (a file, a directory, or - for standard input)"}
			}
			s, err := loadSettings(c, env)
			if err != nil {
				return err
			}
			run := fixRun{env: env, s: s, diff: c.Bool("diff"), check: c.Bool("check"), format: c.String("format")}
			if run.format != "text" && run.format != "json" {
				return &exitError{ExitError, fmt.Sprintf("fix: unknown format %s: text or json", textsafe.Quote(run.format))}
			}
			if run.fixable, err = s.Fixable(c.StringSlice("select")); err != nil {
				return &exitError{ExitError, err.Error()}
			}
			run.safety = finding.Safe
			if c.Bool("unsafe") {
				run.safety = finding.Unsafe
			}
			srcs, hints, errs := sources(s, c, env)
			run.roots = s.Linter
			if s.Renderer != nil {
				// The renders that verify the fixes of charts and
				// kustomizations (one per fix) have a budget of their
				// own: the run's keeps a full per-root limit for every
				// root it has not rendered, which would starve them, and
				// stays whole for the report's renders, which are check's.
				o := *s.Renderer
				o.Budget = render.NewBudget(s.Budget, nil)
				run.roots.Open = o.Open
			}
			for _, h := range hints {
				env.warnf("hint: %s", h.Message)
			}
			stdin := false
			for i := range srcs {
				src := &srcs[i]
				var fixed []byte
				var err error
				switch {
				case src.Render != "":
					if err := run.fixRoot(src); err != nil {
						errs = append(errs, err)
					}
					continue
				case src.Data != nil:
					stdin = true
					fixed, err = run.fixStdin(src)
				default:
					fixed, err = run.fixFile(src)
				}
				if err != nil {
					errs = append(errs, err)
					continue
				}
				if fixed != nil {
					src.Data = fixed // the report below is of the fixed text
				}
			}
			for i := range srcs {
				if srcs[i].Render != "" {
					srcs[i].Edited = run.editedIn(&srcs[i]) // the report is of the fixed text
				}
			}
			res, runErrs := analyzer.Run(&s.Linter, s.Run, srcs)
			res.Summary.ConfigFile = s.ConfigName()
			errs = append(errs, runErrs...)
			t := &run.tally
			verb := "fixed"
			if run.diff || run.check {
				verb = "would fix"
			}
			env.warnf("%s %d finding(s) in %d file(s)%s; %d fix(es) skipped", verb, t.applied, t.files, t.unsafeNote(run.safety), t.skipped)
			var errTexts []string
			for _, e := range errs {
				errTexts = append(errTexts, e.Error())
			}
			opts := report.Options{Color: s.Color, SrcRoot: s.WorkDir, ToolVersion: version(), Rules: ruleInfos(s.Linter.Severity, false),
				Width: s.Width, Brief: c.Bool("brief"), Show: s.Show, FailOn: s.FailOn, Errors: errTexts}
			switch {
			case run.format == "json":
				w, finish := io.Writer(env.stderr), func(err error) error { return err }
				if !stdin {
					out, err := openOutput(c, env, srcs)
					if err != nil {
						return err
					}
					w, finish = out.w, out.finish
				}
				if werr := finish(run.writeJSON(w, res, opts)); werr != nil {
					return &exitError{ExitError, "writing the report: " + werr.Error()}
				}
			case run.diff || run.check:
				env.warnf("%s", report.SummaryLine(res))
			case stdin:
				// Standard output holds the fixed text.
				if werr := report.Write(env.stderr, "text", res, opts); werr != nil {
					return &exitError{ExitError, "writing the report: " + werr.Error()}
				}
			default:
				out, err := openOutput(c, env, srcs)
				if err != nil {
					return err
				}
				if werr := out.finish(report.Write(out.w, "text", res, opts)); werr != nil {
					return &exitError{ExitError, "writing the report: " + werr.Error()}
				}
			}
			env.finish(res, errs, s.FailOn)
			if (run.diff || run.check) && t.files > 0 && env.code == ExitOK {
				env.code = ExitFindings // the gate: a fix would change a file
			}
			return nil
		},
	}
}

// fixRun is one run of podlint fix.
type fixRun struct {
	env         *runEnv
	s           *settings.Settings
	safety      finding.FixSafety
	diff, check bool
	format      string
	fixable     func(*finding.Finding) bool // nil: all
	tally       fixTally
	// what the JSON report lists
	applied, skipped []fixEntry
	diffs            strings.Builder
	// roots is the linter that renders roots for their fixes.
	roots analyzer.Linter
	// edited is the text the fixes gave the files of render roots, by
	// absolute path (manifest.Source.Edited): the roots rendered after,
	// and the report, render it.
	edited map[string][]byte
	// disk is the text on disk of each file in edited, for --diff and
	// --check, which leave it there.
	disk map[string][]byte
}

// fixEntry is a fix of the JSON report: one applied, or one skipped and why.
type fixEntry struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	ID     string `json:"id"`
	Name   string `json:"name"`
	Title  string `json:"title"`
	Safety string `json:"safety"`
	Reason string `json:"reason,omitempty"`
}

func newFixEntry(f *finding.Finding, x *finding.Fix, reason string) fixEntry {
	safety := "safe"
	if x.Safety != finding.Safe {
		safety = "unsafe"
	}
	return fixEntry{File: f.File, Line: f.Line, Column: f.Column, ID: f.RuleID, Name: f.RuleName, Title: x.Title, Safety: safety, Reason: reason}
}

// writeJSON writes the JSON report of a run: what was fixed (or would
// be), what was skipped and why, the diff with --diff, and check's JSON
// report of the findings that remain.
func (r *fixRun) writeJSON(w io.Writer, res *finding.Result, opts report.Options) error {
	var rep bytes.Buffer
	if err := report.Write(&rep, "json", res, opts); err != nil {
		return err
	}
	mode := "write"
	switch {
	case r.check:
		mode = "check"
	case r.diff:
		mode = "diff"
	}
	out := struct {
		Mode    string          `json:"mode"`
		Changed int             `json:"filesChanged"`
		Applied []fixEntry      `json:"applied"`
		Skipped []fixEntry      `json:"skipped"`
		Diff    string          `json:"diff,omitempty"`
		Report  json.RawMessage `json:"report"`
	}{mode, r.tally.files, r.applied, r.skipped, r.diffs.String(), rep.Bytes()}
	if out.Applied == nil {
		out.Applied = []fixEntry{}
	}
	if out.Skipped == nil {
		out.Skipped = []fixEntry{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// fixTally counts what a fix run did.
type fixTally struct {
	applied, skipped, files, unsafeLeft int
	changed                             map[string]bool // by absolute path: files counts each once
}

// changedFile counts a file a fix changes, once however many roots (or a
// root and the file itself) change it.
func (t *fixTally) changedFile(path string) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if t.changed == nil {
		t.changed = map[string]bool{}
	}
	if !t.changed[path] {
		t.changed[path] = true
		t.files++
	}
}

func (t *fixTally) unsafeNote(safety finding.FixSafety) string {
	if safety == finding.Safe && t.unsafeLeft > 0 {
		return fmt.Sprintf(" (%d more with --unsafe)", t.unsafeLeft)
	}
	return ""
}

// fixText fixes the text of one file (or of standard input) and records
// what was applied and skipped; nil when nothing changed.
func (r *fixRun) fixText(path string, data []byte, writable bool) (*fix.Result, error) {
	t := &r.tally
	cfg := &r.s.Linter
	res := fix.FileOnly(cfg, path, data, r.safety, r.fixable)
	if r.noteSkipped(res.Skipped, res.Findings) {
		// What --unsafe would fix beyond this run: fixed by the same
		// passes, so that the note is a promise the next run keeps.
		if more := fix.FileOnly(cfg, path, data, finding.Unsafe, r.fixable); len(more.Applied) > len(res.Applied) {
			t.unsafeLeft += len(more.Applied) - len(res.Applied)
		}
	}
	if !res.Changed() {
		return nil, nil
	}
	if !writable && !r.check && !r.diff {
		// Refused before anything is counted or said to be fixed.
		return nil, errReadOnly
	}
	t.changedFile(path)
	r.noteApplied(res.Applied)
	return res, nil
}

// noteSkipped records the fixes a run skipped, and the findings left
// whose fixes it did not try (a rule not selected, a fix only --unsafe
// applies); unsafeOnly says there is one of the latter.
func (r *fixRun) noteSkipped(skipped []fix.Skipped, left []finding.Finding) (unsafeOnly bool) {
	for _, s := range skipped {
		r.tally.skipped++
		r.env.warnf("%s:%d:%d: %s not fixed (%s): %s", s.Finding.File, s.Finding.Line, s.Finding.Column, s.Finding.RuleID, s.Fix.Title, s.Reason)
		r.skipped = append(r.skipped, newFixEntry(&s.Finding, &s.Fix, s.Reason))
	}
	for i := range left {
		f := &left[i]
		x := fix.Choose(f, finding.Unsafe)
		switch {
		case x == nil:
		case r.fixable != nil && !r.fixable(f):
			r.skipped = append(r.skipped, newFixEntry(f, x, "not fixed: the rule is not selected (--select) or is listed in the configuration's fix.never"))
		case r.safety == finding.Safe && fix.Choose(f, finding.Safe) == nil:
			unsafeOnly = true
			r.skipped = append(r.skipped, newFixEntry(f, x, "unsafe: applied only with --unsafe"))
		}
	}
	return unsafeOnly
}

// noteApplied records the fixes a run applied (or would apply).
func (r *fixRun) noteApplied(applied []fix.Applied) {
	r.tally.applied += len(applied)
	for _, a := range applied {
		r.applied = append(r.applied, newFixEntry(&a.Finding, &a.Fix, ""))
		switch {
		case r.check:
			r.env.warnf("%s:%d:%d: %s would be fixed: %s", a.Finding.File, a.Finding.Line, a.Finding.Column, a.Finding.RuleID, a.Fix.Title)
		case !r.diff:
			r.env.warnf("%s:%d:%d: %s fixed: %s", a.Finding.File, a.Finding.Line, a.Finding.Column, a.Finding.RuleID, a.Fix.Title)
		}
	}
}

// editedIn is the text the run's fixes gave files a render of src may
// read: in its folder, or in a kustomization of the run it renders as a
// base (src.Through). The fixes of a root edit only files in its folder,
// and the render child takes at most 1 MiB of edited text, so the edits
// of the other roots of a long run stay out.
func (r *fixRun) editedIn(src *manifest.Source) map[string][]byte {
	var out map[string][]byte
	for abs, text := range r.edited {
		for _, dir := range append([]string{src.Path}, src.Through...) {
			if rel, err := filepath.Rel(absPath(dir), abs); err == nil && filepath.IsLocal(rel) {
				if out == nil {
					out = map[string][]byte{}
				}
				out[abs] = text
				break
			}
		}
	}
	return out
}

// fixRoot fixes a Helm chart or kustomization: the fixes move to the
// template lines, values keys and patches that write the values, verified
// by rendering again (fix.Root), and are written to those files (or shown)
// as a file's are. A root with a file that may not be written is refused
// whole, before anything is counted.
func (r *fixRun) fixRoot(src *manifest.Source) error {
	s := *src
	s.Edited = r.editedIn(src)
	res, err := fix.Root(&r.roots, s, r.safety, r.fixable)
	if err != nil {
		// A root podlint cannot render at all: the report renders it
		// again and says why, once.
		return nil
	}
	r.noteSkipped(res.Skipped, res.Findings)
	if len(res.Changed) == 0 {
		return nil
	}
	infos := make([]fs.FileInfo, len(res.Changed))
	for i, c := range res.Changed {
		fi, err := os.Lstat(c.Path)
		switch {
		case err != nil:
			return fmt.Errorf("%s: %v", c.Path, settings.UnwrapPathErr(err))
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s: a symbolic link; not edited (fix the file it points to)", c.Path)
		case !fi.Mode().IsRegular():
			return fmt.Errorf("%s: not a regular file; not edited", c.Path)
		case !r.check && !r.diff && !mayWrite(c.Path, fi):
			return fmt.Errorf("%s: read-only (mode %04o); the fixes of %s were not applied: podlint fix does not replace a file you may not write (make it writable, or see the changes with --diff)", c.Path, fi.Mode().Perm(), src.Path)
		}
		// The fixes were computed on the text rendering read (inside the
		// repository): the file must still hold it.
		want, ok := r.disk[c.Abs]
		if !ok {
			want = c.Before
		}
		now, _, err := manifest.Source{Path: c.Path, Root: src.Root}.Read(r.s.Linter.Limits.MaxFileSize)
		if err != nil || !bytes.Equal(now, want) {
			return fmt.Errorf("%s: changed while %s was being fixed; not fixed", c.Path, src.Path)
		}
		infos[i] = fi
	}
	for _, c := range res.Changed {
		r.tally.changedFile(c.Abs)
	}
	r.noteApplied(res.Applied)
	if r.edited == nil {
		r.edited = map[string][]byte{}
	}
	maps.Copy(r.edited, res.Edited)
	if r.disk == nil {
		r.disk = map[string][]byte{}
	}
	for i, c := range res.Changed {
		if _, ok := r.disk[c.Abs]; !ok && (r.check || r.diff) {
			r.disk[c.Abs] = c.Before
		}
		switch {
		case r.check:
		case r.diff:
			if err := r.showDiff(c.Path, c.Before, c.After); err != nil {
				return err
			}
		default:
			if err := writeAtomic(c.Path, c.After, infos[i]); err != nil {
				return fmt.Errorf("%s: not written: %v", c.Path, err)
			}
		}
	}
	return nil
}

// errReadOnly is fixText's answer for a file that would change but that
// the user may not write.
var errReadOnly = errors.New("read-only")

// showDiff prints (or, for the JSON report, keeps) the diff of a file.
func (r *fixRun) showDiff(path string, old, new []byte) error {
	// The name is escaped as in every other output: a file named
	// "x\n+++ b/y" or holding ESC or U+202E must not forge a diff line, a
	// workflow command or a terminal sequence.
	d := fix.Diff(textsafe.Escape(strings.TrimPrefix(filepath.ToSlash(path), "/")), old, new)
	if r.format == "json" {
		r.diffs.WriteString(d)
		return nil
	}
	_, err := io.WriteString(r.env.stdout, d)
	return err
}

// fixStdin fixes standard input and writes the fixed text (or its diff,
// or nothing with --check) to standard output, unchanged when there is
// nothing to fix: an editor or formatter that pipes a buffer through
// podlint fix - gets the buffer back.
func (r *fixRun) fixStdin(src *manifest.Source) ([]byte, error) {
	res, _ := r.fixText(src.Path, src.Data, true) // standard input is never rewritten
	fixed := src.Data
	if res != nil {
		fixed = res.Data
	}
	var err error
	switch {
	case r.check:
	case r.diff:
		if res != nil {
			err = r.showDiff(src.Path, src.Data, fixed)
		}
	default:
		_, err = r.env.stdout.Write(fixed)
	}
	if err != nil {
		return nil, fmt.Errorf("writing the fixed text: %v", err)
	}
	if res == nil {
		return nil, nil
	}
	return fixed, nil
}

// fixFile fixes one file and writes it (or its diff). It returns the fixed
// bytes, or nil when nothing changed.
func (r *fixRun) fixFile(src *manifest.Source) ([]byte, error) {
	env := r.env
	fi, err := os.Lstat(src.Path)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %v", src.Path, settings.UnwrapPathErr(err))
	case fi.Mode()&fs.ModeSymlink != 0:
		env.warnf("%s: a symbolic link; not edited (fix the file it points to)", src.Path)
		return nil, nil
	case !fi.Mode().IsRegular():
		return nil, nil
	}
	data, tooBig, err := src.Read(r.s.Linter.Limits.MaxFileSize)
	if err != nil || tooBig {
		return nil, err // too big: check's run reports it
	}
	res, err := r.fixText(src.Path, data, mayWrite(src.Path, fi))
	if errors.Is(err, errReadOnly) {
		// Replacing it by a rename would succeed (the folder is
		// writable), but a read-only file says it is not to be changed.
		return nil, fmt.Errorf("%s: read-only (mode %04o); not fixed: podlint fix does not replace a file you may not write (make it writable, or see the changes with --diff)", src.Path, fi.Mode().Perm())
	}
	if res == nil {
		return nil, nil
	}
	switch {
	case r.check:
		return res.Data, nil
	case r.diff:
		if err := r.showDiff(src.Path, data, res.Data); err != nil {
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
		return settings.UnwrapPathErr(err)
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

// sourceBytes returns what reads the file of a finding again as the run
// read it, for fix.VerifyResult.
func sourceBytes(cfg *analyzer.Linter, srcs []manifest.Source) func(path string) ([]byte, error) {
	byPath := map[string]*manifest.Source{}
	for i := range srcs {
		if srcs[i].Render == "" {
			byPath[srcs[i].Path] = &srcs[i]
		}
	}
	return func(path string) ([]byte, error) {
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
	}
}
