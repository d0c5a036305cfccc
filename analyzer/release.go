package analyzer

import (
	"fmt"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/release"
	"github.com/podlint/podlint/rules"
)

// filePart is what one file leaves for the cross-object rules, which run
// once after every file was linted: the file's share of the release view
// and the suppressions that name cross-object rules (their use is known
// only then).
type filePart struct {
	part     release.Part
	deferred []*deferredSuppression
}

// deferredSuppression is a suppression of a cross-object rule, detached
// from its file.
type deferredSuppression struct {
	rule *rules.Rule
	file string
	line int                // comment: the line it covers; 0 for annotations
	obj  release.Pos        // annotation: the covered object (release.Object.Key)
	pos  finding.Location   // where the suppression is written
	text string             // its source line
	ref  *finding.ObjectRef // copy
	used bool
}

func isRelease(r *rules.Rule) bool { return r != nil && r.Release != nil }

// releaseAnnotations reads the suppressions of cross-object rules written
// on an object that is not a workload (a Service, a budget, …); other
// suppressions there have never meant anything and stay ignored.
func (fl *fileLinter) releaseAnnotations(o *manifest.Object, ro *release.Object) {
	for _, s := range annotationSuppressionsOf(o, ro.Annotations, o.Path.Field("metadata"), fl.cfg.Rules) {
		if isRelease(s.rule) {
			s.objAt = ro.Key()
			fl.sup = append(fl.sup, s)
		}
	}
}

// deferSuppression keeps a suppression of a cross-object rule for the end
// of the run.
func (fl *fileLinter) deferSuppression(s *suppression) {
	d := &deferredSuppression{rule: s.rule, file: fl.file.Path, line: s.line,
		pos: finding.Location{File: fl.file.Path, Line: s.pos.Line, Column: s.pos.Column}, text: fl.file.Line(s.pos.Line)}
	if s.obj != nil {
		d.obj = s.objAt
		c := *s.obj
		d.ref = &c
	}
	fl.part.deferred = append(fl.part.deferred, d)
}

// releaseFindings runs the cross-object rules over the parts of a run,
// applies and checks the deferred suppressions, and drops the findings of
// single-object rules that the release view supersedes.
func (cfg *Config) releaseFindings(parts []*filePart, findings []finding.Finding, read func(path string) []byte) []finding.Finding {
	loc := &locator{cfg: cfg, read: read, parsed: map[string]*manifest.Result{}}
	var deferred []*deferredSuppression
	views := make([]*release.Part, 0, len(parts))
	for _, p := range parts {
		if p == nil {
			continue
		}
		views = append(views, &p.part)
		deferred = append(deferred, p.deferred...)
	}
	view := release.Build(views)
	if view.HasOthers() {
		findings = cfg.supersede(view, findings)
		for _, r := range cfg.Rules {
			if r.Release == nil || !cfg.Enabled(r) || (r.MinVersion.Minor != 0 && !cfg.Version.AtLeast(r.MinVersion.Minor)) {
				continue
			}
			findings = cfg.runRelease(r, view, deferred, findings, loc)
		}
	}
	for _, d := range deferred {
		if d.used || !cfg.Enabled(d.rule) || !cfg.Enabled(rules.UnusedSuppression) {
			continue
		}
		u := rules.UnusedSuppression
		findings = append(findings, finding.Finding{RuleID: u.ID, RuleName: u.Name, Severity: cfg.Severity[u], Location: d.pos, Object: d.ref, SourceLine: d.text,
			Message: fmt.Sprintf("suppression of %s (%s) matches no finding", d.rule.ID, d.rule.Name),
			Detail:  "Remove it, so it cannot hide a future finding that nobody has looked at."})
	}
	return findings
}

func (cfg *Config) runRelease(r *rules.Rule, view *release.View, deferred []*deferredSuppression, findings []finding.Finding, loc *locator) (out []finding.Finding) {
	out = findings
	defer func() {
		if p := recover(); p != nil {
			ie := rules.InternalError
			if first, ok := view.First(); ok && cfg.Enabled(ie) {
				at, text := loc.locate(first)
				out = append(out, finding.Finding{RuleID: ie.ID, RuleName: ie.Name, Severity: cfg.Severity[ie], Location: at, SourceLine: text,
					Message: fmt.Sprintf("rule %s (%s) crashed on the objects of this run", r.ID, r.Name),
					Detail:  fmt.Sprintf("%v; other rules still ran; please report this bug with the manifests.", p)})
			}
		}
	}()
	pass := rules.NewReleasePass(r, view, cfg.Version, cfg.Params, func(d rules.ReleaseDiagnostic) {
		at, text := loc.locate(d.At)
		f := finding.Finding{RuleID: r.ID, RuleName: r.Name, Severity: cfg.Severity[r], Location: at, Container: d.Container,
			SourceLine: text, Message: d.Message, Detail: d.Detail, Path: string(d.At.Path)}
		var objAt release.Pos
		if d.Object != nil {
			ref := d.Object.Ref
			f.Object = &ref
			objAt = d.Object.Key()
			f.Detail = withSource(f.Detail, d.Object.Source)
		}
		for _, rel := range d.Related {
			l, _ := loc.locate(rel)
			f.Related = append(f.Related, l)
		}
		for _, s := range deferred {
			if s.rule != r {
				continue
			}
			if s.line > 0 && s.file == f.File && s.line == f.Line || s.line == 0 && d.Object != nil && s.obj == objAt {
				s.used = true
				f.RuleID = ""
			}
		}
		if f.RuleID != "" {
			out = append(out, f)
		}
	})
	r.Release(pass)
	return out
}

// supersede drops findings of single-object rules on workloads that the
// release view answers better (rules.Supersedes).
func (cfg *Config) supersede(view *release.View, findings []finding.Finding) []finding.Finding {
	type key struct {
		file string
		ref  finding.ObjectRef
	}
	var index map[key]*release.Workload
	out := findings[:0]
	for _, f := range findings {
		r := cfg.Rules.Lookup(f.RuleID)
		if f.Object != nil && (r == rules.MissingReadinessProbe || r == rules.ReadinessProbeInJob) {
			if index == nil {
				index = map[key]*release.Workload{}
				for _, ns := range view.Namespaces() {
					for _, w := range ns.Workloads {
						index[key{w.File, w.Ref}] = w
					}
				}
			}
			if rules.Supersedes(r, view, index[key{f.File, *f.Object}], view.Namespace(f.Object.Namespace), f.Container) {
				continue
			}
		}
		out = append(out, f)
	}
	return out
}

// locator resolves release positions to lines, parsing again the few files
// that findings of cross-object rules point into.
type locator struct {
	cfg    *Config
	read   func(path string) []byte
	parsed map[string]*manifest.Result
}

func (l *locator) locate(p release.Pos) (finding.Location, string) {
	res, ok := l.parsed[p.File]
	if !ok {
		if data := l.read(p.File); data != nil {
			res = manifest.Parse(p.File, data, l.cfg.Limits)
		}
		l.parsed[p.File] = res
	}
	if res != nil {
		for _, o := range res.Objects {
			if o.Doc.Index == p.Doc {
				pos, _ := o.Doc.Locate(p.Path)
				return finding.Location{File: p.File, Line: pos.Line, Column: pos.Column, Message: p.Message}, res.File.Line(pos.Line)
			}
		}
	}
	return finding.Location{File: p.File, Line: 1, Column: 1, Message: p.Message}, ""
}

// sourceReader reads a source of the run again by path, for the few files
// that findings of cross-object rules point into.
func sourceReader(cfg *Config, srcs []manifest.Source) func(string) []byte {
	byPath := make(map[string]manifest.Source, len(srcs))
	for _, s := range srcs {
		byPath[s.Path] = s
	}
	return func(path string) []byte {
		src, ok := byPath[path]
		if !ok {
			return nil
		}
		if src.Data != nil {
			return src.Data
		}
		data, tooBig, err := manifest.ReadSource(path, cfg.Limits.MaxFileSize)
		if err != nil || tooBig {
			return nil
		}
		return data
	}
}
