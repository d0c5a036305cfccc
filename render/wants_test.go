package render

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/timeline"
)

var chartWant = regexp.MustCompile(`#\s*want\s+(PL\d+):(\d+)\s+"((?:[^"\\]|\\.)*)"`)

// TestChartWants lints charts whose templates carry `# want RULE:COL
// "regexp"` comments, as the rules' testdata do: each want expects a
// finding of RULE at that line and column of that file (a template or a
// named template's file), whose headline or detail matches; an unexpected
// finding and an unmatched want both fail. The charts are those whose
// positions took more than a line-by-line match: a container after one an
// {{ if }} turns off, and a Pod template written by a named template.
func TestChartWants(t *testing.T) {
	for _, chart := range []string{"disabled-first", "named-template", "grafana-pod", "traefik-podtemplate"} {
		t.Run(chart, func(t *testing.T) {
			dir := filepath.Join("testdata", "helm", chart)
			sev := map[*rules.Rule]finding.Severity{}
			for _, r := range rules.All {
				// PL601, opt-in, reports at each Pod template's first
				// container: the position these charts test.
				if !r.DefaultOff || r == rules.BestEffortQoS {
					sev[r] = r.Severity
				}
			}
			cfg := &analyzer.Linter{Rules: rules.All, Severity: sev, Version: timeline.Latest, Params: timeline.DefaultParams(), Limits: manifest.DefaultLimits}
			found, _, err := (&Options{}).Lint(cfg, manifest.Source{Path: dir, Render: manifest.RenderHelm})
			if err != nil {
				t.Fatal(err)
			}
			type want struct {
				file      string
				line, col int
				rule      string
				re        *regexp.Regexp
				hit       bool
			}
			var wants []*want
			filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
				if err != nil || e.IsDir() {
					return err
				}
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				for i, l := range strings.Split(string(data), "\n") {
					for _, w := range chartWant.FindAllStringSubmatch(l, -1) {
						col, _ := strconv.Atoi(w[2])
						wants = append(wants, &want{file: p, line: i + 1, col: col, rule: w[1], re: regexp.MustCompile(w[3])})
					}
				}
				return nil
			})
			if len(wants) == 0 {
				t.Fatal("no want in the chart")
			}
		next:
			for _, f := range found {
				for _, w := range wants {
					if !w.hit && w.file == f.File && w.line == f.Line && w.col == f.Column && w.rule == f.RuleID && (w.re.MatchString(f.Message) || w.re.MatchString(f.Detail)) {
						w.hit = true
						continue next
					}
				}
				t.Errorf("%s:%d:%d: unexpected finding %s: %s", f.File, f.Line, f.Column, f.RuleID, f.Message)
			}
			for _, w := range wants {
				if !w.hit {
					t.Errorf("%s:%d: no finding matched want %s:%d %q", w.file, w.line, w.rule, w.col, w.re)
				}
			}
		})
	}
}

// TestNamedTemplateValueLocation: a probe a named template writes with
// toYaml has the values line of the field as related location: grafana's
// _pod.tpl writes {{ toYaml . }} inside {{ with .Values.livenessProbe }}
// (not the readinessProbe the next {{ with }} reads), traefik's
// _podtemplate.tpl writes httpGet and then {{ toYaml .Values.livenessProbe }}
// beside it. A container, found at its first key's line ("- name:",
// "- image: {{ .Values.image.repository }}"), has none.
func TestNamedTemplateValueLocation(t *testing.T) {
	sev := map[*rules.Rule]finding.Severity{}
	for _, r := range rules.All {
		sev[r] = r.Severity
	}
	cfg := &analyzer.Linter{Rules: rules.All, Severity: sev, Version: timeline.Latest, Params: timeline.DefaultParams(), Limits: manifest.DefaultLimits}
	for chart, want := range map[string]map[string]string{
		"grafana-pod": {
			"PL106": ":37:3 value from .Values.livenessProbe.timeoutSeconds",
			"PL103": ":36:3 value from .Values.livenessProbe.initialDelaySeconds",
			"PL601": "",
		},
		"traefik-podtemplate": {
			"PL106": ":18:3 value from .Values.livenessProbe.timeoutSeconds",
			"PL601": "",
		},
	} {
		dir := filepath.Join("testdata", "helm", chart)
		found, _, err := (&Options{}).Lint(cfg, manifest.Source{Path: dir, Render: manifest.RenderHelm})
		if err != nil {
			t.Fatal(err)
		}
		values := filepath.Join(dir, "values.yaml")
		for _, f := range found {
			w, ok := want[f.RuleID]
			if !ok {
				continue
			}
			delete(want, f.RuleID)
			var got []string
			for _, r := range f.Related {
				if r.File == values {
					got = append(got, ":"+strconv.Itoa(r.Line)+":"+strconv.Itoa(r.Column)+" "+r.Message)
				}
			}
			if (w == "" && len(got) != 0) || (w != "" && (len(got) != 1 || got[0] != w)) {
				t.Errorf("%s at %s:%d: locations in %s %q, want %q", f.RuleID, f.File, f.Line, values, got, w)
			}
		}
		for id := range want {
			t.Errorf("%s: no %s finding", chart, id)
		}
	}
}
