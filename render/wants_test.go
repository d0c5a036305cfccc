package render

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/rules/rulestest"
)

// TestChartWants lints charts whose templates carry `# want RULE:COL
// "regexp"` comments, as the rules' testdata do (rulestest.RunSource): each
// want expects a finding of RULE at that line and column of that file (a
// template or a named template's file); an unexpected finding and an
// unmatched want both fail. The charts are those whose positions took more
// than a line-by-line match: a container after one an {{ if }} turns off,
// and a Pod template written by a named template.
func TestChartWants(t *testing.T) {
	for _, chart := range []string{"disabled-first", "named-template", "grafana-pod", "traefik-podtemplate"} {
		t.Run(chart, func(t *testing.T) {
			// PL601, opt-in, reports at each Pod template's first
			// container: the position these charts test.
			l := analyzer.Default(analyzer.Enable(rules.BestEffortQoS))
			l.Open = (&Options{}).Open
			rulestest.RunSource(t, l, manifest.Source{Path: filepath.Join("testdata", "helm", chart), Render: manifest.RenderHelm})
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
	cfg := analyzer.Default(analyzer.Enable(rules.All...))
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
