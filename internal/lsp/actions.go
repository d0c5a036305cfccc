package lsp

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
)

func (s *Server) hover(p *textDocumentPositionParams) *hoverResult {
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	enc, width, kind := s.enc, s.hoverWidth, s.hoverKind
	s.mu.Unlock()
	if d == nil {
		return nil
	}
	s.mu.Lock()
	t, path := d.text, d.path
	s.mu.Unlock()
	chart, from, to := s.opts.Engine.Hover(path, t.data, t.offset(p.Position, enc), width)
	if chart == "" {
		return nil
	}
	if kind == markupMarkdown {
		// A code block: the chart's characters are not Markdown.
		chart = "```text\n" + chart + "```\n"
	}
	fl, fc := t.lineOf(from)
	tl, tc := t.lineOf(to)
	return &hoverResult{Contents: markupContent{Kind: kind, Value: chart},
		Range: &Range{Start: t.position(fl, fc, enc), End: t.position(tl, tc, enc)}}
}

// inlayHints are the timeline notes on the lines of the range, for the
// document's current text.
func (s *Server) inlayHints(p *inlayHintParams) []inlayHint {
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	enc := s.enc
	var t *text
	var path string
	if d != nil {
		t, path = d.text, d.path
	}
	s.mu.Unlock()
	out := []inlayHint{}
	if d == nil {
		return out
	}
	for _, h := range s.opts.Engine.InlayHints(path, t.data) {
		l, c := t.lineOf(h.Off)
		if l < p.Range.Start.Line || l > p.Range.End.Line {
			continue
		}
		out = append(out, inlayHint{Position: t.position(l, c, enc), Label: h.Label, PaddingLeft: true})
	}
	return out
}

// unsuppressible reports whether a suppression comment cannot usefully
// hide the findings of rule id: those about suppressions themselves, and
// the server's own problems, which are not rules. Rules are named by
// their values, never by literal IDs (a literal once named PL010, the
// duplicate container, for PL008).
func unsuppressible(id string) bool {
	switch id {
	case rules.UnusedSuppression.ID, rules.SuppressionMissingReason.ID, problemConfig, problemRender:
		return true
	}
	return false
}

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
	linted := false
	if d != nil {
		path, t = d.path, d.text
		if d.lintedVersion == d.version {
			fs, t, linted = d.linted, d.lintedText, true
		}
	}
	s.mu.Unlock()
	if d == nil {
		return nil
	}
	if !linted {
		// The current version is not linted yet (the debounce): lint it
		// now, so that the actions match the text they edit.
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
	fixes := make([][]finding.Fix, len(fs))
	if wantQuick {
		var near []finding.Finding
		var at []int
		for i := range fs {
			if fs[i].Line-1 >= p.Range.Start.Line && fs[i].Line-1 <= p.Range.End.Line && len(fs[i].Fixes) > 0 {
				near, at = append(near, fs[i]), append(at, i)
			}
		}
		if len(near) > 0 {
			for k, xs := range s.opts.Engine.Fixes(path, t.data, near) {
				fixes[at[k]] = xs
			}
		}
	}
	// JSON has no comments: a suppression comment would break the file
	// for kubectl.
	commentable := !manifest.IsJSON(path, t.data)
	if wantQuick {
		for i := range fs {
			f := &fs[i]
			if f.Line-1 < p.Range.Start.Line || f.Line-1 > p.Range.End.Line {
				continue
			}
			diag := s.diagnostic(f, t, enc)
			actions = append(actions, s.fixActions(f, fixes[i], diag, t, d.uri, enc)...)
			if !commentable || unsuppressible(f.RuleID) || f.Rendered != nil {
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
		if a := s.fixAllAction(path, t, d.uri, enc); a != nil {
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

// fixActions are the verified fixes of a finding as quick fixes: the first
// safe one preferred, unsafe ones labelled.
func (s *Server) fixActions(f *finding.Finding, fixes []finding.Fix, diag Diagnostic, t *text, uri, enc string) []codeAction {
	var out []codeAction
	preferred := false
	for _, x := range fixes {
		a := codeAction{Title: x.Title, Kind: kindQuickFix, Diagnostics: []Diagnostic{diag},
			Edit: &workspaceEdit{Changes: map[string][]textEdit{uri: editsOf(x.Edits, t, enc)}}}
		if x.Safety == finding.Safe && !preferred {
			a.IsPreferred, preferred = true, true
		}
		if x.Safety != finding.Safe {
			a.Title += " (unsafe: changes behaviour)"
		}
		out = append(out, a)
	}
	return out
}

// editsOf converts byte-range edits of t to LSP edits.
func editsOf(edits []finding.Edit, t *text, enc string) []textEdit {
	out := make([]textEdit, 0, len(edits))
	for _, e := range edits {
		sl, sc := t.lineOf(e.Start)
		el, ec := t.lineOf(e.End)
		out = append(out, textEdit{Range: Range{Start: t.position(sl, sc, enc), End: t.position(el, ec, enc)}, NewText: e.NewText})
	}
	return out
}

// fixAllAction applies every safe fix of the file as podlint fix does, as
// one edit of the part that changes; nil when there is none.
func (s *Server) fixAllAction(path string, t *text, uri, enc string) *codeAction {
	fixed, n := s.opts.Engine.FixAll(path, t.data)
	if n == 0 {
		return nil
	}
	old := t.data
	pre := 0
	for pre < len(old) && pre < len(fixed) && old[pre] == fixed[pre] {
		pre++
	}
	suf := 0
	for suf < len(old)-pre && suf < len(fixed)-pre && old[len(old)-1-suf] == fixed[len(fixed)-1-suf] {
		suf++
	}
	// Whole characters only: an edit must not split a UTF-8 sequence.
	for pre > 0 && !utf8.RuneStart(old[pre]) {
		pre--
	}
	for suf > 0 && len(old)-suf < len(old) && !utf8.RuneStart(old[len(old)-suf]) {
		suf--
	}
	e := finding.Edit{Start: pre, End: len(old) - suf, NewText: string(fixed[pre : len(fixed)-suf])}
	title := "Fix all safe podlint findings in this file"
	if n == 1 {
		title = "Fix the safe podlint finding in this file"
	}
	return &codeAction{Title: fmt.Sprintf("%s (%d)", title, n), Kind: kindSourceFix,
		Edit: &workspaceEdit{Changes: map[string][]textEdit{uri: editsOf([]finding.Edit{e}, t, enc)}}}
}
