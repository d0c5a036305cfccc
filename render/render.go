// Package render is the loader stage for Helm charts and Kustomize
// directories: it renders them with Helm's engine and kustomize's krusty in
// a limited child process (child.go; never the network, never another
// program) and returns the rendered documents with a source map that
// places each field in the template, patch or resource file the user edits
// (Open). The loader lints the documents like a file's; render knows
// nothing of rules or findings (TestImports).
//
// It makes no API promise: it is podlint's own, serving its commands, and
// may change in any commit. Use the podlint command, not this package.
package render

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/workload"
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
	// Budget bounds the CPU time of all renders of a run together; nil
	// means none (the editor server, which renders one root at a time).
	Budget *Budget
	// Trace, when set, is told what rendering does (--debug): the root,
	// the child process, each rendered document and the file it came from.
	Trace func(format string, args ...any)
	testHooks
}

// testHooks are for tests: see childRequest.
type testHooks struct {
	panicOnNetwork bool
	waitForTest    time.Duration
}

// Open renders one root and returns its documents and source map. What
// kept parts of it from rendering, a crash of the renderer included, is a
// problem of the result; err is for a root podlint cannot render at all.
// The caller closes out.Map.
func (o *Options) Open(src manifest.Source) (out *manifest.RenderedRoot, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = o.opened(src, crashed(src, p), src.Path), nil
		}
	}()
	r, label, err := o.render(src)
	if err != nil {
		return nil, err
	}
	return o.opened(src, r, label), nil
}

func crashed(src manifest.Source, p any) *Output {
	return &Output{Problems: []Problem{manifest.RenderCrash(src, rootFile(src), p)}}
}

// opened is r as the loader takes it.
func (o *Options) opened(src manifest.Source, r *Output, label string) *manifest.RenderedRoot {
	stream, starts := r.stream()
	for i, d := range r.Docs {
		o.trace("render %s: document %d from %s%s at stream line %d", src.Path, i+1, d.Source, nameNote(d.Name), starts[i])
	}
	for _, p := range r.Problems {
		o.trace("render %s: problem at %s:%d:%d: %s", src.Path, p.File, p.Line, p.Column, p.Message)
	}
	paths := filesRead(src, r)
	return &manifest.RenderedRoot{Label: label, RootFile: rootFile(src), Stream: stream, Paths: paths, Problems: r.Problems, NotRendered: r.notRendered,
		Map: &mapper{r: r, starts: starts, root: src.Path, files: newSourceFiles(src), trace: o.Trace}}
}

func nameNote(name string) string {
	if name == "" {
		return ""
	}
	return " (" + name + ")"
}

func (o *Options) trace(format string, args ...any) {
	if o.Trace != nil {
		o.Trace(format, args...)
	}
}

// render renders one root in a child process bounded by o.Limits
// (child.go) and by what the run's budget leaves it (budget.go); what the
// child could not do, a hit limit included, is a problem at the root.
func (o *Options) render(src manifest.Source) (r *Output, label string, err error) {
	lim := o.limits()
	perRoot := lim.CPU
	if b := o.Budget; b != nil {
		// Claimed before anything can fail, and settled on every way
		// out: the roots after this one wait for it.
		slot, cpu, ok := b.claim(src, perRoot)
		if !ok {
			o.trace("render %s: not rendered, the render budget of %s of CPU time is spent", src.Path, b.total)
			b.settle(slot, 0, perRoot, 0, false)
			return &Output{Problems: []Problem{budgetProblem(src, b.total, false)}, notRendered: true}, rootLabel(src), nil
		}
		lim.CPU = cpu
		var use childUse
		defer func() {
			if b.settle(slot, cpu, perRoot, use.cpu, use.cpuHit) && err == nil {
				o.trace("render %s: used %s of CPU time, more than the %s the render budget left it", src.Path, use.cpu, cpu)
				r = &Output{Problems: []Problem{budgetProblem(src, b.total, true)}, notRendered: true}
			}
		}()
		return o.renderLimited(src, lim, &use)
	}
	return o.renderLimited(src, lim, &childUse{})
}

// renderLimited is render within lim; use is what the child used.
func (o *Options) renderLimited(src manifest.Source, lim Limits, use *childUse) (r *Output, label string, err error) {
	label = rootLabel(src)
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
	case manifest.RenderKustomize:
	default:
		return nil, "", fmt.Errorf("%s: unknown render kind %q", src.Path, src.Render)
	}
	if o.Trace != nil {
		who := "this executable"
		if linked == nil {
			who = RenderCommand
		}
		o.trace("render %s: %s, in a child process of %s (%s=%s, no environment, no network, confined where the OS allows), limits cpu %s, memory %s, wall %s, output %s",
			src.Path, label, who, ChildEnv, childProtocol, lim.CPU, sizeText(lim.Memory), lim.Wall, sizeText(lim.Output))
		o.trace("render %s: the child may read only %s", src.Path, strings.Join(readable(src, ho), ", "))
	}
	r, *use, err = renderInChild(src, ho, lim, o.testHooks)
	if err != nil {
		o.trace("render %s: failed: %v", src.Path, err)
		return nil, "", err
	}
	o.trace("render %s: rendered documents: %d, problems: %d", src.Path, len(r.Docs), len(r.Problems))
	if st := use.stats; st.GCCycles > 0 {
		// Only what does not vary between runs: --debug's output is
		// deterministic (TestDebugTraces).
		o.trace("render %s: the child's collector ran at GOGC %d", src.Path, st.GCPercent)
	}
	return r, label, nil
}

// rootLabel names a root in the run's summary: "charts/shop (helm
// chart)", "deploy/prod (kustomization), also rendering deploy/base".
func rootLabel(src manifest.Source) string {
	label := src.Path
	switch src.Render {
	case manifest.RenderHelm:
		label += " (helm chart)"
	case manifest.RenderKustomize:
		label += " (kustomization)"
	}
	if len(src.Through) > 0 {
		label += ", also rendering " + strings.Join(src.Through, ", ")
	}
	return label
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
// by "---". starts[i] is the stream line of document i's first line. It
// has no "# Source:" comments, which `helm template` writes: the source map
// names the template, so the loader has nothing to add to a finding's text.
func (r *Output) stream() ([]byte, []int) {
	var b bytes.Buffer
	starts := make([]int, len(r.Docs))
	line := 1
	for i, d := range r.Docs {
		b.WriteString("---\n")
		line++
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

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

type mapper struct {
	r      *Output
	starts []int
	root   string
	nodes  map[int]*yaml.Node
	tmpls  map[int][]tline
	files  *sourceFiles
	defs   map[string]*define // named templates, by name (include.go)
	trace  func(format string, args ...any)
}

// where is a position in a source file.
type where struct {
	file      string
	line, col int
	exact     bool
	path      string
	values    *valueAt
}

// valueAt is the key of a values file a template line reads.
type valueAt struct {
	File         string
	Line, Column int
	Message      string
	// keys are the keys located; full is set when they are all the
	// field's keys (the key holds the field's value, not a parent of
	// it); data is the file as rendering read it.
	keys []string
	full bool
	data []byte
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

// locate maps a stream position to the source.
func (m *mapper) locate(line, col int) where {
	i := m.doc(line)
	if i < 0 {
		return where{file: m.root, line: 1, col: 1}
	}
	d := &m.r.Docs[i]
	local := line - m.starts[i] + 1
	renderedText := manifest.LineOf([]byte(d.YAML), local)
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
	// A list item found is written on its first key's line ("- image:
	// {{ .Values.image.repository }}"): what that key reads is not the
	// item's value.
	item := w.exact && len(p) > 0 && p[len(p)-1].index >= 0
	if vp := valuesPath(tl, idx); vp != nil && !item {
		keys := append([]string{}, vp...)
		for _, s := range p[depth:] {
			if s.index >= 0 {
				break
			}
			keys = append(keys, s.key)
		}
		best, bestDepth := (*valueAt)(nil), 0
		for j := len(m.r.valuesFiles) - 1; j >= 0; j-- {
			vf := m.r.valuesFiles[j]
			if l, c, dep := locateValues(vf.data, keys); dep > bestDepth && dep >= len(vp) {
				best, bestDepth = &valueAt{File: vf.path, Line: l, Column: c, Message: "value from .Values." + strings.Join(keys[:dep], "."),
					keys: keys[:dep], full: dep == len(keys) && depth+len(keys)-len(vp) == len(p), data: vf.data}, dep
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

// Locate maps a field of the stream to the file the user edits: by its
// path when the loader gives one (the field as the document resolves it),
// else by its position (a loader problem, a related location).
func (m *mapper) Locate(line, col int, path string) manifest.Mapped {
	i := m.doc(line)
	var w where
	if p := m.resolve(i, path); p != nil {
		d := &m.r.Docs[i]
		if d.Template != nil {
			w = m.locateHelm(i, d, p, "")
		} else {
			w = m.locateKustomize(d, p, "")
		}
	} else {
		w = m.locate(line, col)
	}
	out := manifest.Mapped{File: w.file, Line: w.line, Column: w.col, Approximate: !w.exact, Path: w.path, Doc: i,
		CodePointColumn: manifest.CodePointColumn([]byte(manifest.LineOf(m.file(w.file), w.line)), w.col)}
	if i >= 0 {
		out.Template = m.r.Docs[i].Name
		if m.r.Docs[i].Template != nil {
			out.Source = m.r.Docs[i].Source
		}
	}
	if v := w.values; v != nil {
		out.Value = &manifest.MappedValue{File: v.File, Line: v.Line, Column: v.Column, Key: v.Message,
			CodePointColumn: manifest.CodePointColumn([]byte(manifest.LineOf(m.file(v.File), v.Line)), v.Column)}
	}
	if m.trace != nil {
		m.traceLocate(i, line, col, path, out)
	}
	return out
}

// traceLocate says where a field was mapped to (--debug).
func (m *mapper) traceLocate(i, line, col int, path string, out manifest.Mapped) {
	by := "by its path"
	if path == "" || out.Path == "" {
		by = fmt.Sprintf("by its position (rendered line %d, column %d)", line, col)
	}
	what := "exact"
	if out.Approximate {
		what = "approximate: not written literally there"
	}
	doc := "outside every document"
	if i >= 0 {
		doc = "document " + strconv.Itoa(i+1) + nameNote(m.r.Docs[i].Name)
	}
	field := path
	switch {
	case path == "":
		field = firstOf(out.Path, "the document")
	case out.Path != path:
		field += " (written up to " + firstOf(out.Path, "the document") + ")"
	}
	m.trace("map %s: %s %s, %s → %s:%d:%d (%s)", m.root, doc, field, by, out.File, out.Line, out.Column, what)
	if v := out.Value; v != nil {
		m.trace("map %s: %s %s: %s at %s:%d:%d", m.root, doc, field, v.Key, v.File, v.Line, v.Column)
	}
}

// File is a source file as read inside the repository.
func (m *mapper) File(p string) []byte { return m.file(p) }

// Close releases the repository root the files are read through.
func (m *mapper) Close() { m.files.close() }

// resolve follows path through rendered document i as far as it is
// written, as manifest.Document.Locate does; nil when there is no path or
// the document cannot be parsed (the position decides then).
func (m *mapper) resolve(i int, path string) []seg {
	if path == "" || i < 0 {
		return nil
	}
	n := deref(m.node(i))
	if n == nil {
		return nil
	}
	out := []seg{}
	for _, s := range workload.Path(path).Segments() {
		cur := deref(n)
		if cur == nil {
			break
		}
		if s.Index >= 0 {
			if cur.Kind != yaml.SequenceNode || s.Index >= len(cur.Content) {
				break
			}
			n = cur.Content[s.Index]
			out = append(out, seg{index: s.Index, item: n})
			continue
		}
		if cur.Kind != yaml.MappingNode {
			break
		}
		k, v := MapGet(cur, s.Key)
		if k == nil {
			break
		}
		n = v
		out = append(out, seg{key: s.Key, index: -1})
	}
	return out
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
	_, k := MapGet(doc, "kind")
	_, md := MapGet(doc, "metadata")
	_, n := MapGet(md, "name")
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

// filesRead are the manifest files on disk a render of src read, absolute
// and sorted: every YAML or JSON file and chart template under the root and
// under the run's kustomizations it renders as bases (a chart's
// Chart.yaml, values and templates; a kustomization and the resources
// beside it; hidden files and folders skipped, as discovery does, at most
// MaxChartFiles), and the files the rendered documents and values came
// from outside them (bases elsewhere). The run counts each once however
// many renders read it. Scripts, READMEs and a generator's .env or .conf
// files are not manifests and are not counted, so that the tally's files
// are the manifests a user sees on disk.
func filesRead(src manifest.Source, r *Output) []string {
	set := map[string]bool{}
	add := func(p string) {
		if p == "" {
			return
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		set[p] = true
	}
	n := 0
	walk := func(root string) {
		if fi, err := os.Stat(root); err == nil && !fi.IsDir() {
			root = filepath.Dir(root)
		}
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != root && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || !manifestFile(d.Name()) {
				return nil
			}
			if n++; n > MaxChartFiles {
				return filepath.SkipAll
			}
			add(p)
			return nil
		})
	}
	walk(src.Path)
	for _, t := range src.Through { // the run's kustomizations it renders as bases
		walk(t)
	}
	for _, d := range r.Docs {
		if d.Source != "" {
			if _, err := os.Stat(d.Source); err == nil {
				add(d.Source)
			}
		}
	}
	for _, v := range r.valuesFiles {
		add(v.path)
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// manifestFile reports whether a file of a chart or kustomization is one
// the tally counts: a YAML or JSON file, or a chart template (.tpl), not
// hidden.
func manifestFile(name string) bool {
	if strings.HasPrefix(name, ".") {
		return false
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json", ".tpl":
		return true
	}
	return false
}
