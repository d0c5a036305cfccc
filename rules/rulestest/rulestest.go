// Package rulestest runs podlint's rules over test manifests whose comments
// say which findings they expect, as golang.org/x/tools/go/analysis/analysistest
// does for Go analyzers: every finding must be expected by a want comment,
// and every want must be met by a finding.
//
// A want comment expects a finding on its line:
//
//	# want <ID-or-name>[:COL] "regexp" [<ID-or-name>[:COL] "regexp" …]
//	# want +N …   (or -N: the finding is N lines below / above)
//	# want <ID>[:COL] "regexp" # want …   (the same as one want comment)
//
// `# want PL101:9 "liveness"` expects a finding of rule PL101 at column 9
// of the line (columns count bytes from 1, as podlint prints them) whose
// headline, detail, both joined by a space, or "SEVERITY: headline detail"
// match the regexp (so "^info: " pins a finding a rule reports below its
// severity); without :COL any column of the line matches. A rule is named
// by the ID or name it has in the Linter's catalog.
//
// A line `# podlint-test: kube-version=1.28 enable=PL010` sets up the run
// of its file (Run): kube-version, enable (a comma-separated list of rules
// to run as well), nodes, expected-startup (pattern=duration,…),
// start-time and observed (a profile of podlint observe, relative to the
// file, judged on 2 December 2026 so that it never turns stale).
//
// The fast loop of a rule is `go test ./rules -run TestRules/<ID>`.
//
// It makes no API promise: it is podlint's own test harness.
package rulestest

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/observe"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/timeline"
)

// TB is what the harness needs of a *testing.T: a test of the harness
// passes a fake that records the errors. The harness never stops the test;
// after a malformed want or setup line it skips the rest of that file.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
}

// Want is one expectation of a want comment.
type Want struct {
	File   string
	Line   int // the line the finding is on (the comment's, moved by +N or -N)
	Column int // 0: any column of the line
	Rule   *rules.Rule
	Regexp *regexp.Regexp
	// Text is the want as written, for messages.
	Text string
}

// Result is what Run did with one file.
type Result struct {
	File string
	Data []byte
	// Linter is the Linter the file ran with: Run's, changed by the file's
	// podlint-test line.
	Linter   *analyzer.Linter
	Findings []finding.Finding
	Wants    []Want
}

// Run lints each file as a run of its own (Linter.File, the file named by
// the user) with l, changed by the file's podlint-test line, and checks
// its findings against its wants: a finding that no want expects and a
// want that no finding meets are errors of t. It returns a Result for each
// file it could read and set up.
func Run(t TB, l *analyzer.Linter, files ...string) []*Result {
	t.Helper()
	var out []*Result
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		fl, err := setup(l, path, data)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		wants, err := Parse(fl.Rules, path, data)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		found, _ := fl.File(path, data, true)
		Check(t, found, wants)
		out = append(out, &Result{File: path, Data: data, Linter: fl, Findings: found, Wants: wants})
	}
	return out
}

// RunSource lints src with l as `podlint check` would (analyzer.Run; a
// source with Render set is rendered by l.Open) and checks the findings
// against the wants of every file under src.Path: a Helm chart's
// templates, values and named templates, or a kustomization's files. It
// returns the findings.
func RunSource(t TB, l *analyzer.Linter, src manifest.Source) []finding.Finding {
	t.Helper()
	res, errs := analyzer.Run(l, analyzer.Options{}, []manifest.Source{src})
	for _, err := range errs {
		t.Errorf("%v", err)
	}
	var wants []Want
	err := filepath.WalkDir(src.Path, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		w, err := Parse(l.Rules, p, data)
		wants = append(wants, w...)
		return err
	})
	if err != nil {
		t.Errorf("%v", err)
		return nil
	}
	if len(wants) == 0 {
		t.Errorf("%s: no want comment: a source that must stay silent is a test of its own", src.Path)
	}
	found := res.List()
	Check(t, found, wants)
	return found
}

var (
	wantComment = regexp.MustCompile(`#\s*want\s+(.*)$`)
	wantItem    = regexp.MustCompile(`^(?:([+-]\d+)\s+)?([^\s:]+)(?::(\d+))?\s+"((?:[^"\\]|\\.)*)"\s*`)
	wantAgain   = regexp.MustCompile(`^#\s*want\s+`)
	setupLine   = regexp.MustCompile(`#\s*podlint-test:\s*(.*)$`)
)

// Parse returns the wants of a file's want comments, naming rules of
// catalog; an error names the line of a malformed want.
func Parse(catalog rules.List, path string, data []byte) ([]Want, error) {
	var wants []Want
	for i, line := range strings.Split(string(data), "\n") {
		m := wantComment.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for rest := m[1]; strings.TrimSpace(rest) != ""; {
			if again := wantAgain.FindString(rest); again != "" {
				rest = rest[len(again):]
				continue
			}
			im := wantItem.FindStringSubmatch(rest)
			if im == nil {
				return nil, fmt.Errorf("%s:%d: malformed want %q (want: # want [+N] RULE[:COL] \"regexp\")", path, i+1, rest)
			}
			rest = rest[len(im[0]):]
			w := Want{File: path, Line: i + 1, Rule: catalog.Lookup(im[2]), Text: strings.TrimSpace(im[0])}
			if w.Rule == nil {
				return nil, fmt.Errorf("%s:%d: want names unknown rule %q", path, i+1, im[2])
			}
			if im[1] != "" {
				off, _ := strconv.Atoi(im[1])
				w.Line += off
			}
			if im[3] != "" {
				col, err := strconv.Atoi(im[3])
				if err != nil || col < 1 {
					return nil, fmt.Errorf("%s:%d: bad column %q in want", path, i+1, im[3])
				}
				w.Column = col
			}
			pattern, err := strconv.Unquote(`"` + im[4] + `"`)
			if err != nil {
				pattern = im[4]
			}
			if w.Regexp, err = regexp.Compile(pattern); err != nil {
				return nil, fmt.Errorf("%s:%d: bad regexp in want: %v", path, i+1, err)
			}
			wants = append(wants, w)
		}
	}
	return wants, nil
}

// Check matches the findings against the wants: each finding takes the
// first want it meets that no finding took yet. A finding left over and a
// want left over are errors of t.
func Check(t TB, found []finding.Finding, wants []Want) {
	t.Helper()
	hit := make([]bool, len(wants))
	for i := range found {
		f := &found[i]
		matched := false
		for j := range wants {
			if !hit[j] && wants[j].meets(f) {
				hit[j], matched = true, true
				break
			}
		}
		if !matched {
			t.Errorf("%s:%d:%d: unexpected finding %s (%s): %s", f.File, f.Line, f.Column, f.RuleID, f.RuleName, f.Message)
		}
	}
	for j, w := range wants {
		if !hit[j] {
			t.Errorf("%s:%d: no finding matched want %s", w.File, w.Line, w.Text)
		}
	}
}

// meets reports whether f is the finding w expects.
func (w *Want) meets(f *finding.Finding) bool {
	if f.File != w.File || f.Line != w.Line || (w.Column != 0 && f.Column != w.Column) || f.RuleID != w.Rule.ID {
		return false
	}
	re := w.Regexp
	return re.MatchString(f.Message) || re.MatchString(f.Detail) || re.MatchString(f.Message+" "+f.Detail) ||
		re.MatchString(f.Severity.String()+": "+f.Message+" "+f.Detail)
}

// setup returns l changed by the podlint-test line of a file (l itself
// when it has none).
func setup(l *analyzer.Linter, path string, data []byte) (*analyzer.Linter, error) {
	var c *analyzer.Linter
	for i, line := range strings.Split(string(data), "\n") {
		m := setupLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if c == nil {
			cp := *l
			cp.Severity = maps.Clone(l.Severity)
			c = &cp
		}
		for _, kv := range strings.Fields(m[1]) {
			if err := set(c, path, kv); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, i+1, err)
			}
		}
	}
	if c == nil {
		return l, nil
	}
	return c, nil
}

// observedOn is the day observed profiles are judged on: fixed, so that a
// test profile never turns stale.
var observedOn = time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)

// set applies one key=value of a podlint-test line.
func set(c *analyzer.Linter, path, kv string) error {
	k, v, _ := strings.Cut(kv, "=")
	var err error
	switch k {
	case "kube-version":
		c.Version, err = timeline.ParseVersion(v)
	case "enable":
		for _, name := range strings.Split(v, ",") {
			r := c.Rules.Lookup(name)
			if r == nil {
				return fmt.Errorf("unknown rule %q", name)
			}
			c.Severity[r] = r.Severity
		}
	case "nodes":
		c.Params.Nodes, err = strconv.Atoi(v)
	case "expected-startup":
		c.Params.ExpectedStartup, err = timeline.ParseExpectations(v)
	case "start-time":
		var s float64
		s, err = timeline.ParseSeconds(v)
		c.Params.AppStart = timeline.Seconds(s)
	case "observed":
		var data []byte
		if data, err = os.ReadFile(filepath.Join(filepath.Dir(path), v)); err == nil {
			c.Params.Observed, err = observe.Expectations(data, v, observedOn)
		}
	default:
		return fmt.Errorf("unknown podlint-test setting %q", k)
	}
	if err != nil {
		return fmt.Errorf("%s: %v", k, err)
	}
	return nil
}
