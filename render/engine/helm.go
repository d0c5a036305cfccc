package engine

import (
	"bytes"
	"cmp"
	crand "crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"log"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/google/uuid"
	"github.com/podlint/podlint/internal/safefile"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/render"
	yaml "go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	helmengine "helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/ignore"
	"helm.sh/helm/v3/pkg/releaseutil"
	"helm.sh/helm/v3/pkg/strvals"
	sigsyaml "sigs.k8s.io/yaml"
)

// lazyRegexp compiles expr on first use: a render child renders one root,
// and most never need these.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Chart renders the chart in dir as `helm template` does, without ever
// touching the network (render.RenderChart). Problems are positioned in the
// chart's files; a chart with problems still renders as much as it can.
func (libraries) Chart(dir string, opt render.HelmOptions) *render.Output {
	out := &render.Output{}
	chartFile := filepath.Join(dir, "Chart.yaml")
	if link, target := linkOutOfTree(dir); link != "" {
		// Helm's loader follows symbolic links wherever they lead: a chart
		// from an untrusted pull request could render a secret file into
		// its output (and so into the report).
		out.Problems = append(out.Problems, render.NewProblem(link, 1, 1, "chart holds a symbolic link out of the chart, so it was not rendered",
			fmt.Sprintf("%s points to %s", link, target),
			"podlint never reads files outside the chart being rendered. Replace the link with the file itself, or vendor it into the chart."))
		return out
	}
	root, err := safefile.Open(opt.Root, dir)
	if err != nil {
		out.Problems = append(out.Problems, render.RootProblem(chartFile, err))
		return out
	}
	defer root.Close()
	if err := root.Readable(chartFile); render.NotInReadSet(err) {
		out.Problems = append(out.Problems, render.NotTrackedProblem(chartFile, "chart", err))
		return out
	}
	ch, err := loadChartDir(dir, root)
	if err != nil {
		out.Problems = append(out.Problems, render.NewProblem(chartFile, 1, 1, "Helm cannot load the chart", err.Error(),
			"Nothing in the chart was linted."))
		return out
	}
	out.AddValuesFile(filepath.Join(dir, "values.yaml"), rawFile(ch, "values.yaml"))
	out.Problems = append(out.Problems, missingDependencies(ch, chartFile)...)
	out.Problems = append(out.Problems, dropExternalSchemas(ch, dir)...)

	vals := map[string]any{}
	cfgRoot := root
	if opt.ConfigRoot != "" && len(opt.ConfigValues) > 0 {
		if cfgRoot, err = safefile.Open(opt.ConfigRoot, opt.ConfigRoot); err != nil {
			out.Problems = append(out.Problems, render.RootProblem(chartFile, err))
			return out
		}
		defer cfgRoot.Close()
	}
	read := func(f string, confined bool) ([]byte, error) {
		if confined {
			return render.ReadEdited(cfgRoot, f, render.MaxSourceFile)
		}
		data, tooBig, err := manifest.ReadSource(f, render.MaxSourceFile)
		if err == nil && tooBig {
			err = fmt.Errorf("larger than %d bytes", render.MaxSourceFile)
		}
		return render.WithEdits(f, data, err)
	}
	for i, f := range append(append([]string{}, opt.ConfigValues...), opt.Values...) {
		data, err := read(f, i < len(opt.ConfigValues))
		if err != nil {
			out.Problems = append(out.Problems, render.NewProblem(chartFile, 1, 1, "a values file for this chart cannot be read",
				fmt.Sprintf("%s: %v", f, render.Reason(err)), "The chart was rendered without it."))
			continue
		}
		cur := map[string]any{}
		if err := sigsyaml.Unmarshal(data, &cur); err != nil {
			out.Problems = append(out.Problems, render.NewProblem(f, render.YAMLErrorLine(err), 1, "values file is not valid YAML", err.Error(),
				"The chart was rendered without it."))
			continue
		}
		vals = mergeMaps(vals, cur)
		out.AddValuesFile(f, data)
	}
	for _, s := range opt.Set {
		if err := strvals.ParseInto(s, vals); err != nil {
			out.Problems = append(out.Problems, render.NewProblem(chartFile, 1, 1, "a --set value cannot be parsed",
				fmt.Sprintf("%q: %v", s, err), "The chart was rendered without it."))
		}
	}
	if err := chartutil.ProcessDependenciesWithMerge(ch, vals); err != nil {
		out.Problems = append(out.Problems, render.NewProblem(chartFile, 1, 1, "Helm cannot resolve the chart's dependencies", err.Error(),
			"Nothing in the chart was linted."))
		return out
	}
	caps := chartutil.DefaultCapabilities.Copy()
	if opt.KubeVersion != "" {
		kv, err := chartutil.ParseKubeVersion(opt.KubeVersion)
		if err == nil {
			caps.KubeVersion = *kv
		}
	}
	kube := caps.KubeVersion.String()
	if ch.Metadata.KubeVersion != "" && !chartutil.IsCompatibleRange(ch.Metadata.KubeVersion, kube) {
		out.Problems = append(out.Problems, render.Problem{File: chartFile, Line: lineOfKey(ch, "kubeVersion"), Column: 1,
			Message: fmt.Sprintf("chart requires kubeVersion %s, which is incompatible with Kubernetes %s (--kube-version)", ch.Metadata.KubeVersion, kube),
			Detail:  "helm install would refuse the chart, so it was not rendered. Lint with a --kube-version the chart supports, or widen kubeVersion in Chart.yaml."})
		return out
	}
	rel := chartutil.ReleaseOptions{Name: cmp.Or(opt.ReleaseName, "release-name"), Namespace: cmp.Or(opt.Namespace, "default"), Revision: 1, IsInstall: true}
	rv, err := chartutil.ToRenderValues(ch, vals, rel, caps)
	if err != nil {
		out.Problems = append(out.Problems, render.NewProblem(chartFile, 1, 1, "the values do not fit the chart", err.Error(),
			"Nothing in the chart was linted."))
		return out
	}
	files := renderAll(ch, rv, dir, out)
	for k := range files {
		if strings.HasSuffix(k, "NOTES.txt") {
			delete(files, k)
		}
	}
	hooks, manifests, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	if err != nil {
		// A rendered template that is not YAML: the loader reports it
		// with its line, so lint the raw output instead.
		names := make([]string, 0, len(files))
		for k := range files {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, n := range names {
			addHelmDoc(out, ch, dir, n, files[n])
		}
		return out
	}
	for _, m := range manifests {
		addHelmDoc(out, ch, dir, m.Name, m.Content)
	}
	for _, h := range hooks {
		addHelmDoc(out, ch, dir, h.Path, h.Manifest)
	}
	return out
}

// renderAll renders the chart; when a template fails to parse or execute,
// its error becomes a problem at the line Helm reports and the chart is
// rendered again without that template, so the others are still linted.
func renderAll(ch *chart.Chart, rv chartutil.Values, dir string, out *render.Output) map[string]string {
	// The same stream for every render of the chart, keyed by its name, so
	// a template's random values do not depend on what else is linted.
	defer repeatableRandom(ch.Name())()
	for range 50 {
		files, err := helmengine.Render(ch, rv)
		if err == nil {
			return files
		}
		name, line, col, msg := templateError(err.Error())
		if findTemplate(ch, name) == nil {
			// The error's text is partly the chart's own ({{ fail }}): a
			// position in it is trusted only when it names a template of
			// this chart, never a file to read.
			name = ""
		}
		p := render.NewProblem(filepath.Join(dir, "Chart.yaml"), 1, 1, "Helm cannot render the chart", err.Error(), "Nothing in the chart was linted.")
		if name != "" {
			p = render.NewProblem(templatePath(ch, dir, name), max(line, 1), max(col, 1), "Helm cannot render this template", msg,
				"The chart was rendered again without this template, so the others were still linted.")
		}
		out.Problems = append(out.Problems, p)
		if name == "" || !removeTemplate(ch, name) {
			return nil
		}
	}
	return nil
}

// Helm reports "parse error at (chart/templates/x.yaml:6): unexpected …"
// and "execution error at (chart/templates/x.yaml:3:11): …", or
// "template: chart/templates/x.yaml:3:11: executing …". The position is
// the first one on the first line, which Helm writes; what follows may be
// the chart's own text ({{ fail "…" }}), positions included.
var (
	helmErrAt  = lazyRegexp(`^[^\n(]*\(([^():\n]+\.[A-Za-z]+):(\d+)(?::(\d+))?\)[ \t]*:?[ \t]*((?s:.*))$`)
	helmErrTpl = lazyRegexp(`^[^\n]*?template: ([^:\n]+):(\d+)(?::(\d+))?: ((?s:.*))$`)
)

var startedAt = lazyRegexp(`started at ([^:\s]+):(\d+)`)

func templateError(s string) (name string, line, col int, msg string) {
	s = strings.TrimSpace(s)
	for _, re := range []*regexp.Regexp{helmErrAt(), helmErrTpl()} {
		if m := re.FindStringSubmatch(s); m != nil {
			line, _ = strconv.Atoi(m[2])
			col, _ = strconv.Atoi(m[3])
			// "unclosed action started at x.yaml:6" is reported at the
			// end of the file; the action that is not closed is the place
			// to fix.
			if st := startedAt().FindStringSubmatch(m[4]); st != nil && st[1] == m[1] {
				line, _ = strconv.Atoi(st[2])
				col = 0
			}
			return m[1], line, col, m[4]
		}
	}
	return "", 0, 0, s
}

// removeTemplate drops the template Helm names name from the chart or the
// subchart that holds it.
func removeTemplate(ch *chart.Chart, name string) bool {
	prefix := ch.Name() + "/"
	if !strings.HasPrefix(name, prefix) {
		return false
	}
	rest := strings.TrimPrefix(name, prefix)
	for i, t := range ch.Templates {
		if t.Name == rest {
			ch.Templates = append(ch.Templates[:i:i], ch.Templates[i+1:]...)
			return true
		}
	}
	if sub, ok := strings.CutPrefix(rest, "charts/"); ok {
		for _, d := range ch.Dependencies() {
			if strings.HasPrefix(sub, d.Name()+"/") && removeTemplate(d, sub) {
				return true
			}
		}
	}
	return false
}

// templatePath turns Helm's template name ("podinfo/charts/redis/templates/x.yaml")
// into the file on disk. Subcharts packed as .tgz have no file on disk; their
// name is kept under the chart folder.
func templatePath(ch *chart.Chart, dir, name string) string {
	rest, _ := strings.CutPrefix(name, ch.Name()+"/")
	return filepath.Join(dir, filepath.FromSlash(rest))
}

func addHelmDoc(out *render.Output, ch *chart.Chart, dir, name, content string) {
	if strings.TrimSpace(content) == "" {
		return
	}
	out.Docs = append(out.Docs, render.Doc{Source: templatePath(ch, dir, name), Name: name, YAML: content, Template: templateText(ch, name)})
}

func templateText(ch *chart.Chart, name string) []byte {
	if t := findTemplate(ch, name); t != nil {
		return t.Data
	}
	return nil
}

// findTemplate returns the template Helm names name ("podinfo/templates/x.yaml",
// "podinfo/charts/redis/templates/y.yaml"), or nil.
func findTemplate(ch *chart.Chart, name string) *chart.File {
	rest, ok := strings.CutPrefix(name, ch.Name()+"/")
	if !ok {
		return nil
	}
	for _, t := range ch.Templates {
		if t.Name == rest {
			return t
		}
	}
	if sub, ok := strings.CutPrefix(rest, "charts/"); ok {
		for _, d := range ch.Dependencies() {
			if strings.HasPrefix(sub, d.Name()+"/") {
				if t := findTemplate(d, sub); t != nil {
					return t
				}
			}
		}
	}
	return nil
}

// missingDependencies reports each dependency of Chart.yaml that is not in
// charts/, at its entry, as `helm template` would refuse the chart. The
// chart is rendered without it: podlint never downloads.
func missingDependencies(ch *chart.Chart, chartFile string) []render.Problem {
	var out []render.Problem
	have := map[string]bool{}
	for _, d := range ch.Dependencies() {
		have[d.Name()] = true
	}
	for _, r := range ch.Metadata.Dependencies {
		if have[r.Name] {
			continue
		}
		line := lineOfDependency(ch, r.Name)
		out = append(out, render.Problem{File: chartFile, Line: line, Column: 1,
			Message: fmt.Sprintf("dependency %q is declared in Chart.yaml but missing from charts/", r.Name),
			Detail: fmt.Sprintf("The chart was rendered without %s (%s %s). podlint never downloads charts: run `helm dependency build %s`, then lint again.",
				r.Name, r.Repository, r.Version, filepath.Dir(chartFile))})
	}
	// The rest of the chart is rendered without the missing ones, which
	// ProcessDependencies would otherwise look for.
	if len(out) > 0 {
		var keep []*chart.Dependency
		for _, r := range ch.Metadata.Dependencies {
			if have[r.Name] {
				keep = append(keep, r)
			}
		}
		ch.Metadata.Dependencies = keep
	}
	return out
}

func chartYAML(ch *chart.Chart) *yaml.Node {
	var n yaml.Node
	if data := rawFile(ch, "Chart.yaml"); data != nil && yaml.Unmarshal(data, &n) == nil {
		return manifest.Deref(&n)
	}
	return nil
}

// rawFile is a file of the chart as loaded, or nil.
func rawFile(ch *chart.Chart, name string) []byte {
	for _, f := range ch.Raw {
		if f.Name == name {
			return f.Data
		}
	}
	return nil
}

func lineOfKey(ch *chart.Chart, key string) int {
	if k, _ := render.MapGet(chartYAML(ch), key); k != nil {
		return k.Line
	}
	return 1
}

func lineOfDependency(ch *chart.Chart, name string) int {
	_, deps := render.MapGet(chartYAML(ch), "dependencies")
	if deps == nil || deps.Kind != yaml.SequenceNode {
		return 1
	}
	for _, d := range deps.Content {
		if _, v := render.MapGet(d, "name"); v != nil && v.Value == name {
			return d.Line
		}
	}
	return deps.Line
}

// mergeMaps is Helm's merge of values files: b wins, maps merge deeply.
func mergeMaps(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if v, ok := v.(map[string]any); ok {
			if bv, ok := out[k]; ok {
				if bv, ok := bv.(map[string]any); ok {
					out[k] = mergeMaps(bv, v)
					continue
				}
			}
		}
		out[k] = v
	}
	return out
}

// linkOutOfTree returns the first symbolic link under root (in walk order)
// that resolves outside root or to anything but a regular file or folder,
// with where it points; "" when there is none.
func linkOutOfTree(root string) (link, target string) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", ""
	}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		t, err := filepath.EvalSymlinks(path)
		if err != nil {
			link, target = path, "a missing or looping target"
			return filepath.SkipAll
		}
		// The refusal names the link and what it says, never what it
		// resolves to (or holds).
		said, _ := os.Readlink(path)
		rel, err := filepath.Rel(realRoot, t)
		inside := err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
		fi, statErr := os.Stat(t)
		regular := statErr == nil && (fi.Mode().IsRegular() || fi.IsDir())
		if !inside || !regular {
			link, target = path, said
			return filepath.SkipAll
		}
		return nil
	})
	return link, target
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// loadChartDir is Helm's loader.LoadDir reading through root: a file is
// read only inside the repository, and only when it is a regular file of a
// disk file system (Helm's loader opens devices, FIFOs and /proc files
// behind a link and follows links anywhere).
//
// Files outside the read set of the repository (git does not track them:
// the CI job's own files in a checkout whose root is the chart) are left
// out of the chart, as if .helmignore named them, and said on standard
// error; VCS metadata and credential files are never even listed.
func loadChartDir(dir string, root *safefile.Root) (*chart.Chart, error) {
	rules := ignore.Empty()
	var untracked []string
	if ifile := filepath.Join(dir, ignore.HelmIgnore); exists(root, ifile) && root.Readable(ifile) == nil {
		data, err := root.ReadFile(ifile, render.MaxSourceFile)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", ignore.HelmIgnore, render.Reason(err))
		}
		if rules, err = ignore.Parse(bytes.NewReader(data)); err != nil {
			return nil, err
		}
	}
	rules.AddDefaults()
	var files []*loader.BufferedFile
	var walk func(d, rel string, ancestors []fs.FileInfo) error
	walk = func(d, rel string, ancestors []fs.FileInfo) error {
		entries, err := root.ReadDir(d)
		if err != nil {
			return fmt.Errorf("%s: %v", cmp.Or(rel, "."), render.Reason(err))
		}
		for _, e := range entries {
			p, n := filepath.Join(d, e.Name()), path.Join(rel, e.Name())
			fi, err := root.Stat(p)
			if err != nil {
				return fmt.Errorf("%s: %v", n, render.Reason(err))
			}
			if rules.Ignore(n, fi) {
				continue
			}
			if fi.IsDir() {
				if isAncestor(ancestors, fi) {
					continue // a link to a folder holding it: a loop
				}
				if !root.MayHold(p) {
					untracked = append(untracked, n+"/")
					continue
				}
				if err := walk(p, n, append(ancestors, fi)); err != nil {
					return err
				}
				continue
			}
			if err := root.Readable(p); render.NotInReadSet(err) {
				untracked = append(untracked, n)
				continue
			}
			if len(files) >= render.MaxChartFiles {
				return fmt.Errorf("the chart holds more than %d files", render.MaxChartFiles)
			}
			data, err := render.ReadEdited(root, p, min(render.MaxSourceFile, loader.MaxDecompressedFileSize))
			if err != nil {
				return fmt.Errorf("%s: %v", n, render.Reason(err))
			}
			files = append(files, &loader.BufferedFile{Name: n, Data: bytes.TrimPrefix(data, utf8BOM)})
		}
		return nil
	}
	top, err := root.Stat(dir)
	if err != nil {
		return nil, render.Reason(err)
	}
	if err := walk(dir, "", []fs.FileInfo{top}); err != nil {
		return nil, err
	}
	if _, said := hinted.LoadOrStore(dir, true); len(untracked) > 0 && !said {
		// Once per chart, through the logger: the render child forwards its records to
		// podlint's standard error, escaped.
		const show = 5
		more := ""
		if len(untracked) > show {
			more = fmt.Sprintf(" and %d more", len(untracked)-show)
		}
		log.Printf("hint: chart %s: left out %s%s: not tracked by git (podlint renders only tracked files; git add them, or name them with --read-untracked)",
			dir, strings.Join(untracked[:min(show, len(untracked))], ", "), more)
	}
	return loader.LoadFiles(files)
}

// hinted are the charts whose left-out files were said: a chart whose
// template fails is loaded again without it.
var hinted sync.Map

func exists(root *safefile.Root, p string) bool {
	_, err := root.Lstat(p)
	return err == nil
}

func isAncestor(ancestors []fs.FileInfo, fi fs.FileInfo) bool {
	for _, a := range ancestors {
		if os.SameFile(a, fi) {
			return true
		}
	}
	return false
}

// metaSchemas are the JSON Schema drafts Helm's validator (santhosh-tekuri/
// jsonschema) holds itself (draftFromURL in its draft.go, "schema" being
// the alias of the latest draft); any other $schema it would load by URL.
var metaSchemas = map[string]bool{
	"json-schema.org/schema":               true,
	"json-schema.org/draft-04/schema":      true,
	"json-schema.org/draft-06/schema":      true,
	"json-schema.org/draft-07/schema":      true,
	"json-schema.org/draft/2019-09/schema": true,
	"json-schema.org/draft/2020-12/schema": true,
}

// externalRef returns the first reference of a values.schema.json that
// Helm would resolve by reading a file (file://, a relative path) or
// fetching a URL with its own HTTP client, which podlint's offline
// transport does not cover; "" when every reference stays inside the
// schema ("#/definitions/x").
func externalRef(schema []byte) string {
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return "" // Helm reports a schema that is not JSON itself
	}
	var found []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				s, isString := e.(string)
				switch {
				case !isString:
				case k == "$ref" || k == "$dynamicRef" || k == "$recursiveRef":
					if !strings.HasPrefix(s, "#") {
						found = append(found, s)
					}
				case k == "$schema":
					u := strings.TrimSuffix(s, "#")
					u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
					if !metaSchemas[u] {
						found = append(found, s)
					}
				}
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	if len(found) == 0 {
		return ""
	}
	sort.Strings(found) // maps have no order: the same one every run
	return found[0]
}

// dropExternalSchemas removes the values schema of every chart (and
// subchart) that refers outside itself, with a problem at the schema: Helm
// would read the file or fetch the URL while validating the values. The
// chart is still rendered, without that schema's validation.
func dropExternalSchemas(ch *chart.Chart, dir string) []render.Problem {
	var out []render.Problem
	var rec func(c *chart.Chart, dir string)
	rec = func(c *chart.Chart, dir string) {
		if c.Schema != nil {
			if ref := externalRef(c.Schema); ref != "" {
				c.Schema = nil
				out = append(out, render.Problem{File: filepath.Join(dir, "values.schema.json"), Line: 1, Column: 1,
					Message: "values.schema.json refers to a schema outside the chart, so it was not used",
					Detail: fmt.Sprintf("It refers to %q; Helm would read that file or fetch that URL while validating the values, and podlint never reads outside the chart nor uses the network. "+
						"The chart was rendered without validating its values. Inline the referenced schema under $defs and refer to it as \"#/$defs/…\".", ref)})
			}
		}
		for _, d := range c.Dependencies() {
			rec(d, filepath.Join(dir, "charts", d.Name()))
		}
	}
	rec(ch, dir)
	return out
}

// Helm charts call Sprig's random functions (randAlphaNum, randAlpha,
// randNumeric, randAscii, randBytes, uuidv4) for the names of test Pods,
// for annotations that force a rollout and for generated secrets. Left
// random, the same chart gives Pods other names on every run, so podlint's
// output, and the SARIF fingerprints that code scanning tracks alerts by,
// would change from one run to the next. While a chart renders, those
// functions read a fixed stream instead: Sprig reads crypto/rand.Reader at
// each call, and uuid its own reader, which SetRand replaces. podlint
// needs no secure randomness anywhere else, and a lock keeps charts from
// sharing the stream, so that each chart gets the same values in every
// run whatever else renders at the same time. (randInt uses math/rand's
// global source and now the clock; neither can be pinned from outside.)
var randomMu sync.Mutex

// repeatableRandom makes the random functions repeatable until restore is
// called. seed picks the stream.
func repeatableRandom(seed string) (restore func()) {
	randomMu.Lock()
	r := rand.NewChaCha8(sha256.Sum256([]byte("podlint render " + seed)))
	orig := crand.Reader
	crand.Reader = r
	uuid.SetRand(r)
	return func() {
		crand.Reader = orig
		uuid.SetRand(nil)
		randomMu.Unlock()
	}
}
