package render

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/podlint/podlint/internal/safefile"
	"github.com/podlint/podlint/manifest"
	yaml "go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// kustFile returns the kustomization file of dir, or "".
func kustFile(dir string) string {
	for _, n := range manifest.KustomizationFiles {
		if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && fi.Mode().IsRegular() {
			return filepath.Join(dir, n)
		}
	}
	return ""
}

// kust is one kustomization of a tree, as podlint reads it to find bases,
// refuse remote ones and locate patches.
type kust struct {
	dir, file string
	children  []*kust // local kustomizations in resources, bases and components
	// components are the children named in components:, which patch this
	// kustomization's resources before its own patches do.
	components []*kust
	patches    []*kPatch
	problems   []Problem
}

// kPatch is a patch a kustomization applies.
type kPatch struct {
	file string // the patch file, or the kustomization for an inline patch
	// lineOffset and indent place an inline patch's text in file.
	lineOffset, indent int
	text               []byte
	targetKind         string
	targetName         string
}

type kOrigin struct {
	root         *kust
	file         string // resource file on disk ("" if generated)
	configuredIn string
	kind         string
	// name is the rendered name; a source names the resource by a part
	// of it (before namePrefix and nameSuffix were added).
	name string
}

var offlineOnce sync.Once

type offline struct{}

func (offline) RoundTrip(r *http.Request) (*http.Response, error) {
	return nil, fmt.Errorf("podlint never fetches over the network (%s); vendor the file into the repository", r.URL.Host)
}

// remoteRef matches what kustomize would fetch: URLs, git and ssh
// addresses, and host/org/repo paths.
var remoteRef = lazyRegexp(`^(?:[a-z][a-z0-9+.-]*://|git@|[a-z0-9.-]+\.[a-z]{2,}/|github\.com|gitlab\.com|bitbucket\.org)`)

// loadKust reads the kustomization in dir and, recursively, the local
// kustomizations it uses. seen guards against cycles.
//
// Every file is read through root: a kustomization, base or patch that is
// a link out of the repository, or a path leading out of it, is a problem
// at the entry, never read.
func loadKust(dir string, seen map[string]*kust, root *safefile.Root) *kust {
	abs := realDir(dir)
	if k, ok := seen[abs]; ok {
		return k
	}
	k := &kust{dir: dir, file: kustFile(dir)}
	seen[abs] = k
	if k.file == "" {
		return k
	}
	data, err := ReadEdited(root, k.file, MaxSourceFile)
	if NotInReadSet(err) {
		k.problems = append(k.problems, NotTrackedProblem(k.file, "kustomization", err))
		return k
	}
	if err != nil {
		k.problems = append(k.problems, NewProblem(k.file, 1, 1, "cannot read the kustomization", Reason(err).Error(), "It was not built."))
		return k
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		k.problems = append(k.problems, NewProblem(k.file, YAMLErrorLine(err), 1, "the kustomization is not valid YAML", err.Error(), ""))
		return k
	}
	top := deref(&doc)
	// Every list whose entries kustomize loads as resources: a remote one
	// would be cloned with git or fetched over HTTP.
	for _, field := range []string{"resources", "bases", "components", "generators", "transformers", "validators"} {
		_, list := MapGet(top, field)
		if list == nil || list.Kind != yaml.SequenceNode {
			continue
		}
		for _, e := range list.Content {
			if e.Kind != yaml.ScalarNode {
				continue
			}
			p := filepath.Join(dir, filepath.FromSlash(e.Value))
			fi, err := root.Stat(p)
			switch {
			case err == nil && kustomizeClones(e.Value):
				k.problems = append(k.problems, Problem{File: k.file, Line: e.Line, Column: e.Column,
					Message: fmt.Sprintf("%s entry is a git repository to kustomize, which podlint never clones", field),
					Detail: fmt.Sprintf("kustomize build reads %q as a repository URL and clones it with git, although a folder of that name exists here; podlint does not, so this kustomization was not built. To use the folder, write %q.",
						e.Value, "./"+e.Value)})
			case err == nil && fi.IsDir():
				c := loadKust(p, seen, root)
				k.children = append(k.children, c)
				if field == "components" {
					k.components = append(k.components, c)
				}
			case err == nil:
			case errors.Is(err, safefile.ErrNeverRead):
				k.problems = append(k.problems, Problem{File: k.file, Line: e.Line, Column: e.Column,
					Message: fmt.Sprintf("%s entry is VCS metadata or a credential file, which podlint never reads", field),
					Detail:  fmt.Sprintf("%q is (or leads to) a folder such as .git or a file such as gha-creds-*.json, which hold the CI job's tokens; this kustomization was not built.", e.Value)})
			case errors.Is(err, safefile.ErrOutside) && !remoteRef().MatchString(e.Value):
				k.problems = append(k.problems, Problem{File: k.file, Line: e.Line, Column: e.Column,
					Message: fmt.Sprintf("%s entry leads outside the repository, which podlint never reads", field),
					Detail:  fmt.Sprintf("%q is outside the repository holding %s (through .. or a symbolic link); a pull request could otherwise render any file of the machine into the report. This kustomization was not built. Move the base into the repository.", e.Value, dir)})
			case remoteRef().MatchString(e.Value):
				k.problems = append(k.problems, Problem{File: k.file, Line: e.Line, Column: e.Column,
					Message: fmt.Sprintf("%s entry is a remote base, which podlint never fetches", field),
					Detail:  fmt.Sprintf("kustomize build would fetch %q over the network; podlint does not, so this kustomization was not built. Vendor the base into the repository, or lint the output of `kustomize build %s | podlint check -`.", e.Value, dir)})
			default:
				k.problems = append(k.problems, Problem{File: k.file, Line: e.Line, Column: e.Column,
					Message: fmt.Sprintf("%s entry does not exist, so kustomize build fails", field),
					Detail:  fmt.Sprintf("%q is not found relative to %s; this kustomization was not built.", e.Value, dir)})
			}
		}
	}
	k.patches = readPatches(k, top, data, root)
	return k
}

// readPatches lists the patches of a kustomization in the order kustomize
// applies them.
func readPatches(k *kust, top *yaml.Node, data []byte, root *safefile.Root) []*kPatch {
	var out []*kPatch
	add := func(entry *yaml.Node, pathOrInline *yaml.Node, inline bool) {
		p := &kPatch{file: k.file}
		if entry != nil && entry.Kind == yaml.MappingNode {
			if _, t := MapGet(entry, "target"); t != nil {
				if _, v := MapGet(t, "kind"); v != nil {
					p.targetKind = v.Value
				}
				if _, v := MapGet(t, "name"); v != nil {
					p.targetName = v.Value
				}
			}
		}
		if inline {
			p.text = []byte(pathOrInline.Value)
			p.lineOffset = pathOrInline.Line
			if pathOrInline.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 {
				p.lineOffset--
			}
			p.indent = 0
			if l := manifest.LineOf(data, pathOrInline.Line+1); p.lineOffset == pathOrInline.Line {
				p.indent = len(l) - len(strings.TrimLeft(l, " "))
			}
		} else {
			p.file = filepath.Join(k.dir, filepath.FromSlash(pathOrInline.Value))
			// kustomize itself reports a patch it cannot read, through the
			// same confined file system.
			data, err := ReadEdited(root, p.file, MaxSourceFile)
			if err != nil {
				return
			}
			p.text = data
		}
		out = append(out, p)
	}
	if _, l := MapGet(top, "patchesStrategicMerge"); l != nil && l.Kind == yaml.SequenceNode {
		for _, e := range l.Content {
			add(nil, e, strings.Contains(e.Value, "\n"))
		}
	}
	for _, field := range []string{"patches", "patchesJson6902"} {
		_, l := MapGet(top, field)
		if l == nil || l.Kind != yaml.SequenceNode {
			continue
		}
		for _, e := range l.Content {
			if _, v := MapGet(e, "path"); v != nil {
				add(e, v, false)
			} else if _, v := MapGet(e, "patch"); v != nil {
				add(e, v, true)
			}
		}
	}
	return out
}

// patchesLastFirst lists the patches that apply to k's resources, the last
// applied first: its own, then its components' in reverse order.
func (k *kust) patchesLastFirst() []*kPatch {
	var out []*kPatch
	for i := len(k.patches) - 1; i >= 0; i-- {
		out = append(out, k.patches[i])
	}
	for i := len(k.components) - 1; i >= 0; i-- {
		out = append(out, k.components[i].patchesLastFirst()...)
	}
	return out
}

// allProblems collects the problems of k and everything it uses.
func (k *kust) allProblems() []Problem {
	var out []Problem
	k.walk(func(n *kust) { out = append(out, n.problems...) })
	return out
}

// walk visits k and the kustomizations it uses, each once.
func (k *kust) walk(f func(*kust)) {
	seen := map[*kust]bool{}
	var rec func(*kust)
	rec = func(n *kust) {
		if seen[n] {
			return
		}
		seen[n] = true
		f(n)
		for _, c := range n.children {
			rec(c)
		}
	}
	rec(k)
}

// chain returns the kustomizations from k down to the one in dir, outermost
// first, or nil.
func (k *kust) chain(dir string) []*kust {
	want, _ := filepath.Abs(dir)
	seen := map[*kust]bool{}
	var rec func(n *kust) []*kust
	rec = func(n *kust) []*kust {
		if seen[n] {
			return nil
		}
		seen[n] = true
		if abs, _ := filepath.Abs(n.dir); abs == want {
			return []*kust{n}
		}
		for _, c := range n.children {
			if p := rec(c); p != nil {
				return append([]*kust{n}, p...)
			}
		}
		return nil
	}
	return rec(k)
}

// originFS reads the disk, adding originAnnotations to the build metadata
// of the top kustomization so that every resource says which file it came
// from (the annotations are removed again before linting).
type originFS struct {
	filesys.FileSystem
	top string
}

func (o originFS) ReadFile(p string) ([]byte, error) {
	data, err := o.FileSystem.ReadFile(p)
	if err != nil || filepath.Clean(p) != o.top {
		return data, err
	}
	var m map[string]any
	if yaml.Unmarshal(data, &m) != nil || m == nil {
		return data, nil
	}
	bm, _ := m["buildMetadata"].([]any)
	m["buildMetadata"] = append(bm, "originAnnotations")
	return yaml.Marshal(m)
}

// RenderKustomization builds dir as `kustomize build` does. Remote bases are
// refused before anything is built, and only files of the repository
// holding dir are read.
func RenderKustomization(dir string) *Output { return renderKustomization(dir, "") }

// renderKustomization builds dir reading only inside rootDir (from
// safefile.RepoRoot; "" is dir's own repository).
func renderKustomization(dir, rootDir string) *Output {
	// What kustomize and Helm print through the standard logger reaches
	// standard error escaped, one line per record (internal/cli routes
	// it): it quotes names and values from the pull request.
	offlineOnce.Do(func() {
		// kustomize fetches a URL named anywhere it reads a file (a patch,
		// an OpenAPI schema, a generator's file) with an http.Client on the
		// default transport. podlint never uses the network: any such
		// fetch fails, and its error becomes the finding.
		http.DefaultTransport = offline{}
	})
	out := &Output{}
	e := linked
	if e == nil {
		out.Problems = append(out.Problems, notLinkedProblem(firstOf(kustFile(dir), dir)))
		return out
	}
	root, err := safefile.Open(rootDir, dir)
	if err != nil {
		out.Problems = append(out.Problems, RootProblem(firstOf(kustFile(dir), dir), err))
		return out
	}
	defer root.Close()
	k := loadKust(dir, map[string]*kust{}, root)
	if k.file == "" {
		out.Problems = append(out.Problems, Problem{File: dir, Line: 1, Column: 1, Message: "no kustomization file in this folder"})
		return out
	}
	if ps := k.allProblems(); len(ps) > 0 {
		out.Problems = ps
		return out
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		out.Problems = append(out.Problems, NewProblem(k.file, 1, 1, "cannot resolve the kustomization's folder", err.Error(), ""))
		return out
	}
	top, _ := filepath.Abs(k.file)
	fs := originFS{FileSystem: confinedFS{FileSystem: filesys.MakeFsOnDisk(), root: root}, top: top}
	res, err := e.Kustomize(fs, absDir)
	if err != nil {
		out.Problems = append(out.Problems, kustomizeProblem(k, err))
		return out
	}
	for _, r := range res {
		o := &kOrigin{root: k, kind: r.Kind, name: r.Name}
		if r.OriginPath != "" {
			o.file = filepath.Join(dir, filepath.FromSlash(r.OriginPath))
		} else if r.OriginConfiguredIn != "" {
			o.configuredIn = filepath.Join(dir, filepath.FromSlash(r.OriginConfiguredIn))
		}
		if r.Err != nil {
			out.Problems = append(out.Problems, NewProblem(k.file, 1, 1, fmt.Sprintf("kustomize's %s %s cannot be written as YAML", r.Kind, r.Name), r.Err.Error(),
				"It was not linted."))
			continue
		}
		data := r.YAML
		src := o.file
		if src == "" {
			src = firstOf(o.configuredIn, k.file)
		}
		out.Docs = append(out.Docs, Doc{Source: src, YAML: string(data), origin: o})
	}
	return out
}

// kustomizeProblem positions a build error at the kustomization it names,
// or the top one.
func kustomizeProblem(k *kust, err error) Problem {
	msg := err.Error()
	file := k.file
	k.walk(func(n *kust) {
		if abs, _ := filepath.Abs(n.dir); abs != "" && strings.Contains(msg, abs+string(filepath.Separator)) && file == k.file {
			file = n.file
		}
	})
	return NewProblem(file, 1, 1, "kustomize cannot build this kustomization", msg, "")
}

// sets reports whether the patch sets field p of the origin's resource, and
// where.
func (pt *kPatch) sets(o *kOrigin, p []seg) (line, col int, ok bool) {
	if pt.targetKind != "" && pt.targetKind != o.kind {
		return 0, 0, false
	}
	if pt.targetName != "" && !nameMatch(o.name, pt.targetName) {
		return 0, 0, false
	}
	docs := yamlDocs(pt.text)
	if len(docs) == 0 {
		return 0, 0, false
	}
	at := func(l, c int) (int, int, bool) { return l + pt.lineOffset, byteColumn(pt.text, l, c) + pt.indent, true }
	if ops := deref(docs[0]); ops != nil && ops.Kind == yaml.SequenceNode {
		// A JSON 6902 patch: the last add or replace whose path is the
		// field or one of its parents.
		for i := len(ops.Content) - 1; i >= 0; i-- {
			op := ops.Content[i]
			_, kind := MapGet(op, "op")
			_, path := MapGet(op, "path")
			if kind == nil || path == nil || (kind.Value != "add" && kind.Value != "replace") {
				continue
			}
			ptr := strings.Split(strings.TrimPrefix(path.Value, "/"), "/")
			if len(ptr) > len(p) || !pointerPrefix(ptr, p) {
				continue
			}
			vk, v := MapGet(op, "value")
			if v == nil {
				return at(path.Line, path.Column)
			}
			l, c, depth := walkNode(v, p[len(ptr):])
			if depth == len(p)-len(ptr) && l > 0 {
				return at(l, c)
			}
			return at(vk.Line, vk.Column)
		}
		return 0, 0, false
	}
	if identifies(p) {
		// A strategic merge patch names its target with these; it does
		// not set them.
		return 0, 0, false
	}
	for _, d := range docs {
		if pt.targetKind == "" && !kindName(d, o) {
			continue
		}
		if l, c, depth := walkNode(d, p); depth == len(p) && l > 0 {
			return at(l, c)
		}
	}
	return 0, 0, false
}

// identifies reports whether p is a field that picks the resource a
// strategic merge patch applies to.
func identifies(p []seg) bool {
	switch pathString(p) {
	case "apiVersion", "kind", "metadata.name", "metadata.namespace":
		return true
	}
	return false
}

func pointerPrefix(ptr []string, p []seg) bool {
	for i, t := range ptr {
		t = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		s := p[i]
		if s.index >= 0 {
			if t != fmt.Sprint(s.index) {
				return false
			}
		} else if t != s.key {
			return false
		}
	}
	return true
}
