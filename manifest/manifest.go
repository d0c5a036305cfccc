// Package manifest turns files into Kubernetes objects: it splits YAML and
// JSON streams into documents, parses each once into yaml.v3 nodes (for
// positions), decodes workloads into the typed k8s.io/api structs exactly as
// kubectl would, and normalizes every workload kind to one view of its Pod
// template.
package manifest

import (
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
	yaml "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Names of the input rules whose findings the loader produces.
const (
	RuleInvalidYAML     = "invalid-yaml"
	RuleInvalidManifest = "invalid-manifest"
	RuleUnknownField    = "unknown-field"
	RuleDuplicateKey    = "duplicate-key"
	RuleHelmTemplate    = "helm-template"
	RuleLimitExceeded   = "limit-exceeded"
)

// Problem is something wrong with the input itself, already positioned.
type Problem struct {
	Rule    string // one of the Rule* names
	Line    int    // 1-based, in the file
	Column  int    // 1-based
	Message string
	Object  *finding.ObjectRef
	// Source is the Document.Source of the document the problem is in.
	Source string
}

// File is one input with its bytes, kept while its objects are analyzed.
type File struct {
	Path string // as shown to users: relative as given, or the --stdin-filename
	Data []byte
	// lineStarts[i] is the byte offset of line i+1.
	lineStarts []int
}

// NewFile indexes data for line lookups. Lines end where the YAML parser's
// lines end (see breakLen), so a line number means the same to the parser,
// the snippet and the suppression comments.
func NewFile(path string, data []byte) *File {
	starts := []int{0}
	for i := 0; ; {
		j, n := nextBreak(data[i:])
		if j < 0 {
			break
		}
		i += j + n
		starts = append(starts, i)
	}
	return &File{Path: path, Data: data, lineStarts: starts}
}

// lineBytes returns 1-based line n without its line break, sharing data.
func (f *File) lineBytes(n int) []byte {
	if n < 1 || n > len(f.lineStarts) {
		return nil
	}
	start := f.lineStarts[n-1]
	end := len(f.Data)
	if n < len(f.lineStarts) {
		end = f.lineStarts[n]
	}
	line, _ := cutLine(f.Data[start:end])
	return line
}

// Line returns the text of 1-based line n without its line break.
func (f *File) Line(n int) string {
	return string(f.lineBytes(n))
}

// Lines is the number of lines in the file.
func (f *File) Lines() int { return len(f.lineStarts) }

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
}

// Object is one Kubernetes object (a document, or an item of a List).
type Object struct {
	Doc  *Document
	Node *yaml.Node // the object's mapping
	// Path is "" for a document's own object and "items[i]" inside a List.
	Path string
	Ref  finding.ObjectRef
	// Meta is the object's metadata; TemplateMeta the pod template's (the
	// same as Meta for a Pod). Both are nil for objects that are not workloads.
	Meta         *metav1.ObjectMeta
	TemplateMeta *metav1.ObjectMeta
	// TemplatePath is the path of the pod template ("spec.template", …), or
	// the object path for a Pod.
	TemplatePath string
	// Workload is nil for objects that are not workloads.
	Workload *timeline.Workload
	// Typed is the decoded k8s.io/api object (*corev1.Pod, *appsv1.Deployment,
	// …, or *corev1.PodTemplateSpec for a custom resource).
	Typed any
}

// Result is what loading one file produced.
type Result struct {
	File     *File
	Objects  []*Object // workloads and other objects with apiVersion and kind
	Problems []Problem
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
