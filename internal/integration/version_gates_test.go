package integration

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/report/plot"
	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/timeline"
)

// firstModelledMinor is the oldest minor the version table covers.
const firstModelledMinor = 21

// gateRow is one row of the table under docs/semantics.md#version-gates.
type gateRow struct {
	line     int
	what     string
	method   string         // timeline.Version method, "" for "—"
	defaults map[int]string // minor → default
}

// transitions are the minors whose default differs from the minor before.
func (r gateRow) transitions() []int {
	var out []int
	for m := firstModelledMinor + 1; m <= timeline.Latest.Minor; m++ {
		if r.defaults[m] != r.defaults[m-1] {
			out = append(out, m)
		}
	}
	return out
}

var (
	gateSegment = regexp.MustCompile(`^1\.(\d+)(?:–1\.(\d+)|(\+))? (\S+)$`)
	codeSpan    = regexp.MustCompile("^`([A-Za-z]+)`$")
)

// parseGateTable reads the version table. Its default column is a list of
// "1.A–1.B value", "1.A value" and a last "1.A+ value", which must cover
// every minor from 1.21 on without a gap.
func parseGateTable(t *testing.T) []gateRow {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), filepath.FromSlash(semanticsDoc)))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	start := slices.Index(lines, `<a id="version-gates"></a>`)
	if start < 0 {
		t.Fatalf("%s has no version-gates anchor", semanticsDoc)
	}
	header := -1
	for i := start; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "| behaviour | gate | alpha | beta | GA | default per minor | podlint | upstream |") {
			header = i
			break
		}
	}
	if header < 0 {
		t.Fatalf("%s#version-gates: no table with the columns behaviour, gate, alpha, beta, GA, default per minor, podlint, upstream", semanticsDoc)
	}
	var rows []gateRow
	for i := header + 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
		cells := strings.Split(strings.Trim(lines[i], "|"), " | ")
		if len(cells) != 8 {
			t.Errorf("%s:%d: %d cells, want 8", semanticsDoc, i+1, len(cells))
			continue
		}
		r := gateRow{line: i + 1, what: strings.TrimSpace(cells[0]), defaults: map[int]string{}}
		if m := codeSpan.FindStringSubmatch(strings.TrimSpace(cells[6])); m != nil {
			r.method = m[1]
		} else if strings.TrimSpace(cells[6]) != "—" {
			t.Errorf("%s:%d: podlint column %q is neither `Method` nor —", semanticsDoc, i+1, cells[6])
		}
		next, open := firstModelledMinor, false
		for _, seg := range strings.Split(strings.TrimSpace(cells[5]), "; ") {
			m := gateSegment.FindStringSubmatch(seg)
			if m == nil || open {
				t.Errorf("%s:%d: default %q: want segments such as \"1.21–1.27 off; 1.28 absent; 1.29+ on\", the last open-ended", semanticsDoc, i+1, cells[5])
				break
			}
			from, _ := strconv.Atoi(m[1])
			to := from
			if m[2] != "" {
				to, _ = strconv.Atoi(m[2])
			}
			if open = m[3] != ""; open {
				to = timeline.Latest.Minor
			}
			if from != next || to < from {
				t.Errorf("%s:%d: default %q: segment %q should start at 1.%d", semanticsDoc, i+1, cells[5], seg, next)
			}
			for minor := from; minor <= to; minor++ {
				r.defaults[minor] = m[4]
			}
			next = to + 1
		}
		if !open {
			t.Errorf("%s:%d: default %q does not end with an open segment (1.N+ value)", semanticsDoc, i+1, cells[5])
		}
		rows = append(rows, r)
	}
	if len(rows) < 10 {
		t.Fatalf("%s#version-gates: only %d rows", semanticsDoc, len(rows))
	}
	return rows
}

// answer is what a Version method says, in the table's words.
func answer(v timeline.Version, method string) (string, error) {
	m := reflect.ValueOf(v).MethodByName(method)
	if !m.IsValid() {
		return "", fmt.Errorf("timeline.Version has no method %s", method)
	}
	if m.Type().NumIn() != 0 || m.Type().NumOut() != 1 {
		return "", fmt.Errorf("timeline.Version.%s must take nothing and return one value", method)
	}
	switch out := m.Call(nil)[0].Interface().(type) {
	case bool:
		if out {
			return "on", nil
		}
		return "off", nil
	case timeline.Stage:
		return out.String(), nil
	case float64:
		return strconv.FormatFloat(out, 'f', -1, 64), nil
	default:
		return "", fmt.Errorf("timeline.Version.%s returns %T", method, out)
	}
}

// derived are Version methods that restate a Stage method of the table.
var derived = map[string]string{
	"Sidecars":              "SidecarContainers",
	"SleepAction":           "PodLifecycleSleepAction",
	"ContainerRestartRules": "ContainerRestartFields",
	"FailIndexAction":       "JobBackoffLimitPerIndex",
}

// TestVersionGates holds the version table of docs/semantics.md and the
// model to each other: (a) every timeline.Version method answers, for every
// minor from 1.21 to timeline.Latest, the table's default, and every such
// method is in the table; (b) walking the minors over the shipped examples
// and testdata/versions, the timelines and findings change only at the
// table's transitions, and every transition of a modelled row changes the
// output of an example that says (# gates:) it shows that row.
func TestVersionGates(t *testing.T) {
	rows := parseGateTable(t)
	byMethod := map[string]gateRow{}
	for _, r := range rows {
		if r.method == "" {
			continue
		}
		if _, dup := byMethod[r.method]; dup {
			t.Errorf("%s:%d: method %s in two rows", semanticsDoc, r.line, r.method)
		}
		byMethod[r.method] = r
	}

	t.Run("methods", func(t *testing.T) {
		for _, r := range byMethod {
			for minor := firstModelledMinor; minor <= timeline.Latest.Minor; minor++ {
				v := timeline.Version{Major: 1, Minor: minor}
				got, err := answer(v, r.method)
				if err != nil {
					t.Errorf("%s:%d: %v", semanticsDoc, r.line, err)
					break
				}
				if got != r.defaults[minor] {
					t.Errorf("%s:%d: %s on %s is %s, the table says %s", semanticsDoc, r.line, r.method, v, got, r.defaults[minor])
				}
			}
		}
		// Every gate-like method is in the table, or restates one that is.
		typ := reflect.TypeOf(timeline.Version{})
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			if m.Type.NumIn() != 1 || m.Type.NumOut() != 1 {
				continue // AtLeast
			}
			switch m.Type.Out(0) {
			case reflect.TypeOf(true), reflect.TypeOf(timeline.Stage(0)), reflect.TypeOf(0.0):
			default:
				continue // String
			}
			if _, ok := byMethod[m.Name]; ok {
				continue
			}
			base, ok := derived[m.Name]
			if !ok {
				t.Errorf("timeline.Version.%s is version-dependent behaviour missing from %s#version-gates", m.Name, semanticsDoc)
				continue
			}
			for minor := firstModelledMinor; minor <= timeline.Latest.Minor; minor++ {
				v := timeline.Version{Major: 1, Minor: minor}
				a, _ := answer(v, m.Name)
				b, _ := answer(v, base)
				if (a == "on") != (b == "on") {
					t.Errorf("%s on %s is %s but %s is %s", m.Name, v, a, base, b)
				}
			}
		}
	})

	t.Run("examples", func(t *testing.T) {
		root := repoRoot(t)
		all := map[int]bool{}
		for _, r := range rows {
			for _, m := range r.transitions() {
				all[m] = true
			}
		}
		witnessed := map[string]map[int]bool{}
		shipped, _ := filepath.Glob(filepath.Join(root, "testdata", "examples", "*.yaml"))
		dedicated, _ := filepath.Glob(filepath.Join(root, "internal", "integration", "testdata", "versions", "*.yaml"))
		if len(shipped) == 0 || len(dedicated) == 0 {
			t.Fatalf("no examples: %d shipped, %d in testdata/versions", len(shipped), len(dedicated))
		}
		for _, file := range append(shipped, dedicated...) {
			rel, _ := filepath.Rel(root, file)
			rel = filepath.ToSlash(rel)
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			gates, params := exampleSetup(t, rel, data, byMethod)
			allowed := all
			if gates != nil {
				allowed = map[int]bool{}
				for _, g := range gates {
					for _, m := range byMethod[g].transitions() {
						allowed[m] = true
					}
				}
			}
			changes := changeMinors(t, rel, data, params)
			for _, m := range changes {
				if !allowed[m] {
					t.Errorf("%s: output changes on 1.%d, which is no transition of %s in %s#version-gates", rel, m, describeGates(gates), semanticsDoc)
				}
			}
			t.Logf("%s: changes on %v", rel, changes)
			for _, g := range gates {
				if witnessed[g] == nil {
					witnessed[g] = map[int]bool{}
				}
				for _, m := range changes {
					witnessed[g][m] = true
				}
			}
		}
		for _, r := range byMethod {
			for _, m := range r.transitions() {
				if !witnessed[r.method][m] {
					t.Errorf("%s:%d: %s changes on 1.%d, but no example of testdata/versions marked \"# gates: %s\" changes there", semanticsDoc, r.line, r.method, m, r.method)
				}
			}
		}
	})
}

func describeGates(gates []string) string {
	if gates == nil {
		return "any row"
	}
	return strings.Join(gates, ", ")
}

var (
	gatesLine  = regexp.MustCompile(`(?m)^# gates: (.+)$`)
	paramsLine = regexp.MustCompile(`(?m)^# params: (.+)$`)
)

// exampleSetup reads "# gates: A, B" (the rows the example shows; nil for
// the shipped examples, which may change at any transition) and
// "# params: crash-loop-max=30".
func exampleSetup(t *testing.T, name string, data []byte, byMethod map[string]gateRow) ([]string, timeline.Params) {
	t.Helper()
	p := timeline.DefaultParams()
	var gates []string
	if m := gatesLine.FindSubmatch(data); m != nil {
		for _, g := range strings.Split(string(m[1]), ",") {
			g = strings.TrimSpace(g)
			if _, ok := byMethod[g]; !ok {
				t.Errorf("%s: # gates names %q, no podlint method of %s#version-gates", name, g, semanticsDoc)
			}
			gates = append(gates, g)
		}
	} else if strings.Contains(name, "/versions/") {
		t.Errorf("%s: no # gates: line", name)
	}
	if m := paramsLine.FindSubmatch(data); m != nil {
		for _, kv := range strings.Fields(string(m[1])) {
			k, val, _ := strings.Cut(kv, "=")
			s, err := timeline.ParseSeconds(val)
			if err != nil || k != "crash-loop-max" {
				t.Fatalf("%s: bad # params %q", name, kv)
			}
			p.CrashLoopMax = s
		}
	}
	return gates, p
}

// changeMinors lists the minors whose findings or timelines differ from
// the minor before.
func changeMinors(t *testing.T, name string, data []byte, p timeline.Params) []int {
	t.Helper()
	var out []int
	prev := ""
	for minor := firstModelledMinor; minor <= timeline.Latest.Minor; minor++ {
		v := timeline.Version{Major: 1, Minor: minor}
		got := versionOutput(t, name, data, v, p)
		if minor > firstModelledMinor && got != prev {
			out = append(out, minor)
		}
		prev = got
	}
	return out
}

// versionOutput is everything podlint says about a file on one minor: its
// findings (default rule set) and the JSON timeline of each workload, with
// the minor itself written as "<minor>" so that naming it is no change.
func versionOutput(t *testing.T, name string, data []byte, v timeline.Version, p timeline.Params) string {
	t.Helper()
	cfg := analyzer.Default(analyzer.Enable(rules.All...))
	cfg.Version, cfg.Params = v, p
	res, errs := analyzer.Run(cfg, analyzer.Options{Workers: 1}, []manifest.Source{{Path: name, Data: data}})
	if len(errs) > 0 {
		t.Fatalf("%s: %v", name, errs)
	}
	var b strings.Builder
	fs := append([]finding.Finding(nil), res.List()...)
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Line < fs[j].Line })
	for _, f := range fs {
		fmt.Fprintf(&b, "%s %d:%d %s | %s\n", f.RuleID, f.Line, f.Column, f.Message, f.Detail)
	}
	var items []plot.Item
	for _, o := range manifest.Parse(name, data, manifest.DefaultLimits).Objects {
		if o.Workload != nil {
			items = append(items, plot.Item{File: name, Kind: o.Ref.Kind, Name: o.Ref.Name, Timeline: timeline.Compute(o.Workload, v, p)})
		}
	}
	var js bytes.Buffer
	if err := plot.JSON(&js, items); err != nil {
		t.Fatal(err)
	}
	b.Write(js.Bytes())
	minor := regexp.MustCompile(`(^|[^0-9.])` + regexp.QuoteMeta(v.String()) + `([^0-9]|$)`)
	return minor.ReplaceAllString(b.String(), "${1}<minor>${2}")
}
