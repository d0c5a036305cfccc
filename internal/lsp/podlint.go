package lsp

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/fix"
	"github.com/podlint/podlint/internal/settings"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/render"
	"github.com/podlint/podlint/report/plot"
	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
	yaml "go.yaml.in/yaml/v3"
)

// This file is the server's one adapter to podlint's pipeline: the
// analyzer of `podlint check` (analyzer.Run, with the configuration check
// would find for the file), the loader and the timeline for hover.

// Config is what `podlint check FILE` would use for a file.
type Config struct {
	Analyzer *analyzer.Linter
	// Excludes are the exclude globs of the configuration.
	Excludes []string
}

// Podlint is the Engine over podlint's analyzer.
type Podlint struct {
	// Flags are the flags the server was started with, and Env the
	// process as settings.Load reads it: each folder gets the settings
	// of `podlint check FOLDER` with them, from the working directory of
	// the moment.
	Flags settings.Flags
	Env   settings.Env
	// Configure, when set, returns the settings of path (a file or a
	// folder) instead: tests give the server fixed ones.
	Configure func(path string) (*Config, error)
	// Chdir makes the first workspace folder the working directory at
	// Open, as a run of check from there has it (configuration discovery,
	// relative excludes).
	Chdir bool

	mu       sync.Mutex
	roots    []string
	configs  map[string]*configEntry                 // by folder
	ws       *analyzer.Workspace                     // the workspace's plain manifests, loaded
	renders  []manifest.Source                       // the workspace's charts and kustomizations
	rendered map[string]map[string][]finding.Finding // root → file → findings
	help     map[string]string
}

type configEntry struct {
	cfg *Config
	err error
}

// Open discovers the workspace's manifests.
func (p *Podlint) Open(roots []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.roots = roots
	if p.Chdir && len(roots) > 0 {
		_ = os.Chdir(roots[0])
	}
	p.rendered = map[string]map[string][]finding.Finding{}
	p.scan()
}

// scan reads the workspace's plain manifests again and finds its render
// roots, as `podlint check ROOT` would. p.mu is held.
func (p *Podlint) scan() {
	p.configs = map[string]*configEntry{}
	p.renders = nil
	var plain []manifest.Source
	var wsCfg *analyzer.Linter
	for _, root := range p.roots {
		cfg, err := p.config(root)
		if err != nil {
			continue
		}
		// From the working directory, walked as "." so that relative
		// excludes match as they do for check.
		walk := root
		if wd, err := os.Getwd(); err == nil && wd == root {
			walk = "."
		}
		srcs, _, _ := manifest.Discover([]string{walk}, cfg.Excludes, true)
		for _, src := range render.Plan(srcs) {
			if abs, err := filepath.Abs(src.Path); err == nil {
				src.Path = abs
			}
			if src.Render != "" {
				p.renders = append(p.renders, src)
				continue
			}
			data, tooBig, err := src.Read(cfg.Analyzer.Limits.MaxFileSize)
			if err != nil || tooBig {
				continue
			}
			plain = append(plain, manifest.Source{Path: filepath.Clean(src.Path), Data: data})
		}
		if wsCfg == nil {
			an := *cfg.Analyzer
			an.Open = nil
			wsCfg = &an
		}
	}
	if wsCfg == nil {
		wsCfg, plain = &analyzer.Linter{}, nil
	}
	p.ws = analyzer.NewWorkspace(wsCfg, plain)
}

// config returns the configuration of path, cached by folder. p.mu is held.
func (p *Podlint) config(path string) (*Config, error) {
	dir := path
	if !isDir(path) {
		dir = filepath.Dir(path)
	}
	e := p.configs[dir]
	if e == nil {
		configure := p.Configure
		if configure == nil {
			configure = p.settings
		}
		cfg, err := configure(path)
		e = &configEntry{cfg, err}
		p.configs[dir] = e
	}
	return e.cfg, e.err
}

// settings reads the settings of `podlint check path` with the server's
// flags.
func (p *Podlint) settings(path string) (*Config, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, errors.New("cannot read the working directory: " + err.Error())
	}
	f, env := p.Flags, p.Env
	f.Paths, env.WorkDir = []string{path}, wd
	s, err := settings.Load(&f, env)
	if err != nil {
		return nil, err
	}
	return &Config{Analyzer: &s.Linter, Excludes: s.Excludes}, nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// renderRoot returns the chart or kustomization of the workspace that
// holds path, if any. p.mu is held.
func (p *Podlint) renderRoot(path string) (manifest.Source, bool) {
	best := manifest.Source{}
	for _, r := range p.renders {
		root := filepath.Clean(r.Path)
		if strings.HasPrefix(path, root+string(filepath.Separator)) && len(root) > len(best.Path) {
			best = r
		}
	}
	return best, best.Path != ""
}

// Lint lints the open document as `podlint check` lints the file, with the
// workspace's other manifests beside it for the cross-object rules. A
// file of a chart or kustomization has only the findings of its rendering
// (on save).
func (p *Podlint) Lint(path string, text []byte) []finding.Finding {
	p.mu.Lock()
	if _, ok := p.renderRoot(path); ok {
		p.mu.Unlock()
		return nil
	}
	cfg, err := p.config(path)
	if err != nil {
		p.mu.Unlock()
		return []finding.Finding{configProblem(path, err)}
	}
	ws := p.ws
	p.mu.Unlock()
	an := *cfg.Analyzer
	an.Open = nil
	return ws.Lint(&an, path, text)
}

// The codes of the server's own problems, shown as diagnostics like
// findings: they are not rules.
const (
	problemConfig = "config"
	problemRender = "render"
)

// configProblem shows a configuration that cannot be read on the file it
// would apply to: nothing is linted until it is fixed.
func configProblem(path string, err error) finding.Finding {
	return finding.Finding{RuleID: problemConfig, Severity: finding.Error,
		Location: finding.Location{File: path, Line: 1, Column: 1},
		Message:  "podlint's configuration cannot be used, so this file was not linted", Detail: err.Error()}
}

// Saved reads the workspace again and renders the chart or kustomization
// that holds path.
func (p *Podlint) Saved(path string) map[string][]finding.Finding {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.scan()
	out := map[string][]finding.Finding{}
	root, ok := p.renderRoot(path)
	if !ok {
		return out
	}
	key := filepath.Clean(root.Path)
	for f := range p.rendered[key] {
		out[f] = nil // cleared unless found again
	}
	cfg, err := p.config(path)
	byFile := map[string][]finding.Finding{}
	if err != nil {
		byFile[path] = []finding.Finding{configProblem(path, err)}
	} else if cfg.Analyzer.Open != nil {
		src := root
		src.Named = nil
		res, errs := analyzer.Run(cfg.Analyzer, analyzer.Options{}, []manifest.Source{src})
		for i := range res.Len() {
			f := res.At(i)
			file := f.File
			if !filepath.IsAbs(file) {
				file = filepath.Join(key, file)
			}
			f.File = filepath.Clean(file)
			byFile[f.File] = append(byFile[f.File], f)
		}
		for _, e := range errs {
			byFile[path] = append(byFile[path], finding.Finding{RuleID: problemRender, Severity: finding.Error,
				Location: finding.Location{File: path, Line: 1, Column: 1},
				Message:  "rendering " + filepath.Base(key) + " failed", Detail: e.Error()})
		}
	}
	p.rendered[key] = byFile
	for f, fs := range byFile {
		out[f] = fs
	}
	return out
}

// Fixes verifies the fixes of fs as podlint fix does (fix.VerifyAll) and
// returns those that pass.
func (p *Podlint) Fixes(path string, text []byte, fs []finding.Finding) [][]finding.Fix {
	out := make([][]finding.Fix, len(fs))
	var cands []fix.Candidate
	var of []int // the finding of each candidate
	for i := range fs {
		for j := range fs[i].Fixes {
			cands = append(cands, fix.Candidate{Finding: &fs[i], Fix: &fs[i].Fixes[j]})
			of = append(of, i)
		}
	}
	if len(cands) == 0 {
		return out
	}
	p.mu.Lock()
	c, err := p.config(path)
	p.mu.Unlock()
	if err != nil {
		return out
	}
	an := *c.Analyzer
	an.Open = nil
	before, _ := an.File(path, text, true)
	for k, err := range fix.VerifyAll(&an, path, text, before, cands) {
		if err == nil {
			out[of[k]] = append(out[of[k]], *cands[k].Fix)
		}
	}
	return out
}

// FixAll applies the file's safe fixes as podlint fix does (fix.File).
func (p *Podlint) FixAll(path string, text []byte) ([]byte, int) {
	p.mu.Lock()
	c, err := p.config(path)
	if _, rendered := p.renderRoot(path); rendered {
		err = errRendered
	}
	p.mu.Unlock()
	if err != nil {
		return nil, 0
	}
	an := *c.Analyzer
	an.Open = nil
	res := fix.File(&an, path, text, finding.Safe)
	if !res.Changed() {
		return nil, 0
	}
	return res.Data, len(res.Applied)
}

var errRendered = errors.New("a file of a chart or kustomization")

// Rule returns the help address of a rule.
func (p *Podlint) Rule(id string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.help == nil {
		p.help = map[string]string{}
		for _, r := range rules.All {
			p.help[r.ID] = "https://github.com/podlint/podlint/blob/main/docs/rules/" + r.ID + ".md"
		}
	}
	return p.help[id]
}

// Hover shows the part of the timeline that the field at off drives.
func (p *Podlint) Hover(path string, text []byte, off, width int) (string, int, int) {
	p.mu.Lock()
	cfg, err := p.config(path)
	p.mu.Unlock()
	if err != nil {
		return "", 0, 0
	}
	t := newText(text)
	line, col := t.lineOf(off)
	res := manifest.Parse(path, text, cfg.Analyzer.Limits)
	l := line + 1
	charCol := manifest.CodePointColumn(t.line(line), col+1)
	var obj *manifest.Object
	for _, o := range res.Objects {
		if o.Workload != nil && o.Node != nil && o.Node.Line+o.Doc.LineOffset <= l {
			obj = o
		}
	}
	if obj == nil {
		return "", 0, 0
	}
	field, key := fieldAt(obj.Node, obj.Path, l-obj.Doc.LineOffset, charCol)
	if key == nil {
		return "", 0, 0
	}
	tl := timeline.Compute(obj.Workload, cfg.Analyzer.Version, cfg.Analyzer.Params)
	topic, container := topicOf(obj, tl, field)
	if topic == plot.TopicNone {
		return "", 0, 0
	}
	pos, _ := obj.Doc.Locate(obj.Path)
	item := plot.Item{File: filepath.Base(path), Line: pos.Line, APIVersion: obj.Ref.APIVersion, Kind: obj.Ref.Kind,
		Namespace: obj.Ref.Namespace, Name: obj.Ref.Name, Timeline: tl, Observed: tl.Params.Observed.Of(obj.Workload)}
	var b bytes.Buffer
	if ok, _ := plot.Hover(&b, item, topic, container, width); !ok {
		return "", 0, 0
	}
	kl := key.Line + obj.Doc.LineOffset - 1
	from := t.starts[min(kl, len(t.starts)-1)] + manifest.ByteColumn(t.line(kl), key.Column) - 1
	return b.String(), from, from + len(key.Value)
}

// fieldAt returns the path of the mapping key at line and character column
// col (1-based, in the document's own lines) under n, whose path is at,
// and the key's node: the innermost key whose line it is, from the key's
// column on.
func fieldAt(n *yaml.Node, at workload.Path, line, col int) (workload.Path, *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := at.Field(k.Value)
			if f, key := fieldAt(v, p, line, col); key != nil {
				return f, key
			}
			if k.Line == line && col >= k.Column && (v.Kind != yaml.ScalarNode || v.Line != line || col <= v.Column+len(v.Value)+2) {
				return p, k
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if f, key := fieldAt(c, at.Index(i), line, col); key != nil {
				return f, key
			}
		}
	}
	return "", nil
}

// topicOf says which part of the timeline the field at path drives, and
// for which container.
func topicOf(o *manifest.Object, tl *timeline.Timeline, path workload.Path) (plot.Topic, string) {
	s := string(path)
	under := func(base workload.Path, rel string) bool {
		b := string(base.Join(rel))
		return s == b || strings.HasPrefix(s, b+".") || strings.HasPrefix(s, b+"[")
	}
	for _, c := range tl.Containers {
		switch {
		case under(c.Path, "livenessProbe"):
			return plot.TopicLiveness, c.Name
		case under(c.Path, "readinessProbe"):
			return plot.TopicReadiness, c.Name
		case under(c.Path, "startupProbe"):
			return plot.TopicStartup, c.Name
		case under(c.Path, "lifecycle.preStop"), under(c.Path, "lifecycle.stopSignal"):
			return plot.TopicShutdown, c.Name
		case under(c.Path, "restartPolicy"), under(c.Path, "restartPolicyRules"):
			return plot.TopicRestart, c.Name
		}
	}
	w := o.Workload
	switch {
	case under(w.SpecPath, "terminationGracePeriodSeconds"):
		return plot.TopicShutdown, ""
	case under(w.SpecPath, "restartPolicy"):
		return plot.TopicRestart, ""
	}
	if w.Job != nil && w.JobPath != "" {
		for _, f := range []string{"backoffLimit", "backoffLimitPerIndex", "activeDeadlineSeconds", "podFailurePolicy"} {
			if under(w.JobPath, f) {
				return plot.TopicJob, ""
			}
		}
	}
	if w.Deployment != nil || w.StatefulSet != nil {
		spec := o.Path.Field("spec")
		for _, f := range []string{"strategy", "updateStrategy", "progressDeadlineSeconds", "minReadySeconds", "replicas"} {
			if under(spec, f) {
				return plot.TopicRollout, ""
			}
		}
	}
	return plot.TopicNone, ""
}
