package manifest

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/workload"
	yaml "go.yaml.in/yaml/v3"
	kjson "sigs.k8s.io/json"
)

// Parse loads one file's bytes. It never panics on bad input: everything
// wrong with the input becomes a Problem and the rest of the file is still
// loaded. It holds every document's nodes and objects at once; the
// analyzer uses SplitFile and Load instead, one document at a time.
func Parse(path string, data []byte, lim Limits) *Result {
	sp := SplitFile(path, data, lim)
	res := &Result{File: sp.File, Binary: sp.Binary, Problems: append([]Problem(nil), sp.Problems...)}
	for i := range sp.Docs() {
		sp.Load(i, lim, res)
	}
	return res
}

// Split is a file cut into YAML documents, which Load parses one at a time:
// a document's nodes and typed objects need to live only while its objects
// are linted, and the documents of a large file can be loaded in parallel.
type Split struct {
	File *File
	// Problems are those of the file as a whole (not text, a Helm
	// template, too many documents).
	Problems []Problem
	// Binary is set when the file is not text; it has no documents.
	Binary bool
	docs   []chunk
	first  int // the index in its file of the first document (SplitDocumentAt)
}

// Docs is the number of documents Load can load.
func (sp *Split) Docs() int { return len(sp.docs) }

// DocRange returns where document i is in the file as read (File.Base
// added, as in edits): bytes [start, end). Each document is parsed on its
// own, so a change inside that range changes no other document.
func (sp *Split) DocRange(i int) (start, end int) {
	c := sp.docs[i]
	return c.off + sp.File.Base, c.off + len(c.data) + sp.File.Base
}

// DocLine returns the 1-based line document i starts on.
func (sp *Split) DocLine(i int) int { return sp.docs[i].line }

// DocBytes is the size of document i.
func (sp *Split) DocBytes(i int) int { return len(sp.docs[i].data) }

// SplitFile checks a file's encoding and cuts it into documents. It reads
// the bytes once and parses nothing but the documents that hold "{{" (to
// tell Helm templates from manifests).
func SplitFile(path string, data []byte, lim Limits) *Split {
	return splitFile(path, data, lim, 1)
}

// SplitDocumentAt splits data, document index (0-based) of a file that
// starts at byte start of the file as read and on line line of it, as
// SplitFile splits a file, with the positions of the file: line numbers,
// snippets, the loader's messages, its fixes' byte offsets and the
// document's index are those the document has in place. Fix verification
// lints an edited document this way, to compare its findings with those
// the run found in the file, without copying or indexing the rest of the
// file (the lines before it are absent: File.Line returns "" for them).
func SplitDocumentAt(path string, data []byte, start, line, index int, lim Limits) *Split {
	sp := splitFile(path, data, lim, max(line, 1))
	sp.first = index
	if sp.File.Base == 0 {
		sp.File.Base = start
	}
	return sp
}

func splitFile(path string, data []byte, lim Limits, firstLine int) *Split {
	sp := &Split{}
	raw := data
	data, problem := normalizeEncoding(data)
	sp.File = NewFile(path, data)
	sp.File.startAt(firstLine)
	switch {
	case bytes.HasPrefix(raw, []byte{0xEF, 0xBB, 0xBF}):
		sp.File.Base = 3
	case len(data) != len(raw) || len(raw) > 0 && &raw[0] != &data[0]:
		sp.File.Base = -1 // transcoded from UTF-16
	}
	if problem != nil {
		problem.Line += firstLine - 1
		sp.Binary = true
		sp.Problems = append(sp.Problems, *problem)
	} else if line := helmLine(data); line > 0 {
		line += firstLine - 1
		sp.Problems = append(sp.Problems, Problem{Rule: RuleHelmTemplate, Line: line, Column: 1,
			Message: "this file is a Helm template, not a manifest; render it first and lint the output, e.g. `helm template RELEASE CHART | podlint check -`"})
	} else {
		// Split one document past the limit, so that the finding can point
		// at it, and no further: a file of a million tiny documents costs no
		// more than one of MaxDocuments.
		sp.docs = splitDocuments(data, lim.MaxDocuments+1)
		for i := range sp.docs {
			sp.docs[i].line += firstLine - 1
		}
		if len(sp.docs) > lim.MaxDocuments {
			sp.Problems = append(sp.Problems, Problem{Rule: RuleLimitExceeded, Line: sp.docs[lim.MaxDocuments].line, Column: 1,
				Message: fmt.Sprintf("file has more than %d YAML documents; only the first %d were linted (raise --max-documents to lint more)", lim.MaxDocuments, lim.MaxDocuments)})
			sp.docs = sp.docs[:lim.MaxDocuments]
		}
	}
	for i := range sp.Problems {
		sp.Problems[i].split()
	}
	return sp
}

// Load parses and decodes document i and appends its objects and problems
// to res (whose File is not used). It never panics on bad input. It may be
// called for different documents from several goroutines at once.
func (sp *Split) Load(i int, lim Limits, res *Result) {
	chunk := sp.docs[i]
	if Blank(chunk.data) {
		return
	}
	conv := getConverter(lim)
	defer putConverter(conv)
	source := renderedSource(chunk.data)
	first := len(res.Problems)
	var root yaml.Node
	if err := parseYAML(chunk.data, &root); err != nil {
		res.Problems = append(res.Problems, yamlProblem(err, chunk))
	} else if p := aliasProblem(&root, chunk, lim); p != nil {
		res.Problems = append(res.Problems, *p)
	} else {
		doc := &Document{File: sp.File, Index: sp.first + i, Root: &root, LineOffset: chunk.line - 1, Source: source, maxDepth: lim.MaxDepth}
		loadDocument(doc, conv, lim, res)
	}
	for j := first; j < len(res.Problems); j++ {
		// The problems above are placed at yaml.v3 nodes, in characters.
		res.Problems[j].Column = sp.File.byteColumn(res.Problems[j].Line, res.Problems[j].Column)
		res.Problems[j].Source = source
		res.Problems[j].split()
	}
}

// split gives a problem its headline and detail. Loader messages are
// written "headline; detail", and error texts of the YAML and JSON
// libraries longer than a headline are cut at their first colon.
func (p *Problem) split() {
	if p.Detail != "" {
		return
	}
	head, detail, ok := strings.Cut(p.Message, "; ")
	if !ok && len(p.Message) > 100 {
		head, detail, ok = strings.Cut(p.Message, ": ")
	}
	if !ok || strings.TrimSpace(detail) == "" {
		return
	}
	s := finding.Sentence(detail)
	if strings.HasPrefix(detail, "kubectl") {
		s = detail[:1] + s[1:] // a command keeps its lower case
	}
	p.Message, p.Detail = head, s
}

// parseYAML parses one document, turning a panic inside the YAML library
// (which has happened on hostile input in the past) into an error.
func parseYAML(data []byte, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: the YAML parser failed on this document: %v", r)
		}
	}()
	return yaml.Unmarshal(data, n)
}

// aliasProblem checks a document with aliases the way kubectl's decoder
// would (checkAliases). Aliases are the one way a small document becomes a
// huge one; without a '*' there are none and the walk is skipped.
func aliasProblem(root *yaml.Node, c chunk, lim Limits) *Problem {
	if bytes.IndexByte(c.data, '*') < 0 {
		return nil
	}
	p := checkAliases(root, lim.MaxNodes)
	if p != nil {
		p.Line += c.line - 1
	}
	return p
}

var (
	lineInError   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): `) })
	unknownAnchor = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`unknown anchor '(.*)' referenced`) })
)

// yamlProblem turns a parse error into a problem at the right file line.
func yamlProblem(err error, c chunk) Problem {
	line, msg := yamlErrorLine(err)
	if strings.Contains(msg, "exceeded max depth") {
		// yaml.v3 (like yaml.v2 under kubectl) stops at 10 000 levels of
		// nesting, long before a deep document could cost much.
		return Problem{Rule: RuleLimitExceeded, Line: line + c.line - 1, Column: 1,
			Message: "document is nested more than 10000 levels deep, the YAML parser's own limit; kubectl cannot read it either"}
	}
	if m := unknownAnchor().FindStringSubmatch(msg); m != nil && line == 1 {
		// The parser does not say where the alias is; the first "*name" is.
		if i := bytes.Index(c.data, []byte("*"+m[1])); i >= 0 {
			line = 1 + countLines(c.data[:i])
		}
	}
	if blockError().MatchString(msg) {
		if stray := strayLine(c.data, line, msg); stray > line {
			return Problem{Rule: RuleInvalidYAML, Line: stray + c.line - 1, Column: firstNonBlank(c.data, stray),
				Message: fmt.Sprintf("%s: line %d is not indented like the block that starts at line %d; kubectl cannot read this document", msg, stray+c.line-1, line+c.line-1)}
		}
	}
	return Problem{Rule: RuleInvalidYAML, Line: line + c.line - 1, Column: firstNonBlank(c.data, line), Message: msg + "; kubectl cannot read this document"}
}

// blockError is the error of a block whose next line is indented unlike
// it: yaml.v3 names the line where the block starts (libyaml's context
// mark), not the line that breaks it.
var blockError = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`did not find expected (key|'-' indicator)$`) })

// maxStraySearch bounds the documents strayLine bisects: each step parses
// a prefix again, about 20 parses of a hand-written manifest, and never
// that many of a generated 60 MB one.
const maxStraySearch = 1 << 20

// strayLine finds the line that breaks the block starting at line from:
// the first line whose prefix of the document no longer parses, found by
// bisection (a prefix cut at a line break parses whenever everything up to
// it does). It returns from when the prefix that fails does not fail with
// msg (a cut inside a flow collection or a quoted scalar, say), so a guess
// never replaces what the parser said.
func strayLine(data []byte, from int, msg string) int {
	if len(data) > maxStraySearch {
		return from
	}
	starts := []int{0} // byte offset of each line, 1-based line n at starts[n-1]
	for rest := data; len(rest) > 0; {
		_, next := cutLine(rest)
		if len(next) == 0 {
			break
		}
		starts = append(starts, len(data)-len(next))
		rest = next
	}
	prefix := func(n int) []byte {
		if n >= len(starts) {
			return data
		}
		return data[:starts[n]]
	}
	parses := func(n int) error {
		var node yaml.Node
		return parseYAML(prefix(n), &node)
	}
	if from >= len(starts) || parses(from) != nil {
		return from
	}
	lo, hi := from, len(starts) // parses(lo) == nil; the whole document fails
	for lo+1 < hi {
		if mid := (lo + hi) / 2; parses(mid) != nil {
			hi = mid
		} else {
			lo = mid
		}
	}
	if err := parses(hi); err == nil {
		return from
	} else if _, got := yamlErrorLine(err); got != msg {
		return from
	}
	return hi
}

// firstNonBlank returns the column of the first character of 1-based line
// n of data that is not a space or a tab: the parser names only the line
// of a syntax error, and what is wrong (a key indented too far, a second
// "key:" on the line) starts there, not at column 1.
func firstNonBlank(data []byte, n int) int {
	for i := 1; i < n && len(data) > 0; i++ {
		_, data = cutLine(data)
	}
	l, _ := cutLine(data)
	if t := bytes.TrimLeft(l, " \t"); len(t) > 0 {
		return len(l) - len(t) + 1
	}
	return 1
}

func yamlErrorLine(err error) (int, string) {
	msg := err.Error()
	if m := lineInError().FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return max(n, 1), "YAML syntax error: " + msg[len(m[0]):]
	}
	return 1, "YAML syntax error: " + strings.TrimPrefix(msg, "yaml: ")
}

// renderedSource returns the path of a "# Source: <path>" comment among the
// comments that open a document, which is where `helm template` names the
// chart file each document was rendered from. Comments further down (inside
// a ConfigMap's data, say) do not count.
func renderedSource(b []byte) string {
	for len(b) > 0 {
		var line []byte
		line, b = cutLine(b)
		t := trimBlank(line)
		switch {
		case len(t) == 0 || markerOnly(t, "---"):
			continue
		case t[0] != '#':
			return ""
		}
		if rest, ok := bytes.CutPrefix(trimBlank(t[1:]), []byte("Source:")); ok {
			return string(trimBlank(rest))
		}
	}
	return ""
}

// Blank reports whether b holds no YAML content: only white space,
// comments and document markers.
func Blank(b []byte) bool {
	for len(b) > 0 {
		var line []byte
		line, b = cutLine(b)
		t := trimBlank(line)
		if len(t) == 0 || t[0] == '#' || markerOnly(t, "---") || markerOnly(t, "...") {
			continue
		}
		return false
	}
	return true
}

type chunk struct {
	data []byte
	line int // 1-based line of the chunk's first byte
	off  int // offset of the chunk's first byte in File.Data
}

// splitDocuments cuts a stream at `---` and `...` lines so that each
// document is parsed on its own: a syntax error in one document does not
// hide the others, and memory stays proportional to one document.
//
// At most limit chunks are returned (all when limit <= 0); the last one then
// holds the rest of the input.
func splitDocuments(data []byte, limit int) []chunk {
	var out []chunk
	start, startLine, line := 0, 1, 1
	breaks := breaksOf(data)
	for i := 0; i < len(data) && (limit <= 0 || len(out) < limit-1); {
		next := len(data)
		if end, n := breaks.next(data[i:]); end >= 0 {
			next = i + end + n
		}
		l := data[i:next]
		if isMarker(l, "---") && i > start {
			out = append(out, chunk{data: data[start:i], line: startLine, off: start})
			start, startLine = i, line
		} else if isMarker(l, "...") {
			out = append(out, chunk{data: data[start:i], line: startLine, off: start})
			start, startLine = next, line+1
		}
		i = next
		line++
	}
	if start < len(data) {
		out = append(out, chunk{data: data[start:], line: startLine, off: start})
	}
	return out
}

// isMarker reports whether line starts with the document marker m ("---"
// or "...") as the YAML parser reads one: at the start of a line and
// followed by a blank, a line break or nothing.
func isMarker(line []byte, m string) bool {
	if !bytes.HasPrefix(line, []byte(m)) {
		return false
	}
	rest := line[len(m):]
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || breakLen(rest) > 0
}

// markerOnly reports whether a line (without its break) is the marker m
// with nothing but a comment after it; "--- {kind: Pod}" is content.
func markerOnly(line []byte, m string) bool {
	if !isMarker(line, m) {
		return false
	}
	rest := trimBlank(line[len(m):])
	return len(rest) == 0 || rest[0] == '#'
}

// normalizeEncoding turns UTF-16 input into UTF-8, drops a UTF-8 byte order
// mark and refuses binary and non-UTF-8 input with a positioned problem.
func normalizeEncoding(data []byte) ([]byte, *Problem) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		data = data[3:]
	case len(data) >= 2 && (data[0] == 0xFF && data[1] == 0xFE || data[0] == 0xFE && data[1] == 0xFF):
		le := data[0] == 0xFF
		body := data[2:]
		u := make([]uint16, len(body)/2)
		for i := range u {
			if le {
				u[i] = uint16(body[2*i]) | uint16(body[2*i+1])<<8
			} else {
				u[i] = uint16(body[2*i])<<8 | uint16(body[2*i+1])
			}
		}
		var b bytes.Buffer
		for _, r := range utf16.Decode(u) {
			b.WriteRune(r)
		}
		data = b.Bytes()
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return data, &Problem{Rule: RuleInvalidYAML, Line: 1 + countLines(data[:i]), Column: 1,
			Message: "file contains NUL bytes: it is a binary file, not YAML or JSON; remove it from the paths podlint checks"}
	}
	if !utf8.Valid(data) {
		i := 0
		for i < len(data) {
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		line, col := lineColumn(data, i)
		return data, &Problem{Rule: RuleInvalidYAML, Line: line, Column: col,
			Message: fmt.Sprintf("file is not UTF-8 text (byte 0x%02X); Kubernetes manifests must be UTF-8: re-encode the file", data[i])}
	}
	return data, nil
}

var helmAction = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\{\{-?\s*(\.Values|\.Release|\.Chart|\.Capabilities|\.Files|\.Template|include\s|template\s|toYaml|tpl\s|if\s|range\s|with\s|end\s*-?\}\}|define\s|else)`)
})

// helmLine returns the first line where Helm template syntax makes up the
// YAML structure of a document, or 0. Template text inside a string value
// is data, not a template to render: a ConfigMap holding an alert text
// (`{{ $labels.pod }}`), Istio's injector templates or rendered `linkerd
// install` output keep their `{{` in quoted and block scalars. A document
// with `{{` is a Helm template when it does not parse as YAML (the line
// heuristic then names the line), when a key holds `{{`, when `{{ … }}`
// parses as a flow mapping (`replicas: {{ .Values.n }}`), or when a plain
// (unquoted) value holds a Helm action (`name: {{ .Release.Name }}-web`).
func helmLine(data []byte) int {
	if !bytes.Contains(data, []byte("{{")) {
		return 0
	}
	for _, c := range splitDocuments(data, 0) {
		if !bytes.Contains(c.data, []byte("{{")) {
			continue
		}
		var root yaml.Node
		if err := parseYAML(c.data, &root); err != nil {
			if line := helmActionLine(c.data); line > 0 {
				return line + c.line - 1
			}
			continue // a syntax error of its own: PL001 reports it
		}
		if line := helmNode(&root, 0); line > 0 {
			return line + c.line - 1
		}
	}
	return 0
}

// helmActionLine returns the first line of a document that does not parse
// which starts with `{{` or holds a Helm action, or 0.
func helmActionLine(data []byte) int {
	line := 0
	for len(data) > 0 {
		line++
		var l []byte
		l, data = cutLine(data)
		t := trimBlank(l)
		if len(t) > 0 && t[0] == '#' {
			continue
		}
		if bytes.HasPrefix(t, []byte("{{")) || helmAction().Match(l) {
			return line
		}
	}
	return 0
}

// helmNode returns the line of the first node under n that is template
// syntax in YAML structure, or 0. Aliases are not followed: their targets
// are walked where they are defined.
func helmNode(n *yaml.Node, depth int) int {
	if depth > 10000 {
		return 0 // yaml.v3 refuses deeper documents anyway
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Style == 0 && helmAction().MatchString(n.Value) {
			return n.Line
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.MappingNode && k.Style&yaml.FlowStyle != 0 {
				return k.Line // {{ x }} read as a flow mapping with a mapping key
			}
			if k.Kind == yaml.ScalarNode && strings.Contains(k.Value, "{{") {
				return k.Line
			}
		}
		fallthrough
	default:
		for _, c := range n.Content {
			if line := helmNode(c, depth+1); line > 0 {
				return line
			}
		}
	}
	return 0
}

// loadDocument finds the objects of one document and decodes the workloads.
func loadDocument(doc *Document, conv *converter, lim Limits, res *Result) {
	root := deref(doc.Root)
	if root == nil || root.Kind != yaml.MappingNode {
		return // not an object: pre-commit hands podlint every YAML file
	}
	loadObject(doc, root, "", conv, lim, res, 0)
}

func loadObject(doc *Document, node *yaml.Node, path workload.Path, conv *converter, lim Limits, res *Result, depth int) {
	apiVersion, okV := typeMetaAt(node, "apiVersion", doc.maxDepth)
	kind, okK := typeMetaAt(node, "kind", doc.maxDepth)
	if !okV || !okK {
		return
	}
	obj := &Object{Doc: doc, Node: node, Path: path, Ref: finding.ObjectRef{APIVersion: apiVersion, Kind: kind}}
	if md := childAt(node, "metadata", doc.maxDepth); md != nil {
		obj.Ref.Name, _ = scalarAt(md, "name", doc.maxDepth)
		obj.Ref.Namespace, _ = scalarAt(md, "namespace", doc.maxDepth)
	}
	if isListKind(kind) {
		if items := childAt(node, "items", doc.maxDepth); items != nil && items.Kind == yaml.SequenceNode && depth < 10 {
			res.Objects = append(res.Objects, obj)
			for i, item := range items.Content {
				if it := deref(item); it != nil && it.Kind == yaml.MappingNode {
					loadObject(doc, it, path.Field("items").Index(i), conv, lim, res, depth+1)
				}
			}
			return
		}
	}
	res.Objects = append(res.Objects, obj)
	k := lookupKind(apiVersion, kind)
	target := node
	targetPath := path
	if k == nil {
		if msg := kindMismatch(apiVersion, kind); msg != "" {
			at := node
			if _, v := lookupKey(node, "apiVersion", doc.maxDepth); v != nil {
				at = v
			}
			res.Problems = append(res.Problems, Problem{Rule: RuleAPIValidation, Line: at.Line + doc.LineOffset, Column: at.Column, Object: &obj.Ref, Message: msg})
			return
		}
		// Any other object whose spec.template.spec is a Pod spec (an Argo
		// Rollout, an OpenKruise CloneSet, …) is linted through its template;
		// a KEDA ScaledJob through the Job spec at spec.jobTargetRef.
		k = &genericTemplate
		targetPath = path.Field("spec").Field("template")
		spec := childAt(node, "spec", doc.maxDepth)
		if customKind(apiVersion, kind).jobTarget {
			k = &jobTargetTemplate
			targetPath = path.Field("spec").Field("jobTargetRef")
			spec = childAt(spec, "jobTargetRef", doc.maxDepth)
		}
		tmpl := childAt(spec, "template", doc.maxDepth)
		if tmpl == nil || tmpl.Kind != yaml.MappingNode {
			return
		}
		if spec := childAt(tmpl, "spec", doc.maxDepth); spec == nil || spec.Kind != yaml.MappingNode {
			return
		}
		// kubectl converts the whole document to JSON before anything
		// reads the template, so what YAML cannot turn into JSON anywhere
		// in it (a null or composite key, .inf, bad !!binary) refuses the
		// object; convert it all once, untyped, to find out.
		if !decodeInto(doc, node, reflect.Value{}, conv, lim, obj, res) {
			return
		}
		target = tmpl
		if k == &jobTargetTemplate {
			target = spec
		}
	}
	typed := reflect.New(k.typ)
	conv.customResource = k == &genericTemplate || k == &jobTargetTemplate
	ok := decodeInto(doc, target, typed, conv, lim, obj, res)
	conv.customResource = false
	if !ok {
		return
	}
	obj.Typed = typed.Interface()
	k.normalize(obj, targetPath)
}

// converters are reused from document to document: a converter's JSON
// buffer and pair stack grew from nothing for every document (70 of the
// 1 260 MB a check of the benchmark corpus allocated).
var converters = sync.Pool{New: func() any { return &converter{} }}

func getConverter(lim Limits) *converter {
	c := converters.Get().(*converter)
	c.maxDepth = lim.MaxDepth
	return c
}

// putConverter returns c to the pool without the document: nothing it
// keeps points into the document's nodes or objects, and a buffer grown
// for a huge document is not kept.
func putConverter(c *converter) {
	if cap(c.buf) > 1<<20 || cap(c.stack) > 1<<14 {
		return
	}
	clear(c.stack[:cap(c.stack)])
	clear(c.problems[:cap(c.problems)])
	clear(c.errors[:cap(c.errors)])
	*c = converter{buf: c.buf[:0], stack: c.stack[:0], problems: c.problems[:0], errors: c.errors[:0]}
	converters.Put(c)
}

func isListKind(kind string) bool {
	return kind == "List" || (strings.HasSuffix(kind, "List") && len(kind) > 4)
}

// decodeInto converts node to JSON and decodes it into v, recording
// problems. It reports whether the object could be decoded at all. With a
// zero v it only checks that node converts to JSON, as kubectl requires.
func decodeInto(doc *Document, node *yaml.Node, v reflect.Value, conv *converter, lim Limits, obj *Object, res *Result) (ok bool) {
	conv.buf = conv.buf[:0]
	conv.problems = conv.problems[:0]
	conv.errors = conv.errors[:0]
	conv.budget = lim.MaxNodes
	conv.lineOff = doc.LineOffset
	addProblems := func() {
		for _, p := range conv.problems {
			p.Object = &obj.Ref
			p.Fixes, p.dup = doc.duplicateFixes(p.dup), nil
			res.Problems = append(res.Problems, p)
		}
	}
	defer func() {
		if r := recover(); r != nil {
			if _, isBudget := r.(errBudget); !isBudget {
				panic(r)
			}
			res.Problems = append(res.Problems, Problem{Rule: RuleLimitExceeded, Line: node.Line + doc.LineOffset, Column: node.Column, Object: &obj.Ref,
				Message: fmt.Sprintf("%s expands to more than %d nodes through YAML aliases and merge keys; it was not linted (limit: --max-nodes)", obj.Ref.Kind, lim.MaxNodes)})
			ok = false
		}
	}()
	var typ reflect.Type
	if v.IsValid() {
		typ = v.Type().Elem()
	}
	conv.bad = false
	var dst reflect.Value
	if v.IsValid() {
		dst = v.Elem()
	}
	// The JSON is read only when a value cannot be stored directly (bad):
	// convert without it, and again with it in that rare case.
	conv.noJSON = true
	conv.convert(node, typ, 0, dst)
	conv.noJSON = false
	if len(conv.errors) == 0 && conv.bad && v.IsValid() {
		conv.buf, conv.problems, conv.errors = conv.buf[:0], conv.problems[:0], conv.errors[:0]
		conv.budget, conv.bad = lim.MaxNodes, false
		conv.convert(node, typ, 0, dst)
	}
	if len(conv.errors) > 0 {
		addProblems()
		for _, p := range foldPlaceholders(conv.errors, obj.Ref.Kind) {
			p.Object = &obj.Ref
			res.Problems = append(res.Problems, p)
		}
		return false
	}
	if !v.IsValid() {
		return true // untyped: its unknown fields are not problems
	}
	addProblems()
	if !conv.bad {
		return true // convert stored every value already
	}
	v.Elem().SetZero()
	if err := kjson.UnmarshalCaseSensitivePreserveInts(conv.buf, v.Interface()); err != nil {
		res.Problems = append(res.Problems, Problem{Rule: RuleInvalidManifest, Line: node.Line + doc.LineOffset, Column: node.Column, Object: &obj.Ref,
			Message: "cannot decode " + obj.Ref.Kind + ": " + strings.TrimPrefix(err.Error(), "json: ")})
		return false
	}
	return true
}
