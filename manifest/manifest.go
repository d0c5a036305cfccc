// Package manifest turns files into Kubernetes objects: it splits YAML and
// JSON streams into documents, parses each once into yaml.v3 nodes (for
// positions), decodes workloads into the typed k8s.io/api structs exactly as
// kubectl would, and normalizes every workload kind to one view of its Pod
// template.
//
// It makes no API promise: it is podlint's own, serving its commands, and
// may change in any commit. Use the podlint command, not this package.
package manifest

import (
	"bytes"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/workload"
	yaml "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Names of the input rules whose findings the loader produces.
const (
	RuleInvalidYAML     = "invalid-yaml"
	RuleInvalidManifest = "invalid-manifest"
	RuleUnknownField    = "unknown-field"
	RuleDuplicateKey    = "duplicate-key"
	RuleHelmTemplate    = "helm-template"
	RuleLimitExceeded   = "limit-exceeded"
	RuleAPIValidation   = "api-validation"
)

// Problem is something wrong with the input itself, already positioned.
type Problem struct {
	Rule    string // one of the Rule* names
	Line    int    // 1-based, in the file
	Column  int    // 1-based, in bytes (see columns.go)
	Message string // headline, see finding.Finding
	Detail  string
	Object  *finding.ObjectRef
	// Source is the Document.Source of the document the problem is in.
	Source string
	// Fixes are the edits that resolve the problem (see edit.go).
	Fixes []finding.Fix
	// dup is the earlier pair of a duplicate key, which Fixes delete.
	dup *duplicate
	// placeholder is the value of a type error that is a shell
	// placeholder (${REPLICAS:-1}), which foldPlaceholders reports once
	// per object.
	placeholder string
}

// File is one input with its bytes, kept while its objects are analyzed.
// Its methods may be called from several goroutines at once (the documents
// of a large file are linted in parallel).
type File struct {
	Path string // as shown to users: relative as given, or the --stdin-filename
	Data []byte
	// Base is where Data starts in the bytes as read: 3 after a UTF-8
	// byte order mark, 0 without one, and -1 when the bytes were
	// transcoded from UTF-16, which rules out edits (see Document.Edit);
	// for one document split alone, its offset in the file
	// (SplitDocumentAt).
	Base int
	// marks is a sparse line index, sorted by line: the start of every
	// lineStep-th line and of every line after a long one. A 60 MB file of
	// two million lines costs about 1 MB of index, not 16 MB; a lookup
	// skips at most lineStep-1 short lines, and finds the end of a long
	// line without reading it.
	marks []lineMark
	lines int // number of lines
	// otherBreaks is set when a line ends in NEL, LS or PS, which the
	// whole-line form of fixes does not count (finding.WholeLines).
	otherBreaks bool
	// runeIndex holds, for long lines with findings, the number of
	// characters before every runeStep-th byte (see runesBefore).
	runeMu    sync.Mutex
	runeIndex map[int][]int
}

type lineMark struct{ line, off int }

const (
	lineStep = 32
	longLine = 512 // bytes
)

// NewFile indexes data for line lookups. Lines end where the YAML parser's
// lines end (see breakLen), so a line number means the same to the parser,
// the snippet and the suppression comments.
func NewFile(path string, data []byte) *File {
	marks := make([]lineMark, 1, 1+(bytes.Count(data, []byte{'\n'})+bytes.Count(data, []byte{'\r'}))/lineStep)
	marks[0] = lineMark{1, 0}
	n := 1
	other := false
	breaks := breaksOf(data)
	for i := 0; ; {
		j, w := breaks.next(data[i:])
		if j < 0 {
			break
		}
		long := j > longLine
		if c := data[i+j]; c != '\n' && c != '\r' {
			other = true
		}
		i += j + w
		n++
		if n%lineStep == 1 || long {
			marks = append(marks, lineMark{n, i})
		}
	}
	return &File{Path: path, Data: data, marks: marks, lines: n, otherBreaks: other}
}

// startAt numbers the lines of f from first instead of 1.
func (f *File) startAt(first int) {
	if first == 1 {
		return
	}
	for i := range f.marks {
		f.marks[i].line += first - 1
	}
	f.lines += first - 1
}

// position returns the 1-based line and byte column of byte offset off of
// Data, from the line index: it reads at most lineStep-1 short lines and
// never the rest of a long one, where counting from the start of the file
// made every fix of a large file cost the whole file.
func (f *File) position(off int) (line, col int) {
	k := sort.Search(len(f.marks), func(k int) bool { return f.marks[k].off > off }) - 1
	line, start := f.marks[k].line, f.marks[k].off
	for {
		if line == f.lines || (k+1 < len(f.marks) && f.marks[k+1].line == line+1) {
			break // the last line, or one that ends where the next mark starts, past off
		}
		j, w := nextBreak(f.Data[start:off])
		if j < 0 {
			break
		}
		start += j + w
		line++
	}
	return line, off - start + 1
}

// WholeLines returns the whole-line form of edits of this file (see
// finding.Fix.LineEdits), nil when the file has line breaks that form does
// not count.
func (f *File) WholeLines(edits []finding.Edit) []finding.Edit {
	if f.otherBreaks || f.Base < 0 {
		return nil
	}
	return finding.WholeLinesIndexed(f.Data, f.Base, edits, func(off int) int {
		line, _ := f.position(off)
		return line
	})
}

// lineBytes returns 1-based line n without its line break, sharing data.
// It costs the same for a line of a million bytes as for a short one.
func (f *File) lineBytes(n int) []byte {
	if n < f.marks[0].line || n > f.lines {
		return nil
	}
	k := sort.Search(len(f.marks), func(k int) bool { return f.marks[k].line > n }) - 1
	i := f.marks[k].off
	for l := f.marks[k].line; l < n; l++ {
		j, w := nextBreak(f.Data[i:])
		i += j + w
	}
	if k+1 < len(f.marks) && f.marks[k+1].line == n+1 {
		// Line n is long: the next line's start is known. Drop the line
		// break that ends there: at most 3 bytes, read backwards.
		end := f.marks[k+1].off
		for w := 3; w >= 1; w-- {
			if end-w >= i && breakLen(f.Data[end-w:end]) == w {
				return f.Data[i : end-w]
			}
		}
		return f.Data[i:end]
	}
	if n == f.lines {
		return f.Data[i:]
	}
	j, _ := nextBreak(f.Data[i:])
	return f.Data[i : i+j]
}

// Line returns the text of 1-based line n without its line break.
func (f *File) Line(n int) string {
	return string(f.lineBytes(n))
}

// Lines is the number of lines in the file.
func (f *File) Lines() int { return f.lines }

// Document is one YAML document of a file.
type Document struct {
	File  *File
	Index int        // 0-based position in the file
	Root  *yaml.Node // the document node; its lines count from the document start
	// LineOffset turns node lines into file lines (documents are parsed one
	// at a time, so a node at line 3 of the third document is further down).
	LineOffset int
	// Source is the template a document was rendered from, taken from the
	// "# Source: chart/templates/x.yaml" comment `helm template` writes at
	// the top of every document; "" when there is none. Lines still count
	// in the rendered stream: they are not lines of the template.
	Source string
	// maxDepth is Limits.MaxDepth of the parse, which bounds merge keys
	// in lookups as in the conversion.
	maxDepth int
}

// Object is one Kubernetes object (a document, or an item of a List).
type Object struct {
	Doc  *Document
	Node *yaml.Node // the object's mapping
	// Path is "" for a document's own object and "items[i]" inside a List.
	Path workload.Path
	Ref  finding.ObjectRef
	// Meta is the object's metadata; TemplateMeta the pod template's (the
	// same as Meta for a Pod). Both are nil for objects that are not workloads.
	Meta         *metav1.ObjectMeta
	TemplateMeta *metav1.ObjectMeta
	// TemplatePath is the path of the pod template ("spec.template", …), or
	// the object path for a Pod.
	TemplatePath workload.Path
	// Workload is nil for objects that are not workloads.
	Workload *workload.Workload
	// Custom is set for a custom resource linted through its template.
	Custom *CustomKind
	// Typed is the decoded k8s.io/api object (*corev1.Pod, *appsv1.Deployment,
	// …, or *corev1.PodTemplateSpec for a custom resource).
	Typed any
}

// Result is what loading one file produced.
type Result struct {
	File     *File
	Objects  []*Object // workloads and other objects with apiVersion and kind
	Problems []Problem
	// Binary is set when the file is not text (NUL bytes, not UTF-8): it
	// was not parsed, and its content must not be echoed in reports.
	Binary bool
}

// Limits bound the work one input can cause.
type Limits struct {
	MaxFileSize  int64 // bytes
	MaxDocuments int   // per file
	MaxDepth     int   // nesting of mappings and lists
	MaxNodes     int   // node visits per document, counting alias expansions
}

// DefaultLimits are generous for real manifests and small enough that hostile
// input ends quickly.
var DefaultLimits = Limits{
	MaxFileSize:  64 << 20,
	MaxDocuments: 20000,
	MaxDepth:     200,
	MaxNodes:     2_000_000,
}

// SnippetWidth is the most bytes of a source line a snippet holds (plus
// the Ellipsis marks where it was cut).
const SnippetWidth = 160

// Ellipsis marks where a snippet was cut.
const Ellipsis = "…"

// Snippet returns the part of 1-based line n to show under a finding at
// 1-based byte column col: the whole line when it is short, otherwise about
// SnippetWidth bytes around the column, cut at character boundaries and
// marked with Ellipsis at each cut. cut and cutRunes are the bytes and
// characters of the line before the window. A finding copies its snippet,
// so this bound is what keeps a minified one-line file with thousands of
// findings from costing thousands of copies of the line.
func (f *File) Snippet(n, col int) (text string, cut, cutRunes int) {
	line := f.lineBytes(n)
	if len(line) <= SnippetWidth {
		return string(line), 0, 0
	}
	off := min(max(col-1, 0), len(line))
	start := max(0, min(off-SnippetWidth/2, len(line)-SnippetWidth))
	for start > 0 && !utf8.RuneStart(line[start]) {
		start--
	}
	end := min(len(line), start+SnippetWidth)
	for end < len(line) && !utf8.RuneStart(line[end]) {
		end--
	}
	var b strings.Builder
	b.Grow(end - start + 2*len(Ellipsis))
	if start > 0 {
		b.WriteString(Ellipsis)
	}
	b.Write(line[start:end])
	if end < len(line) {
		b.WriteString(Ellipsis)
	}
	return b.String(), start, f.runesBefore(n, line, start)
}

// runeStep is the spacing of the character counts kept for long lines.
const runeStep = 4096

// runesBefore counts the characters of line n (whose bytes are line) before
// byte off. Counting from the line start for every finding on a minified
// one-line file was quadratic, so long lines get cumulative counts every
// runeStep bytes, computed once.
func (f *File) runesBefore(n int, line []byte, off int) int {
	idx := f.runeCounts(n, line)
	k := off / runeStep
	return idx[k] + runeStarts(line[k*runeStep:off])
}

// runeCounts returns the number of characters of line n (whose bytes are
// line) before every runeStep-th byte, computing them once per line.
func (f *File) runeCounts(n int, line []byte) []int {
	f.runeMu.Lock()
	defer f.runeMu.Unlock()
	if f.runeIndex == nil {
		f.runeIndex = map[int][]int{}
	}
	idx, ok := f.runeIndex[n]
	if !ok {
		idx = make([]int, 0, len(line)/runeStep+1)
		c := 0
		for i := 0; i < len(line); i += runeStep {
			idx = append(idx, c)
			c += runeStarts(line[i:min(i+runeStep, len(line))])
		}
		f.runeIndex[n] = idx
	}
	return idx
}

// runeStarts counts the bytes of b that start a character (valid UTF-8,
// which a parsed file is, has one per character), so that counts over
// adjacent pieces add up even where a piece cuts a character.
func runeStarts(b []byte) int {
	n := 0
	for _, c := range b {
		if c&0xC0 != 0x80 {
			n++
		}
	}
	return n
}
