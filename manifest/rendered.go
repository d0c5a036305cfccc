package manifest

import (
	"fmt"

	"github.com/podlint/podlint/finding"
)

// RenderedRoot is a Helm chart or a kustomization as the loader takes it from
// the render stage (render.Open): the rendered documents as one YAML
// stream, loaded like a file, and the source map that places their fields
// in the templates, patches and resource files the user edits.
type RenderedRoot struct {
	// Label names the root in the run's summary: "charts/shop (helm
	// chart)", "deploy/prod (kustomization), also rendering deploy/base".
	Label string
	// RootFile is the file that stands for the root (Chart.yaml, the
	// kustomization): problems of the root as a whole are reported there.
	RootFile string
	// Stream is the rendered documents, each after a "---" line.
	Stream []byte
	// Paths are the files on disk the render read (absolute, sorted): the
	// run counts each once however many renders read it.
	Paths []string
	// Problems are what kept parts of the root from rendering, positioned
	// in its files.
	Problems []RenderProblem
	// Map places positions and fields of Stream in the source files.
	Map SourceMap
	// NotRendered says the root was not rendered because the run's render
	// budget was spent (its problem says so): the summary lists it apart.
	NotRendered bool
}

// RenderProblem is a problem of rendering, at a position in a source file.
type RenderProblem struct {
	File            string
	Line, Column    int
	Message, Detail string
}

// SourceMap places the fields of a rendered stream in the files the user
// edits. It reads those files only inside the repository of the root.
type SourceMap interface {
	// Locate maps a field of the stream. path is the field path, in the
	// document that holds stream line line, as Document.Locate resolves
	// it (the field, or its nearest ancestor that is written); when path
	// is "" the field is the one at line and byte column col.
	Locate(line, col int, path string) Mapped
	// File is a source file's content (nil when it cannot be read inside
	// the repository), for quoted lines and suppression comments.
	File(path string) []byte
	// Close releases the files the map holds open.
	Close()
}

// SourceEditor is a SourceMap that can move a fix of the rendered stream
// to the file the user edits.
type SourceEditor interface {
	// MoveFix returns fix x, whose edits are of the stream, as edits of
	// the source files: each edit must set a scalar at one of x.Paths, and
	// that scalar must be written literally in a template line or a
	// kustomize patch or resource, or come unchanged from one key of a
	// values file. The error says why the fix cannot be moved.
	MoveFix(x finding.Fix) (finding.Fix, error)
}

// Mapped is where a rendered field comes from.
type Mapped struct {
	File            string
	Line, Column    int // Column counts bytes
	CodePointColumn int // Column in Unicode code points
	// Approximate is set when the field is not written literally at the
	// position (a value a template computes, a field a transformer adds):
	// it is the closest one found.
	Approximate bool
	// Template is Helm's name of the template the document came from
	// ("shop/templates/deployment.yaml"), "" for kustomize.
	Template string
	// Path is the field in the rendered object that was mapped ("" for a
	// position outside every document).
	Path string
	// Doc is the index of the rendered document, -1 for none.
	Doc int
	// Source is the Helm template file the document was rendered from,
	// "" for kustomize: a field a helper it includes writes is in another
	// File, yet a run naming the template reports it (the template is
	// what the user names; the helper is part of it).
	Source string
	// Value is where the Helm value a template line reads was set, or nil.
	Value *MappedValue
}

// MappedValue is a key of a values file.
type MappedValue struct {
	File            string
	Line, Column    int
	CodePointColumn int
	Key             string // ".Values.resources.limits"
}

// RenderCrash is the problem of a root whose rendering, or the mapping of
// its output, panicked: one problem at the root, and the run goes on.
func RenderCrash(src Source, rootFile string, p any) RenderProblem {
	return RenderProblem{File: rootFile, Line: 1, Column: 1,
		Message: fmt.Sprintf("rendering crashed inside %s", src.Render),
		Detail:  fmt.Sprintf("%v; the other inputs were still linted. Please report this bug with the chart or kustomization.", p)}
}
