package analyzer

import (
	"bytes"
	"regexp"
	"sort"
	"strings"

	"github.com/podlint/podlint/crossobject"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/workload"
)

// AnnotationPrefix starts the annotation key that suppresses a rule for an
// object: ignore-check.podlint.dev/<ID-or-name>: "<reason>".
const AnnotationPrefix = "ignore-check.podlint.dev/"

type suppression struct {
	name   string      // as written
	rule   *rules.Rule // nil when name is not a rule
	reason string
	line   int // for comments: the line whose findings it suppresses
	pos    manifest.Pos
	obj    *finding.ObjectRef // for annotations: the object it covers
	objAt  crossobject.Pos    // for annotations: that object in the cross-object view
	used   bool
	// unjudged is set for a comment in a document that did not parse:
	// neither used nor unused.
	unjudged bool
	// nearest is, for a comment, the kept finding of its rule in the same
	// file whose line is closest to the line the comment covers (the
	// earlier on a tie); its Line is 0 while there is none.
	nearest finding.Location
}

// near records f, a finding of s's rule that stays, if it is nearer to the
// line s covers than the nearest so far.
func (s *suppression) near(f *finding.Finding) {
	d := func(line int) int { return max(line-s.line, s.line-line) }
	if s.nearest.Line == 0 || d(f.Line) < d(s.nearest.Line) || d(f.Line) == d(s.nearest.Line) && f.Line < s.nearest.Line {
		s.nearest = finding.Location{Line: f.Line, Column: f.Column}
	}
}

func (s *suppression) matches(f *finding.Finding) bool {
	return s.rule != nil && f.RuleID == s.rule.ID
}

var ignoreComment = regexp.MustCompile(`(?:^|\s)#\s*podlint:ignore(?:\s+([^\s]+))?(?:\s+(.*))?$`)

// scanComments finds `# podlint:ignore RULE[,RULE] reason` comments. A
// comment after other text covers its own line; a comment on a line of its
// own covers the next line that is not a comment.
func scanComments(f *manifest.File, known rules.List) []*suppression {
	if !bytes.Contains(f.Data, []byte("podlint:ignore")) {
		return nil
	}
	var out []*suppression
	var pending []*suppression // own-line comments waiting for their line
	for n := 1; n <= f.Lines(); n++ {
		line := f.Line(n)
		trimmed := strings.TrimSpace(line)
		m := ignoreComment.FindStringSubmatchIndex(line)
		if m == nil {
			if trimmed != "" && !strings.HasPrefix(trimmed, "#") {
				for _, s := range pending {
					s.line = n
				}
				pending = nil
			}
			continue
		}
		col := strings.Index(line[m[0]:], "#") + m[0] + 1
		names := ""
		if m[2] >= 0 {
			names = line[m[2]:m[3]]
		}
		reason := ""
		if m[4] >= 0 {
			reason = strings.TrimSpace(line[m[4]:m[5]])
		}
		ownLine := strings.HasPrefix(trimmed, "#")
		for _, name := range strings.Split(names, ",") {
			s := &suppression{name: name, rule: known.Lookup(name), reason: reason, pos: manifest.Pos{Line: n, Column: col}}
			if ownLine {
				pending = append(pending, s)
			} else {
				s.line = n
			}
			out = append(out, s)
		}
	}
	return out
}

// annotationSuppressions reads ignore-check annotations of the object and of
// its pod template.
func annotationSuppressions(o *manifest.Object, known rules.List) []*suppression {
	var out []*suppression
	if o.Meta != nil {
		out = append(out, annotationSuppressionsOf(o, o.Meta.Annotations, o.Path.Field("metadata"), known)...)
	}
	if o.TemplateMeta != nil && o.TemplateMeta != o.Meta {
		out = append(out, annotationSuppressionsOf(o, o.TemplateMeta.Annotations, o.TemplatePath.Field("metadata"), known)...)
	}
	return out
}

// annotationSuppressionsOf reads the ignore-check annotations of one
// metadata block of o.
func annotationSuppressionsOf(o *manifest.Object, ann map[string]string, metaPath workload.Path, known rules.List) []*suppression {
	var out []*suppression
	keys := make([]string, 0, len(ann))
	for k := range ann {
		if strings.HasPrefix(k, AnnotationPrefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		name := strings.TrimPrefix(k, AnnotationPrefix)
		pos, _ := o.Doc.Locate(metaPath.Field("annotations").Field(k))
		// Point at the key, not the value: it is the key that names the rule.
		pos.Column = keyColumn(o.Doc.File.Line(pos.Line), k, pos.Column)
		ref := o.Ref // a copy: the suppression outlives the object's nodes
		out = append(out, &suppression{name: name, rule: known.Lookup(name), reason: strings.TrimSpace(ann[k]), pos: pos, obj: &ref})
	}
	return out
}

func keyColumn(line, key string, fallback int) int {
	if i := strings.Index(line, key); i >= 0 {
		if i > 0 && (line[i-1] == '"' || line[i-1] == '\'') {
			i--
		}
		return i + 1
	}
	return fallback
}

// CommentSuppresses reports whether a `# podlint:ignore` comment in data
// (the file f points into) suppresses f. It serves findings made outside a
// file's linting, such as a chart's render errors in Chart.yaml.
func (l *Linter) CommentSuppresses(data []byte, f *finding.Finding) bool {
	for _, s := range scanComments(manifest.NewFile(f.File, data), l.Rules) {
		if s.line == f.Line && s.matches(f) {
			return true
		}
	}
	return false
}
