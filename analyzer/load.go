package analyzer

import (
	"errors"

	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/workload"
)

// Loaded is one source as the loader reads it for a command that shows
// objects rather than findings (podlint timeline): its objects, and for a
// render root the rendered output whose source map places their fields,
// by the same rules that place check's findings.
type Loaded struct {
	Path   string
	Result *manifest.Result
	// Rendered is the render root's output (nil for a plain file); its
	// problems are Rendered.Problems.
	Rendered *manifest.RenderedRoot
	// TooBig is set when the file, or the rendered output, is over
	// --max-file-size and was not loaded.
	TooBig bool
}

// Load reads and parses one source; a render root is rendered by Open
// first. err is an I/O failure or a root that cannot be rendered. The
// caller calls Close.
func (l *Linter) Load(src manifest.Source) (*Loaded, error) {
	ld := &Loaded{Path: src.Path, Result: &manifest.Result{}}
	var data []byte
	switch {
	case src.Render != "":
		if l.Open == nil {
			return nil, errRenderOff(src)
		}
		r, err := l.Open(src)
		if err != nil {
			return nil, err
		}
		ld.Rendered, data = r, r.Stream
		if lim := l.Limits.MaxFileSize; lim > 0 && int64(len(data)) > lim {
			ld.TooBig = true
			return ld, nil
		}
	case src.Data != nil:
		data = src.Data
	default:
		d, tooBig, err := src.Read(l.Limits.MaxFileSize)
		if err != nil {
			return nil, err
		}
		if tooBig {
			ld.TooBig = true
			return ld, nil
		}
		data = d
	}
	if manifest.SkipWalkedJSON(src, data) {
		return ld, nil
	}
	ld.Result = manifest.Parse(src.Path, data, l.Limits)
	return ld, nil
}

// Place is where the field at path of o is in the files the user edits:
// the position Document.Locate resolves it to (the field, or its nearest
// written ancestor, Approximate then), moved by the source map for a
// render root exactly as check moves a finding reported at path. written
// says whether the field is in the (rendered) document at all.
func (l *Loaded) Place(o *manifest.Object, path workload.Path) (m manifest.Mapped, written bool) {
	pos, exact := o.Doc.Locate(path)
	if l.Rendered == nil || l.Rendered.Map == nil {
		return manifest.Mapped{File: l.Path, Line: pos.Line, Column: pos.Column, Approximate: !exact, Path: string(path), Doc: o.Doc.Index,
			CodePointColumn: o.Doc.File.CodePointColumn(pos.Line, pos.Column)}, exact
	}
	m = l.Rendered.Map.Locate(pos.Line, pos.Column, string(path))
	m.Approximate = m.Approximate || !exact
	return m, exact
}

// Close releases the files a render root's source map holds.
func (l *Loaded) Close() {
	if l.Rendered != nil && l.Rendered.Map != nil {
		l.Rendered.Map.Close()
	}
}

// ErrTooBig is what Load's caller reports for a source over the limit.
func (l *Linter) ErrTooBig(ld *Loaded) error {
	what := ld.Path
	if ld.Rendered != nil {
		what = "the rendered output of " + ld.Path
	}
	return errors.New(TooBig(what, l.Limits.MaxFileSize) + "; skipped")
}
