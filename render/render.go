// Package render lints Helm charts and Kustomize directories: it renders
// them with Helm's engine and kustomize's krusty in a limited child process
// (child.go; never the network, never another program),
// lints the rendered objects with the analyzer, and maps every finding back
// to the template, patch or resource file the user edits.
//
// It is linked only for its Lint function, which the command line hands to
// the analyzer for sources that are render roots; plain YAML files never
// reach it.
package render

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
	yaml "go.yaml.in/yaml/v3"
)

// Options configure rendering for a run.
type Options struct {
	// Helm returns the options for the chart in dir (values files, --set,
	// release name, namespace); nil means defaults.
	Helm func(dir string) HelmOptions
	// KubeVersion is .Capabilities.KubeVersion ("1.30").
	KubeVersion string
	// Limits bound the process that renders each root; zero fields take
	// DefaultLimits.
	Limits Limits
	// panicOnNetwork is for tests: see childRequest.
	panicOnNetwork bool
}

// Lint renders one root and lints its output. It has the signature of
// analyzer.Config.Render.
func (o *Options) Lint(cfg *analyzer.Config, src manifest.Source) (fs []finding.Finding, sum finding.Summary, err error) {
	// Mapping positions back walks templates of any shape; a panic there
	// is reported like one inside the renderer.
	defer func() {
		if p := recover(); p != nil {
			fs, sum, err = lintRendered(cfg, src, crashed(src, p), src.Path)
		}
	}()
	r, label, err := o.render(src)
	if err != nil {
		return nil, finding.Summary{}, err
	}
	return lintRendered(cfg, src, r, label)
}

func crashed(src manifest.Source, p any) *Rendered {
	return &Rendered{Problems: []Problem{{File: rootFile(src), Line: 1, Column: 1,
		Message: fmt.Sprintf("rendering crashed inside %s", src.Render),
		Detail:  fmt.Sprintf("%v; the other inputs were still linted. Please report this bug with the chart or kustomization.", p)}}}
}

// Output is one root rendered for podlint timeline.
type Output struct {
	// Stream is the rendered manifests as one YAML stream.
	Stream []byte
	// Problems are what kept parts of it from rendering.
	Problems []Problem
	m        *mapper
}

// Manifests renders one root without linting it.
func (o *Options) Manifests(src manifest.Source) (*Output, error) {
	r, _, err := o.render(src)
	if err != nil {
		return nil, err
	}
	stream, starts := r.stream()
	return &Output{Stream: stream, Problems: r.Problems, m: &mapper{r: r, starts: starts, root: src.Path, files: newSourceFiles(src)}}, nil
}

// Locate maps a position in Stream to the template, patch or resource file
// the user edits.
func (out *Output) Locate(line, col int) (file string, l, c int) {
	w := out.m.locate(line, col)
	return w.file, w.line, w.col
}

// render renders one root in a child process bounded by o.Limits
// (child.go); what the child could not do, a hit limit included, is a
// problem at the root.
func (o *Options) render(src manifest.Source) (r *Rendered, label string, err error) {
	label = src.Path
	var ho HelmOptions
	switch src.Render {
	case manifest.RenderHelm:
		if o.Helm != nil {
			ho = o.Helm(src.Path)
		}
		if ho.KubeVersion == "" {
			ho.KubeVersion = o.KubeVersion
		}
		ho.Root = src.Root
		label += " (helm chart)"
	case manifest.RenderKustomize:
		label += " (kustomization)"
	default:
		return nil, "", fmt.Errorf("%s: unknown render kind %q", src.Path, src.Render)
	}
	if len(src.Through) > 0 {
		label += ", also rendering " + strings.Join(src.Through, ", ")
	}
	r, err = renderInChild(src, ho, o.limits(), o.panicOnNetwork)
	if err != nil {
		return nil, "", err
	}
	return r, label, nil
}

// limits are o.Limits, each unset one at its default.
func (o *Options) limits() Limits {
	l := o.Limits
	if l.CPU <= 0 {
		l.CPU = DefaultLimits.CPU
	}
	if l.Memory <= 0 {
		l.Memory = DefaultLimits.Memory
	}
	if l.Wall <= 0 {
		l.Wall = DefaultLimits.Wall
	}
	if l.Output <= 0 {
		l.Output = DefaultLimits.Output
	}
	return l
}

// lintRendered lints the rendered stream and positions findings in the
// source files.
func lintRendered(cfg *analyzer.Config, src manifest.Source, r *Rendered, label string) ([]finding.Finding, finding.Summary, error) {
	sum := finding.Summary{Rendered: []string{label}}
	var out []finding.Finding
	// Quoted lines and suppression comments come only from files inside
	// the repository: a problem's file may be a link out of it (the link
	// guard's own finding is at the link).
	files := newSourceFiles(src)
	defer files.close()
	stream, starts := r.stream()
	m := &mapper{r: r, starts: starts, root: src.Path, files: files}
	if rule := rules.ChartRenderError; cfg.Enabled(rule) {
		for _, p := range r.Problems {
			// Read once per file: a kustomization with 100 000 missing
			// entries has as many problems in one file.
			data := m.file(p.File)
			f := finding.Finding{RuleID: rule.ID, RuleName: rule.Name, Severity: cfg.Severity[rule],
				Location: finding.Location{File: p.File, Line: p.Line, Column: p.Column}, Message: p.Message, Detail: p.Detail,
				SourceLine: lineOf(data, p.Line)}
			if !cfg.CommentSuppresses(data, &f) {
				out = append(out, f)
			}
		}
	}
	if int64(len(stream)) > cfg.Limits.MaxFileSize && cfg.Limits.MaxFileSize > 0 {
		if rule := rules.LimitExceeded; cfg.Enabled(rule) {
			out = append(out, finding.Finding{RuleID: rule.ID, RuleName: rule.Name, Severity: cfg.Severity[rule],
				Location: finding.Location{File: rootFile(src), Line: 1, Column: 1},
				Message:  analyzer.TooBig("the rendered output", cfg.Limits.MaxFileSize) + " and was not linted",
				Detail:   "Raise --max-file-size to lint it."})
		}
		r.Docs = nil
	}
	if len(r.Docs) > 0 {
		fs, s := cfg.File(src.Path, stream, false)
		sum.Objects, sum.Workloads = s.Objects, s.Workloads
		for i := range fs {
			m.remap(&fs[i])
		}
		out = append(out, fs...)
	}
	sources := map[string]bool{}
	for _, d := range r.Docs {
		sources[d.Source] = true
	}
	sum.Files = len(sources)
	if len(src.Named) > 0 {
		// Findings keep the spelling the file was named with.
		named := map[string]string{}
		for _, n := range src.Named {
			named[absPath(n)] = n
		}
		keep := out[:0]
		for _, f := range out {
			for i := range f.Related {
				if n, ok := named[absPath(f.Related[i].File)]; ok {
					f.Related[i].File = n
				}
			}
			n, ok := named[absPath(f.File)]
			if ok {
				f.File = n
			}
			if ok || f.RuleID == rules.ChartRenderError.ID {
				keep = append(keep, f)
			}
		}
		out = keep
	}
	return out, sum, nil
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// rootFile is the file that stands for a root: Chart.yaml or the
// kustomization.
func rootFile(src manifest.Source) string {
	if src.Render == manifest.RenderHelm {
		return filepath.Join(src.Path, "Chart.yaml")
	}
	if f := kustFile(src.Path); f != "" {
		return f
	}
	return src.Path
}

// stream is the rendered output as one YAML stream, each document preceded
// by "---" and, for Helm, the "# Source:" comment `helm template` writes.
// starts[i] is the stream line of document i's first line.
func (r *Rendered) stream() ([]byte, []int) {
	var b bytes.Buffer
	starts := make([]int, len(r.Docs))
	line := 1
	for i, d := range r.Docs {
		b.WriteString("---\n")
		line++
		if d.Name != "" {
			fmt.Fprintf(&b, "# Source: %s\n", d.Name)
			line++
		}
		starts[i] = line
		b.WriteString(d.YAML)
		line += strings.Count(d.YAML, "\n")
		if !strings.HasSuffix(d.YAML, "\n") {
			b.WriteByte('\n')
			line++
		}
	}
	return b.Bytes(), starts
}

type mapper struct {
	r      *Rendered
	starts []int
	root   string
	nodes  map[int]*yaml.Node
	tmpls  map[int][]tline
	files  *sourceFiles
	defs   map[string]*define // named templates, by name (include.go)
}

// where is a position in a source file.
type where struct {
	file      string
	line, col int
	exact     bool
	path      string
	values    *finding.Location
}

func (m *mapper) doc(line int) int {
	i := sort.Search(len(m.starts), func(i int) bool { return m.starts[i] > line }) - 1
	if i < 0 && len(m.starts) > 0 {
		i = 0
	}
	return i
}

func (m *mapper) node(i int) *yaml.Node {
	if m.nodes == nil {
		m.nodes = map[int]*yaml.Node{}
	}
	if n, ok := m.nodes[i]; ok {
		return n
	}
	var n yaml.Node
	if yaml.Unmarshal([]byte(m.r.Docs[i].YAML), &n) != nil {
		m.nodes[i] = nil
		return nil
	}
	m.nodes[i] = &n
	return &n
}

func (m *mapper) file(p string) []byte { return m.files.read(p) }

// location is a related location in a source file, with the code point
// column SARIF needs.
func (m *mapper) location(file string, line, col int, msg string) finding.Location {
	return finding.Location{File: file, Line: line, Column: col, Message: msg,
		CodePointColumn: manifest.CodePointColumn([]byte(lineOf(m.file(file), line)), col)}
}

// locate maps a stream position to the source.
func (m *mapper) locate(line, col int) where {
	i := m.doc(line)
	if i < 0 {
		return where{file: m.root, line: 1, col: 1}
	}
	d := &m.r.Docs[i]
	local := line - m.starts[i] + 1
	renderedText := lineOf([]byte(d.YAML), local)
	// Findings carry byte columns; yaml.v3 nodes count characters.
	p := pathAt(m.node(i), local, manifest.CodePointColumn([]byte(renderedText), col))
	if d.Template != nil {
		return m.locateHelm(i, d, p, renderedText)
	}
	return m.locateKustomize(d, p, renderedText)
}

func (m *mapper) locateHelm(i int, d *Doc, p []seg, renderedText string) where {
	if m.tmpls == nil {
		m.tmpls = map[int][]tline{}
	}
	tl, ok := m.tmpls[i]
	if !ok {
		tl = scanTemplate(d.Template)
		m.tmpls[i] = tl
	}
	w := where{file: d.Source, line: 1, col: 1, path: pathString(p)}
	if p == nil {
		if l, c, ok := uniqueLine(d.Template, renderedText); ok {
			w.line, w.col, w.exact = l, c, true
		}
		return w
	}
	idx, col, depth := locateTemplate(tl, p)
	offset := 0
	if depth < len(p) {
		if def, at, c, dep, ok := m.includeAt(tl, idx, p[depth:]); ok {
			tl, idx, col, depth, offset = def.lines, at, c, depth+dep, def.offset
			w.file = def.file
		}
	}
	if idx >= 0 {
		w.line, w.col = offset+idx+1, col
		// A scalar value written literally on the key's line is what
		// the analyzer points at.
		if depth == len(p) && len(p) > 0 && p[len(p)-1].index < 0 {
			if j := strings.Index(tl[idx].text, p[len(p)-1].key+":"); j >= 0 {
				rest := tl[idx].text[j+len(p[len(p)-1].key)+1:]
				if v := strings.TrimLeft(rest, " "); v != "" && !strings.HasPrefix(v, "{{") && !strings.HasPrefix(v, "#") && !strings.HasPrefix(v, "|") && !strings.HasPrefix(v, ">") {
					w.col = j + len(p[len(p)-1].key) + 1 + (len(rest) - len(v)) + 1
				}
			}
		}
	}
	w.exact = depth == len(p) && idx >= 0
	if vp := valuesPath(tl, idx); vp != nil {
		keys := append([]string{}, vp...)
		for _, s := range p[depth:] {
			if s.index >= 0 {
				break
			}
			keys = append(keys, s.key)
		}
		best, bestDepth := (*finding.Location)(nil), 0
		for j := len(m.r.valuesFiles) - 1; j >= 0; j-- {
			vf := m.r.valuesFiles[j]
			if l, c, dep := locateValues(vf.data, keys); dep > bestDepth && dep >= len(vp) {
				best, bestDepth = &finding.Location{File: vf.path, Line: l, Column: c, Message: "value from .Values." + strings.Join(keys[:dep], ".")}, dep
			}
		}
		w.values = best
	}
	return w
}

func (m *mapper) locateKustomize(d *Doc, p []seg, renderedText string) where {
	o := d.origin
	w := where{file: d.Source, line: 1, col: 1, path: pathString(p)}
	if o == nil {
		return w
	}
	dir := filepath.Dir(firstOf(o.file, o.configuredIn))
	if p != nil {
		for _, k := range o.root.chain(dir) {
			for _, pt := range k.patchesLastFirst() {
				if l, c, ok := pt.sets(o, p); ok {
					return where{file: pt.file, line: l, col: c, exact: true, path: w.path}
				}
			}
		}
	}
	if o.file == "" {
		return w
	}
	data := m.file(o.file)
	if p == nil {
		if l, c, ok := uniqueLine(data, renderedText); ok {
			w.line, w.col, w.exact = l, c, true
		}
		return w
	}
	for _, doc := range yamlDocs(data) {
		if kindName(doc, o) {
			l, c, depth := walkNode(doc, p)
			if l > 0 {
				w.line, w.col = l, byteColumn(data, l, c)
			}
			w.exact = depth == len(p)
			break
		}
	}
	return w
}

// inRendered marks a headline whose position is not exactly the field.
const inRendered = " (in the rendered output)"

// remap moves a finding from the rendered stream to the source files.
func (m *mapper) remap(f *finding.Finding) {
	i := m.doc(f.Line)
	rendered := &finding.Rendered{Root: m.root}
	if i >= 0 {
		rendered.Name = m.r.Docs[i].Name
	}
	w := m.locate(f.Line, f.Column)
	rendered.Path = w.path
	if i >= 0 {
		// The finding is in the template now: the analyzer's note
		// naming it (for `helm template` output on stdin) is redundant.
		f.Detail = strings.TrimSuffix(strings.TrimSuffix(f.Detail, "Rendered from "+m.r.Docs[i].Name+"."), " ")
	}
	if !w.exact {
		// The headline says so when it stays one short line; the
		// detail names the rendered field.
		if utf8.RuneCountInString(f.Message)+len(inRendered) <= headlineMax {
			f.Message += inRendered
		}
		note := "The field is not written literally in this file, so the position is the closest one found."
		if w.path != "" {
			note = "The finding is at " + w.path + " in the rendered output; it is not written literally in this file, so the position is the closest one found."
		}
		f.Detail = strings.TrimSpace(note + " " + f.Detail)
	}
	// Fixes are edits of the rendered stream: none applies to the
	// template or patch the finding now points at.
	f.Fixes = nil
	f.File, f.Line, f.Column = w.file, w.line, w.col
	f.SourceLine = lineOf(m.file(w.file), w.line)
	for j := range f.Related {
		rw := m.locate(f.Related[j].Line, f.Related[j].Column)
		f.Related[j] = m.location(rw.file, rw.line, rw.col, f.Related[j].Message)
	}
	if w.values != nil {
		f.Related = append(f.Related, m.location(w.values.File, w.values.Line, w.values.Column, w.values.Message))
	}
	f.Rendered = rendered
}

// yamlDocs parses every document of a stream; node lines count from the
// start of the stream.
func yamlDocs(data []byte) []*yaml.Node {
	var out []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for range 10000 {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			break
		}
		out = append(out, &n)
	}
	return out
}

// kindName reports whether a source document is the origin's resource
// (by kind and the name it had before prefixes and suffixes).
func kindName(doc *yaml.Node, o *kOrigin) bool {
	_, k := mapGet(doc, "kind")
	_, md := mapGet(doc, "metadata")
	_, n := mapGet(md, "name")
	if k == nil || k.Value != o.kind {
		return false
	}
	return n == nil || strings.Contains(o.name, n.Value)
}

// nameMatch reports whether a patch's target name (a regular expression,
// anchored, as kustomize reads it) matches the rendered name or a part of
// it that prefixes and suffixes could have been added to: name[i:j] with i
// at the start or after a '-', and j at the end or before a '-'. One
// automaton run per start checks every end at once, so the cost is
// quadratic in a name of at most maxNameLen bytes (trying every part
// separately was cubic); a longer name, which Kubernetes would refuse, is
// matched whole only.
func nameMatch(name, target string) bool {
	if len(name) > maxNameLen {
		re, err := regexp.Compile("^(?:" + target + ")$")
		return err == nil && re.MatchString(name)
	}
	re, err := regexp.Compile("^(?:" + target + ")(?:-|$)")
	if err != nil {
		return false
	}
	for i := 0; i < len(name); i++ {
		if (i == 0 || name[i-1] == '-') && re.MatchString(name[i:]) {
			return true
		}
	}
	return false
}

// maxNameLen is the longest object name Kubernetes accepts (a DNS
// subdomain).
const maxNameLen = 253
