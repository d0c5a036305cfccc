package render

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/safefile"
	"github.com/podlint/podlint/internal/textsafe"
	"github.com/podlint/podlint/manifest"
	yaml "go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/strvals"
	sigsyaml "sigs.k8s.io/yaml"
)

// HelmOptions are what `helm template` takes on its command line.
type HelmOptions struct {
	ReleaseName string // default "release-name", as helm template
	Namespace   string // default "default"
	// ConfigValues are values files named in a configuration, which may
	// come with the pull request being checked: they are read, before
	// Values, only inside ConfigRoot, the repository holding the
	// configuration ("" is the chart's Root).
	ConfigValues []string
	ConfigRoot   string
	Values       []string // values files named by the user, read as given; later ones win
	Set          []string // k=v, after the values files
	// KubeVersion is .Capabilities.KubeVersion, "1.30" or "v1.30.0".
	KubeVersion string
	// Root is the repository root every file of the chart must be in
	// (safefile.RepoRoot of the path given); "" is the chart's own.
	Root string
}

// notTrackedProblem is the problem of a chart or kustomization whose own
// file is outside the read set: a new chart nobody has added to git yet.
func notTrackedProblem(file, what string, err error) Problem {
	head := fmt.Sprintf("this %s is not tracked by git, so it was not rendered", what)
	if errors.Is(err, safefile.ErrNoIndex) {
		head = fmt.Sprintf("the repository's git index cannot be read, so this %s was not rendered", what)
	}
	return problem(file, 1, 1, head, "",
		fmt.Sprintf("podlint renders only the files git tracks, so that a pull request's %s cannot read what the CI job keeps in its checkout "+
			"(the token in .git/config, credential files an earlier step wrote). %s Run git add on the %s (git add -N is enough), "+
			"or name untracked files with --read-untracked PATTERN.", what, finding.Sentence(unwrap(err).Error()), what))
}

// Problem is a render failure with its position in a source file.
type Problem = manifest.RenderProblem

// headlineMax is the longest headline a render problem gets: one line of
// a terminal next to its position and rule ID.
const headlineMax = 100

// problem builds a problem from a headline naming what failed, the
// underlying error's text (may be empty) and a detail. The error joins the
// headline when both fit one short sentence; otherwise it opens the detail.
func problem(file string, line, col int, head, cause, detail string) Problem {
	p := Problem{File: file, Line: line, Column: col, Message: head}
	cause = strings.TrimSpace(cause)
	if cause != "" {
		if h := head + ": " + cause; utf8.RuneCountInString(h) <= headlineMax && !strings.ContainsAny(cause, ";\n") && !strings.HasSuffix(cause, ".") {
			p.Message = h
		} else {
			detail = strings.TrimSpace(finding.Sentence(cause) + " " + detail)
		}
	}
	p.Detail = detail
	return p
}

// Rendered is one root's output: documents in the order the tool prints
// them, each with the file it came from.
type Rendered struct {
	Docs     []Doc
	Problems []Problem
	// values files in precedence order (chart values.yaml first), as
	// read for rendering, for related locations.
	valuesFiles []valuesFile
	// notRendered: the run's render budget did not render the root
	// (Budget); Problems says why.
	notRendered bool
}

type valuesFile struct {
	path string
	data []byte
}

// Doc is one rendered document.
type Doc struct {
	// Source is the file that produced it: the chart template (a path on
	// disk) or the kustomize resource file.
	Source string
	// Name is how the tool names it: the template name
	// ("podinfo/templates/deployment.yaml") for Helm.
	Name string
	YAML string
	// Template is the template's text, for Helm documents.
	Template []byte
	// Kustomize documents: the patches that can have set fields of it.
	origin *kOrigin
}

// RenderChart renders the chart in dir as `helm template` does, without
// ever touching the network. Problems are positioned in the chart's files;
// a chart with problems still renders as much as it can.
func RenderChart(dir string, opt HelmOptions) *Rendered {
	out := &Rendered{}
	chartFile := filepath.Join(dir, "Chart.yaml")
	e := linked
	if e == nil {
		out.Problems = append(out.Problems, notLinkedProblem(chartFile))
		return out
	}
	if link, target := linkOutOfTree(dir); link != "" {
		// Helm's loader follows symbolic links wherever they lead: a chart
		// from an untrusted pull request could render a secret file into
		// its output (and so into the report).
		out.Problems = append(out.Problems, problem(link, 1, 1, "chart holds a symbolic link out of the chart, so it was not rendered",
			fmt.Sprintf("%s points to %s", link, target),
			"podlint never reads files outside the chart being rendered. Replace the link with the file itself, or vendor it into the chart."))
		return out
	}
	root, err := safefile.Open(opt.Root, dir)
	if err != nil {
		out.Problems = append(out.Problems, rootProblem(chartFile, err))
		return out
	}
	defer root.Close()
	if err := root.Readable(chartFile); notInReadSet(err) {
		out.Problems = append(out.Problems, notTrackedProblem(chartFile, "chart", err))
		return out
	}
	ch, err := loadChartDir(dir, root)
	if err != nil {
		out.Problems = append(out.Problems, problem(chartFile, 1, 1, "Helm cannot load the chart", err.Error(),
			"Nothing in the chart was linted."))
		return out
	}
	out.valuesFiles = append(out.valuesFiles, valuesFile{filepath.Join(dir, "values.yaml"), rawFile(ch, "values.yaml")})
	out.Problems = append(out.Problems, missingDependencies(ch, chartFile)...)
	out.Problems = append(out.Problems, dropExternalSchemas(ch, dir)...)

	vals := map[string]any{}
	cfgRoot := root
	if opt.ConfigRoot != "" && len(opt.ConfigValues) > 0 {
		if cfgRoot, err = safefile.Open(opt.ConfigRoot, opt.ConfigRoot); err != nil {
			out.Problems = append(out.Problems, rootProblem(chartFile, err))
			return out
		}
		defer cfgRoot.Close()
	}
	read := func(f string, confined bool) ([]byte, error) {
		if confined {
			return cfgRoot.ReadFile(f, maxSourceFile)
		}
		data, tooBig, err := manifest.ReadSource(f, maxSourceFile)
		if err == nil && tooBig {
			err = fmt.Errorf("larger than %d bytes", maxSourceFile)
		}
		return data, err
	}
	for i, f := range append(append([]string{}, opt.ConfigValues...), opt.Values...) {
		data, err := read(f, i < len(opt.ConfigValues))
		if err != nil {
			out.Problems = append(out.Problems, problem(chartFile, 1, 1, "a values file for this chart cannot be read",
				fmt.Sprintf("%s: %v", f, reason(err)), "The chart was rendered without it."))
			continue
		}
		cur := map[string]any{}
		if err := sigsyaml.Unmarshal(data, &cur); err != nil {
			out.Problems = append(out.Problems, problem(f, yamlErrLine(err), 1, "values file is not valid YAML", err.Error(),
				"The chart was rendered without it."))
			continue
		}
		vals = mergeMaps(vals, cur)
		out.valuesFiles = append(out.valuesFiles, valuesFile{f, data})
	}
	for _, s := range opt.Set {
		if err := strvals.ParseInto(s, vals); err != nil {
			out.Problems = append(out.Problems, problem(chartFile, 1, 1, "a --set value cannot be parsed",
				fmt.Sprintf("%q: %v", s, err), "The chart was rendered without it."))
		}
	}
	if err := e.Dependencies(ch, vals); err != nil {
		out.Problems = append(out.Problems, problem(chartFile, 1, 1, "Helm cannot resolve the chart's dependencies", err.Error(),
			"Nothing in the chart was linted."))
		return out
	}
	kube := e.KubeVersion(opt.KubeVersion)
	if ch.Metadata.KubeVersion != "" && !e.Compatible(ch.Metadata.KubeVersion, kube) {
		out.Problems = append(out.Problems, Problem{File: chartFile, Line: lineOfKey(ch, "kubeVersion"), Column: 1,
			Message: fmt.Sprintf("chart requires kubeVersion %s, which is incompatible with Kubernetes %s (--kube-version)", ch.Metadata.KubeVersion, kube),
			Detail:  "helm install would refuse the chart, so it was not rendered. Lint with a --kube-version the chart supports, or widen kubeVersion in Chart.yaml."})
		return out
	}
	rel := Release{Name: firstOf(opt.ReleaseName, "release-name"), Namespace: firstOf(opt.Namespace, "default"), Revision: 1, IsInstall: true}
	rv, err := e.Values(ch, vals, rel, opt.KubeVersion)
	if err != nil {
		out.Problems = append(out.Problems, problem(chartFile, 1, 1, "the values do not fit the chart", err.Error(),
			"Nothing in the chart was linted."))
		return out
	}
	files := renderAll(e, ch, rv, dir, out)
	for k := range files {
		if strings.HasSuffix(k, "NOTES.txt") {
			delete(files, k)
		}
	}
	manifests, hooks, err := e.Sort(files)
	if err != nil {
		// A rendered template that is not YAML: the loader reports it
		// with its line, so lint the raw output instead.
		names := make([]string, 0, len(files))
		for k := range files {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, n := range names {
			out.addHelmDoc(ch, dir, n, files[n])
		}
		return out
	}
	for _, m := range manifests {
		out.addHelmDoc(ch, dir, m.Name, m.Content)
	}
	for _, h := range hooks {
		out.addHelmDoc(ch, dir, h.Name, h.Content)
	}
	return out
}

// renderAll renders the chart; when a template fails to parse or execute,
// its error becomes a problem at the line Helm reports and the chart is
// rendered again without that template, so the others are still linted.
func renderAll(e Engine, ch *chart.Chart, rv map[string]any, dir string, out *Rendered) map[string]string {
	// The same stream for every render of the chart, keyed by its name, so
	// a template's random values do not depend on what else is linted.
	defer repeatableRandom(ch.Name())()
	for range 50 {
		files, err := e.Render(ch, rv)
		if err == nil {
			return files
		}
		name, line, col, msg := templateError(err.Error())
		if findTemplate(ch, name) == nil {
			// The error's text is partly the chart's own ({{ fail }}): a
			// position in it is trusted only when it names a template of
			// this chart, never a file to read.
			name = ""
		}
		p := problem(filepath.Join(dir, "Chart.yaml"), 1, 1, "Helm cannot render the chart", err.Error(), "Nothing in the chart was linted.")
		if name != "" {
			p = problem(templatePath(ch, dir, name), max(line, 1), max(col, 1), "Helm cannot render this template", msg,
				"The chart was rendered again without this template, so the others were still linted.")
		}
		out.Problems = append(out.Problems, p)
		if name == "" || !removeTemplate(ch, name) {
			return nil
		}
	}
	return nil
}

// Helm reports "parse error at (chart/templates/x.yaml:6): unexpected …"
// and "execution error at (chart/templates/x.yaml:3:11): …", or
// "template: chart/templates/x.yaml:3:11: executing …". The position is
// the first one on the first line, which Helm writes; what follows may be
// the chart's own text ({{ fail "…" }}), positions included.
var (
	helmErrAt  = lazyRegexp(`^[^\n(]*\(([^():\n]+\.[A-Za-z]+):(\d+)(?::(\d+))?\)[ \t]*:?[ \t]*((?s:.*))$`)
	helmErrTpl = lazyRegexp(`^[^\n]*?template: ([^:\n]+):(\d+)(?::(\d+))?: ((?s:.*))$`)
)

var startedAt = lazyRegexp(`started at ([^:\s]+):(\d+)`)

func templateError(s string) (name string, line, col int, msg string) {
	s = strings.TrimSpace(s)
	for _, re := range []*regexp.Regexp{helmErrAt(), helmErrTpl()} {
		if m := re.FindStringSubmatch(s); m != nil {
			line, _ = strconv.Atoi(m[2])
			col, _ = strconv.Atoi(m[3])
			// "unclosed action started at x.yaml:6" is reported at the
			// end of the file; the action that is not closed is the place
			// to fix.
			if st := startedAt().FindStringSubmatch(m[4]); st != nil && st[1] == m[1] {
				line, _ = strconv.Atoi(st[2])
				col = 0
			}
			return m[1], line, col, m[4]
		}
	}
	return "", 0, 0, s
}

// removeTemplate drops the template Helm names name from the chart or the
// subchart that holds it.
func removeTemplate(ch *chart.Chart, name string) bool {
	prefix := ch.Name() + "/"
	if !strings.HasPrefix(name, prefix) {
		return false
	}
	rest := strings.TrimPrefix(name, prefix)
	for i, t := range ch.Templates {
		if t.Name == rest {
			ch.Templates = append(ch.Templates[:i:i], ch.Templates[i+1:]...)
			return true
		}
	}
	if sub, ok := strings.CutPrefix(rest, "charts/"); ok {
		for _, d := range ch.Dependencies() {
			if strings.HasPrefix(sub, d.Name()+"/") && removeTemplate(d, sub) {
				return true
			}
		}
	}
	return false
}

// templatePath turns Helm's template name ("podinfo/charts/redis/templates/x.yaml")
// into the file on disk. Subcharts packed as .tgz have no file on disk; their
// name is kept under the chart folder.
func templatePath(ch *chart.Chart, dir, name string) string {
	rest, _ := strings.CutPrefix(name, ch.Name()+"/")
	return filepath.Join(dir, filepath.FromSlash(rest))
}

func (out *Rendered) addHelmDoc(ch *chart.Chart, dir, name, content string) {
	if strings.TrimSpace(content) == "" {
		return
	}
	out.Docs = append(out.Docs, Doc{Source: templatePath(ch, dir, name), Name: name, YAML: content, Template: templateText(ch, name)})
}

func templateText(ch *chart.Chart, name string) []byte {
	if t := findTemplate(ch, name); t != nil {
		return t.Data
	}
	return nil
}

// findTemplate returns the template Helm names name ("podinfo/templates/x.yaml",
// "podinfo/charts/redis/templates/y.yaml"), or nil.
func findTemplate(ch *chart.Chart, name string) *chart.File {
	rest, ok := strings.CutPrefix(name, ch.Name()+"/")
	if !ok {
		return nil
	}
	for _, t := range ch.Templates {
		if t.Name == rest {
			return t
		}
	}
	if sub, ok := strings.CutPrefix(rest, "charts/"); ok {
		for _, d := range ch.Dependencies() {
			if strings.HasPrefix(sub, d.Name()+"/") {
				if t := findTemplate(d, sub); t != nil {
					return t
				}
			}
		}
	}
	return nil
}

// missingDependencies reports each dependency of Chart.yaml that is not in
// charts/, at its entry, as `helm template` would refuse the chart. The
// chart is rendered without it: podlint never downloads.
func missingDependencies(ch *chart.Chart, chartFile string) []Problem {
	var out []Problem
	have := map[string]bool{}
	for _, d := range ch.Dependencies() {
		have[d.Name()] = true
	}
	for _, r := range ch.Metadata.Dependencies {
		if have[r.Name] {
			continue
		}
		line := lineOfDependency(ch, r.Name)
		out = append(out, Problem{File: chartFile, Line: line, Column: 1,
			Message: fmt.Sprintf("dependency %q is declared in Chart.yaml but missing from charts/", r.Name),
			Detail: fmt.Sprintf("The chart was rendered without %s (%s %s). podlint never downloads charts: run `helm dependency build %s`, then lint again.",
				r.Name, r.Repository, r.Version, filepath.Dir(chartFile))})
	}
	// The rest of the chart is rendered without the missing ones, which
	// ProcessDependencies would otherwise look for.
	if len(out) > 0 {
		var keep []*chart.Dependency
		for _, r := range ch.Metadata.Dependencies {
			if have[r.Name] {
				keep = append(keep, r)
			}
		}
		ch.Metadata.Dependencies = keep
	}
	return out
}

func chartYAML(ch *chart.Chart) *yaml.Node {
	var n yaml.Node
	if data := rawFile(ch, "Chart.yaml"); data != nil && yaml.Unmarshal(data, &n) == nil {
		return deref(&n)
	}
	return nil
}

// rawFile is a file of the chart as loaded, or nil.
func rawFile(ch *chart.Chart, name string) []byte {
	for _, f := range ch.Raw {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

func lineOfKey(ch *chart.Chart, key string) int {
	if k, _ := mapGet(chartYAML(ch), key); k != nil {
		return k.Line
	}
	return 1
}

func lineOfDependency(ch *chart.Chart, name string) int {
	_, deps := mapGet(chartYAML(ch), "dependencies")
	if deps == nil || deps.Kind != yaml.SequenceNode {
		return 1
	}
	for _, d := range deps.Content {
		if _, v := mapGet(d, "name"); v != nil && v.Value == name {
			return d.Line
		}
	}
	return deps.Line
}

// mergeMaps is Helm's merge of values files: b wins, maps merge deeply.
func mergeMaps(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if v, ok := v.(map[string]any); ok {
			if bv, ok := out[k]; ok {
				if bv, ok := bv.(map[string]any); ok {
					out[k] = mergeMaps(bv, v)
					continue
				}
			}
		}
		out[k] = v
	}
	return out
}

var yamlLine = lazyRegexp(`line (\d+)`)

func yamlErrLine(err error) int {
	if m := yamlLine().FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return max(n, 1)
	}
	return 1
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func unwrap(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// linkOutOfTree returns the first symbolic link under root (in walk order)
// that resolves outside root or to anything but a regular file or folder,
// with where it points; "" when there is none.
func linkOutOfTree(root string) (link, target string) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", ""
	}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		t, err := filepath.EvalSymlinks(path)
		if err != nil {
			link, target = path, "a missing or looping target"
			return filepath.SkipAll
		}
		// The refusal names the link and what it says, never what it
		// resolves to (or holds).
		said, _ := os.Readlink(path)
		rel, err := filepath.Rel(realRoot, t)
		inside := err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
		fi, statErr := os.Stat(t)
		regular := statErr == nil && (fi.Mode().IsRegular() || fi.IsDir())
		if !inside || !regular {
			link, target = path, said
			return filepath.SkipAll
		}
		return nil
	})
	return link, target
}

// CheckCommandLineValues reads the values files and parses the --set
// values of the command line as every chart's render will, so that a
// mistake in them is one usage error before anything renders, not a
// finding on every chart rendered without them. (Values files a
// configuration names come from the repository and stay findings of the
// chart they belong to.)
func CheckCommandLineValues(files, set []string) error {
	for _, f := range files {
		data, tooBig, err := manifest.ReadSource(f, maxSourceFile)
		if err == nil && tooBig {
			err = fmt.Errorf("larger than %d bytes", maxSourceFile)
		}
		if err != nil { // ReadSource's error starts with the file's name
			return fmt.Errorf("--values %s", textsafe.Escape(reason(err).Error()))
		}
		if err := sigsyaml.Unmarshal(data, &map[string]any{}); err != nil {
			return fmt.Errorf("--values %s:%d: not a YAML mapping of chart values: %s", textsafe.Escape(f), yamlErrLine(err), textsafe.Escape(err.Error()))
		}
	}
	vals := map[string]any{}
	for _, s := range set {
		if err := strvals.ParseInto(s, vals); err != nil {
			return fmt.Errorf("--set %s: %s; write KEY=VALUE, e.g. --set replicaCount=2 or --set image.tag=1.2.3", textsafe.Quote(s), textsafe.Escape(err.Error()))
		}
	}
	return nil
}
