package lsp

import (
	"bytes"
	"fmt"

	"github.com/podlint/podlint/finding"
)

func (s *Server) hover(p *textDocumentPositionParams) *hoverResult {
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	enc, width := s.enc, s.hoverWidth
	s.mu.Unlock()
	if d == nil {
		return nil
	}
	s.mu.Lock()
	t, path := d.text, d.path
	s.mu.Unlock()
	md, from, to := s.opts.Engine.Hover(path, t.data, t.offset(p.Position, enc), width)
	if md == "" {
		return nil
	}
	fl, fc := t.lineOf(from)
	tl, tc := t.lineOf(to)
	return &hoverResult{Contents: markupContent{Kind: "markdown", Value: md},
		Range: &Range{Start: t.position(fl, fc, enc), End: t.position(tl, tc, enc)}}
}

// Rules whose findings a suppression comment cannot usefully hide: those
// about suppressions themselves.
var unsuppressible = map[string]bool{"PL010": true, "PL011": true, "config": true, "render": true}

// codeActions offers, for the findings on the lines of the range, their
// fixes and a suppression comment, and a "fix all" of the file's safe
// fixes.
func (s *Server) codeActions(p *codeActionParams) []codeAction {
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	enc := s.enc
	var fs []finding.Finding
	var t *text
	var path string
	if d != nil {
		path, t = d.path, d.text
		if d.lintedVersion == d.version {
			fs, t = d.linted, d.lintedText
		}
	}
	s.mu.Unlock()
	if d == nil {
		return nil
	}
	if fs == nil && t != nil {
		fs = s.opts.Engine.Lint(path, t.data)
	}
	wantQuick, wantAll := len(p.Context.Only) == 0, len(p.Context.Only) == 0
	for _, k := range p.Context.Only {
		switch {
		case k == kindQuickFix:
			wantQuick = true
		case k == "source" || k == "source.fixAll" || k == kindSourceFix:
			wantAll = true
		}
	}
	actions := []codeAction{}
	if wantQuick {
		for i := range fs {
			f := &fs[i]
			if f.Line-1 < p.Range.Start.Line || f.Line-1 > p.Range.End.Line {
				continue
			}
			diag := s.diagnostic(f, t, enc)
			actions = append(actions, s.fixActions(f, diag, t, d.uri, enc)...)
			if unsuppressible[f.RuleID] || f.Rendered != nil {
				continue
			}
			actions = append(actions, codeAction{
				Title:       fmt.Sprintf("Suppress %s (%s) here", f.RuleID, f.RuleName),
				Kind:        kindQuickFix,
				Diagnostics: []Diagnostic{diag},
				Edit:        &workspaceEdit{Changes: map[string][]textEdit{d.uri: {suppressEdit(t, f.Line-1, f.RuleID, enc)}}},
			})
		}
	}
	if wantAll {
		if a := s.fixAllAction(fs, t, d.uri, enc); a != nil {
			actions = append(actions, *a)
		}
	}
	return actions
}

// suppressEdit inserts, above zero-based line n, a comment that
// suppresses rule on it, indented like it and with an empty reason for the
// user to write (PL011 asks for one until then).
func suppressEdit(t *text, n int, rule string, enc string) textEdit {
	l := t.line(n)
	indent := l[:len(l)-len(bytes.TrimLeft(l, " \t"))]
	eol := "\n"
	if end := t.starts[n] + len(l); end < len(t.data) && t.data[end] == '\r' {
		eol = "\r\n"
		if end+1 >= len(t.data) || t.data[end+1] != '\n' {
			eol = "\r"
		}
	}
	at := t.position(n, 0, enc)
	return textEdit{Range: Range{Start: at, End: at}, NewText: string(indent) + "# podlint:ignore " + rule + " " + eol}
}

// fixActions are the quick fixes of a finding; none until findings carry
// fixes (podlint fix).
func (s *Server) fixActions(f *finding.Finding, diag Diagnostic, t *text, uri, enc string) []codeAction {
	return nil
}

// fixAllAction applies every safe fix of the file; nil when there is none.
func (s *Server) fixAllAction(fs []finding.Finding, t *text, uri, enc string) *codeAction {
	return nil
}
