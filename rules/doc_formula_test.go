package rules_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/timeline"
)

// TestPL101FormulaIsTheFindings: the kill window the rule page gives as a
// formula is the window the findings state, for probes of several shapes,
// so that a reader who re-derives a finding's numbers from the page gets
// the same ones (the page once left out the start-time truncation and gave
// 35s for the README's example, where the finding said 34s).
func TestPL101FormulaIsTheFindings(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("doc", "PL101.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^    \[(.+),  (.+)\)$`).FindSubmatch(doc)
	if m == nil {
		t.Fatal("rules/doc/PL101.md has no indented [EARLIEST,  LATEST) formula")
	}
	earliest, latest := string(m[1]), string(m[2])
	cfg := analyzer.Default(analyzer.Only(rules.LivenessKillsBeforeReady))
	window := regexp.MustCompile(`kills "app" (\S+)–(\S+) after start`)
	for _, p := range []struct{ d, period, ft float64 }{{15, 10, 3}, {0, 5, 3}, {1, 10, 1}, {40, 3, 5}, {7, 1, 30}} {
		pod := fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations: {podlint.dev/expected-startup: 1h}\nspec:\n  containers:\n    - name: app\n      image: busybox\n      livenessProbe:\n        httpGet: {path: /, port: 80}\n        initialDelaySeconds: %g\n        periodSeconds: %g\n        failureThreshold: %g\n", p.d, p.period, p.ft)
		fs, _ := cfg.File("p.yaml", []byte(pod), false)
		var got []string
		for _, f := range fs {
			if f.RuleID == rules.LivenessKillsBeforeReady.ID {
				got = window.FindStringSubmatch(f.Message)
			}
		}
		if got == nil {
			t.Errorf("%+v: no PL101 finding with a kill window: %v", p, fs)
			continue
		}
		vars := map[string]float64{"D": p.d, "P": p.period, "FT": p.ft, "ε": timeline.DefaultParams().Epsilon}
		for i, expr := range []string{earliest, latest} {
			want, err := evalFormula(expr, vars)
			if err != nil {
				t.Fatalf("formula %q: %v", expr, err)
			}
			d, err := time.ParseDuration(got[i+1])
			if err != nil {
				t.Fatal(err)
			}
			if d.Seconds() != want {
				t.Errorf("%+v: the page's %q gives %gs, the finding says %s", p, expr, want, got[i+1])
			}
		}
	}
}

// evalFormula evaluates a rule page's arithmetic: numbers (with an s for
// seconds), the variables given, +, −, ·, parentheses and max.
func evalFormula(expr string, vars map[string]float64) (float64, error) {
	r := strings.NewReplacer("−", "-", "·", "*", "ε", "eps")
	src := regexp.MustCompile(`([0-9])s\b`).ReplaceAllString(r.Replace(expr), "$1")
	e, err := parser.ParseExpr(src)
	if err != nil {
		return 0, err
	}
	var eval func(ast.Expr) (float64, error)
	eval = func(e ast.Expr) (float64, error) {
		switch e := e.(type) {
		case *ast.BasicLit:
			return strconv.ParseFloat(e.Value, 64)
		case *ast.Ident:
			name := e.Name
			if name == "eps" {
				name = "ε"
			}
			v, ok := vars[name]
			if !ok {
				return 0, fmt.Errorf("unknown variable %s", e.Name)
			}
			return v, nil
		case *ast.ParenExpr:
			return eval(e.X)
		case *ast.BinaryExpr:
			a, err := eval(e.X)
			if err != nil {
				return 0, err
			}
			b, err := eval(e.Y)
			if err != nil {
				return 0, err
			}
			switch e.Op {
			case token.ADD:
				return a + b, nil
			case token.SUB:
				return a - b, nil
			case token.MUL:
				return a * b, nil
			}
		case *ast.CallExpr:
			if fn, ok := e.Fun.(*ast.Ident); ok && fn.Name == "max" && len(e.Args) > 0 {
				best, err := eval(e.Args[0])
				for _, a := range e.Args[1:] {
					v, err2 := eval(a)
					if err2 != nil {
						return 0, err2
					}
					best = max(best, v)
				}
				return best, err
			}
		}
		return 0, fmt.Errorf("cannot evaluate %T", e)
	}
	return eval(e)
}

// TestPL101ConsequenceIsTheSchedule: when PL101 says a container is killed
// before it can have started, its consequence states how the restarts
// then go, in the numbers and words of the timeline's schedule for a
// container unhealthy at every start (livenessProbe.unhealthyRestarts):
// each run is the kill window, and the waits rise and fall for the reason
// the timeline gives. Under restartPolicy Never there is no schedule.
func TestPL101ConsequenceIsTheSchedule(t *testing.T) {
	cfg := analyzer.Default(analyzer.Only(rules.LivenessKillsBeforeReady))
	for _, tc := range []struct {
		d, period, ft float64
		policy        string
		restarts      bool
	}{{15, 10, 3, "Always", true}, {0, 1, 2, "Always", true}, {40, 3, 5, "OnFailure", true}, {0, 5, 3, "Never", false}} {
		pod := fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations: {podlint.dev/expected-startup: 1h}\nspec:\n  restartPolicy: %s\n  containers:\n    - name: app\n      image: busybox\n      livenessProbe:\n        httpGet: {path: /, port: 80}\n        initialDelaySeconds: %g\n        periodSeconds: %g\n        failureThreshold: %g\n", tc.policy, tc.d, tc.period, tc.ft)
		res := manifest.Parse("p.yaml", []byte(pod), manifest.DefaultLimits)
		if len(res.Objects) != 1 || res.Objects[0].Workload == nil {
			t.Fatalf("%+v: no workload", tc)
		}
		lp := timeline.Compute(res.Objects[0].Workload, timeline.Latest, timeline.DefaultParams()).Container("app").Liveness
		fs, _ := cfg.File("p.yaml", []byte(pod), false)
		var detail string
		for _, f := range fs {
			if f.RuleID == rules.LivenessKillsBeforeReady.ID {
				detail = strings.Join(strings.Fields(f.Detail), " ")
			}
		}
		if detail == "" {
			t.Errorf("%+v: no PL101 finding: %v", tc, fs)
			continue
		}
		if !tc.restarts {
			if strings.Contains(detail, "restarts wait") || !strings.Contains(detail, "not restarted") {
				t.Errorf("%+v: %q, want no restart schedule", tc, detail)
			}
			continue
		}
		want := fmt.Sprintf("each run lasts %s from start to exit and the restarts wait %s; %s",
			timeline.FormatWait(lp.NextStart.Interval), timeline.RestartWaits(lp.UnhealthyRestarts), timeline.ProbeKillRestartRule)
		if want = strings.Join(strings.Fields(want), " "); !strings.Contains(detail, want) {
			t.Errorf("%+v:\n%s\nwant it to say\n%s", tc, detail, want)
		}
	}
}
