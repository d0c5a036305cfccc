package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/podlint/podlint/finding"
)

// jsonVersion is bumped only for incompatible changes to the json format;
// adding a field is not one. docs/output.md documents every field.
const jsonVersion = 1

// The json format has its own structs rather than marshalling
// finding.Finding directly: the schema is a promise to scripts, and it must
// not change because someone adds a field or a tag to the shared type.
// Every field is always present (empty string, null object, empty list) so
// that jq filters need no existence checks.
type jsonReport struct {
	// Version is the schema version under the key earlier releases used;
	// it stays for one release so that scripts reading it keep working.
	Version int `json:"version"`
	// SchemaVersion is the same number under the key `podlint timeline -f
	// json` uses too: the one to read.
	SchemaVersion int           `json:"schemaVersion"`
	Findings      []jsonFinding `json:"findings"`
	Summary       jsonSummary   `json:"summary"`
}

type jsonFinding struct {
	ID        string      `json:"id"`
	Name      string      `json:"name"`
	Severity  string      `json:"severity"`
	File      string      `json:"file"`
	Line      int         `json:"line"`
	Column    int         `json:"column"`
	Object    *jsonObject `json:"object"`
	Container string      `json:"container"`
	// Path is the field the finding is about, "" for the loader's.
	Path    string         `json:"path"`
	Message string         `json:"message"` // headline
	Detail  string         `json:"detail"`
	Related []jsonLocation `json:"related"`
	// Rendered is set for findings in a rendered Helm chart or
	// kustomization: the file above is the template or patch, this is the
	// root and the field in the rendered object.
	Rendered *jsonRendered `json:"rendered"`
	// Fixes are the edits that resolve the finding, the default first;
	// empty when it has none.
	Fixes []jsonFix `json:"fixes"`
}

type jsonFix struct {
	Title  string     `json:"title"`
	Safety string     `json:"safety"` // safe or unsafe
	Edits  []jsonEdit `json:"edits"`
}

// jsonEdit replaces bytes [start, end) of the file with newText; the line
// and column fields are the same positions, 1-based, columns in bytes.
type jsonEdit struct {
	File        string `json:"file"`
	Start       int    `json:"start"`
	End         int    `json:"end"`
	StartLine   int    `json:"startLine"`
	StartColumn int    `json:"startColumn"`
	EndLine     int    `json:"endLine"`
	EndColumn   int    `json:"endColumn"`
	NewText     string `json:"newText"`
}

type jsonRendered struct {
	Root string `json:"root"`
	// Roots are every root the finding was found through: more than Root
	// when several render its file (a kustomize base under overlays).
	Roots    []string `json:"roots"`
	Template string   `json:"template"`
	Path     string   `json:"path"`
	// Approximate: the field is not written literally in the file, so
	// line and column are the closest position found.
	Approximate bool `json:"approximate"`
}

type jsonObject struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
}

type jsonLocation struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

type jsonSummary struct {
	Files     int `json:"files"`
	Objects   int `json:"objects"`
	Workloads int `json:"workloads"`
	Errors    int `json:"errors"`
	Warnings  int `json:"warnings"`
	Infos     int `json:"infos"`
	// Rendered lists the charts and kustomizations that were rendered.
	Rendered []string `json:"rendered"`
	// ConfigFile is the configuration file used, "" for none.
	ConfigFile string `json:"configFile"`
	// NotRendered lists the charts and kustomizations the render budget
	// left unrendered; absent when none.
	NotRendered []string `json:"notRendered,omitempty"`
	// Skipped counts the walked .json files that are not Kubernetes
	// objects; absent when none.
	Skipped int `json:"skipped,omitempty"`
	// Suppressed lists the findings of organisation policies that a
	// suppression with a reason hid; absent when none.
	Suppressed []jsonSuppressed `json:"suppressed,omitempty"`
}

// jsonSuppressed is a suppressed finding with the suppression's reason.
type jsonSuppressed struct {
	jsonFinding
	Reason string `json:"reason"`
}

// writeJSON prints paths as the user gave them (displayPath), like the text
// format: the json output is for scripts running next to the user, not for
// a server that needs repository-relative paths (sarif and codeclimate do
// that).
//
// The findings are encoded one at a time, at the indentation they have in
// the report, so the output is the bytes encoding the whole jsonReport
// would give without the report ever being held in memory.
//
// The summary counts all, findings below --show included, as the text tally
// does; res is what is listed.
func writeJSON(w sink, res, all *finding.Result) error {
	head := jsonReport{SchemaVersion: jsonVersion, Version: jsonVersion}
	if err := writeJSONArray(w, fmt.Sprintf("{\n  \"version\": %d,\n  \"schemaVersion\": %d,\n  \"findings\": [", head.Version, head.SchemaVersion), "    ", res.Len(), func(i int) any {
		f := res.At(i)
		return toJSONFinding(&f)
	}); err != nil {
		return err
	}
	e, wn, i := all.Counts()
	sum := jsonSummary{res.Summary.Files, res.Summary.Objects, res.Summary.Workloads, e, wn, i, append([]string{}, res.Summary.Rendered...), res.Summary.ConfigFile,
		res.Summary.NotRendered, res.Summary.Skipped, nil}
	for _, s := range res.Summary.Suppressed {
		sum.Suppressed = append(sum.Suppressed, jsonSuppressed{*toJSONFinding(&s.Finding), s.Reason})
	}
	w.WriteString(",\n  \"summary\": ")
	enc := newJSONEncoder(w, "  ")
	if err := enc.Encode(sum); err != nil {
		return err
	}
	// Encode ended the summary with a newline; the report closes after it.
	_, err := w.WriteString("}\n")
	return err
}

func toJSONFinding(f *finding.Finding) *jsonFinding {
	jf := &jsonFinding{
		ID:        f.RuleID,
		Name:      f.RuleName,
		Severity:  f.Severity.String(),
		File:      displayPath(f.File),
		Line:      f.Line,
		Column:    f.Column,
		Container: f.Container,
		Path:      f.Path,
		Message:   f.Headline(),
		Detail:    f.Explanation(),
		Related:   make([]jsonLocation, 0, len(f.Related)),
		Fixes:     make([]jsonFix, 0, len(f.Fixes)),
	}
	for _, x := range f.Fixes {
		jx := jsonFix{Title: x.Title, Safety: x.Safety.String(), Edits: make([]jsonEdit, 0, len(x.Edits))}
		for _, e := range x.Edits {
			jx.Edits = append(jx.Edits, jsonEdit{displayPath(e.File), e.Start, e.End, e.StartLine, e.StartColumn, e.EndLine, e.EndColumn, e.NewText})
		}
		jf.Fixes = append(jf.Fixes, jx)
	}
	if f.Object != nil {
		jf.Object = &jsonObject{f.Object.APIVersion, f.Object.Kind, f.Object.Namespace, f.Object.Name}
	}
	if r := f.Rendered; r != nil {
		jf.Rendered = &jsonRendered{Root: displayPath(r.Root), Roots: []string{displayPath(r.Root)}, Template: r.Name, Path: r.Path, Approximate: r.Approximate}
		if len(r.Roots) > 0 {
			jf.Rendered.Roots = jf.Rendered.Roots[:0]
			for _, root := range r.Roots {
				jf.Rendered.Roots = append(jf.Rendered.Roots, displayPath(root))
			}
		}
	}
	for _, r := range f.Related {
		jf.Related = append(jf.Related, jsonLocation{displayPath(r.File), r.Line, r.Column, r.Message})
	}
	return jf
}

// writeJSONArray writes open (which ends with "["), then the n elements
// item(i) encoded one at a time at indentation indent, then "]", exactly
// as encoding the whole array with two-space indentation would: "[]" when
// empty, otherwise one element per block with "," between them and the
// closing bracket on a line of its own, two spaces left of the elements.
func writeJSONArray(w sink, open, indent string, n int, item func(int) any) error {
	w.WriteString(open)
	if n == 0 {
		_, err := w.WriteString("]")
		return err
	}
	var b bytes.Buffer
	enc := newJSONEncoder(&b, indent)
	for i := range n {
		b.Reset()
		if err := enc.Encode(item(i)); err != nil {
			return err
		}
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString("\n" + indent)
		w.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	}
	_, err := w.WriteString("\n" + indent[2:] + "]")
	return err
}

// newJSONEncoder encodes with two-space indentation under prefix. HTML
// escaping is off: messages quote shell snippets with < > &, and \u003c
// in a report helps nobody.
func newJSONEncoder(w io.Writer, prefix string) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	return enc
}

// encodeJSON writes v with two-space indentation and a trailing newline.
func encodeJSON(buf *bytes.Buffer, v any) error {
	return newJSONEncoder(buf, "").Encode(v)
}
