package render

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/alloctest"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
)

// Hostile charts and kustomizations: each is a few KB (the archives are
// generated here) and would take minutes, gigabytes or the network in
// process. Rendered in the limited child, each ends at a limit, reported
// at the root; no test reads the clock.

var hostileRender = filepath.Join("..", "testdata", "hostile", "render")

// testLimits are tight, so that the hostile tests cost little CPU.
var testLimits = Limits{CPU: time.Second, Memory: 160 << 20, Wall: 60 * time.Second, Output: 16 << 20}

func lintConfig() *analyzer.Linter {
	return analyzer.Default(analyzer.Only(rules.ChartRenderError, rules.LimitExceeded))
}

// lintRoot renders and lints one root through the child process.
func lintRoot(t *testing.T, dir, kind string, o *Options) []finding.Finding {
	t.Helper()
	return lintSource(t, manifest.Source{Path: dir, Render: kind}, o)
}

// lintSource is lintRoot for a source as discovery makes it (with the
// repository root that bounds what rendering reads).
func lintSource(t *testing.T, src manifest.Source, o *Options) []finding.Finding {
	t.Helper()
	if o.Limits == (Limits{}) {
		o.Limits = testLimits
	}
	fs, _, err := o.Lint(lintConfig(), src)
	if err != nil {
		t.Fatalf("%s: %v", src.Path, err)
	}
	return fs
}

var limitHit = regexp.MustCompile(`^rendering the (chart|kustomization) (used more than .* of CPU time|needed more than .* of memory|waited .* without running|produced more than)`)

// wantLimit fails unless fs is exactly one chart-render-error at the
// root's file that names a limit and the flag raising it.
func wantLimit(t *testing.T, fs []finding.Finding, rootFile string) {
	t.Helper()
	if len(fs) != 1 || fs[0].RuleID != rules.ChartRenderError.ID || fs[0].File != rootFile || fs[0].Line != 1 ||
		!limitHit.MatchString(fs[0].Message) || !regexp.MustCompile(`raise --render-[a-z-]+ on the command line \(a \.podlint\.yaml may only lower it`).MatchString(fs[0].Detail) {
		t.Fatalf("want one chart-render-error at %s naming a limit and its flag, got %d:\n%s", rootFile, len(fs), dump(fs))
	}
}

func dump(fs []finding.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s:%d:%d %s %s: %s\n", f.File, f.Line, f.Column, f.RuleID, f.Message, f.Detail)
	}
	return b.String()
}

func TestHostileTemplatesHitALimit(t *testing.T) {
	for _, name := range []string{"tpl-recursion", "include-doubling", "sprig-repeat", "sprig-until"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(hostileRender, name)
			wantLimit(t, lintRoot(t, dir, manifest.RenderHelm, &Options{}), filepath.Join(dir, "Chart.yaml"))
		})
	}
}

// TestHostileSubchartArchives: twelve 96 KB subchart archives that unpack
// to 95 MiB each.
func TestHostileSubchartArchives(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "Chart.yaml"), "apiVersion: v2\nname: bomb\nversion: 0.1.0\n")
	archive := zipBombChart(t)
	if len(archive) > 200<<10 {
		t.Fatalf("the archive is %d bytes; the construct is about 96 KB", len(archive))
	}
	for i := range 12 {
		writeFile(t, filepath.Join(dir, "charts", fmt.Sprintf("sub%02d-0.1.0.tgz", i)), string(archive))
	}
	wantLimit(t, lintRoot(t, dir, manifest.RenderHelm, &Options{}), filepath.Join(dir, "Chart.yaml"))
}

// zipBombChart is a chart archive of 19 templates of 5 MiB of spaces each
// (Helm's per-file bound), 95 MiB unpacked. gzip readers, Helm's too, read
// concatenated members as one stream, so the 5 MiB block is compressed
// once and repeated after each file's header.
func zipBombChart(t *testing.T) []byte {
	t.Helper()
	member := func(b []byte) []byte {
		var buf bytes.Buffer
		gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		gz.Write(b)
		gz.Close()
		return buf.Bytes()
	}
	header := func(name string, size int) []byte {
		var buf bytes.Buffer
		if err := tar.NewWriter(&buf).WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(size), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	padded := func(b []byte) []byte { return append(b, make([]byte, (512-len(b)%512)%512)...) }
	chart := []byte("apiVersion: v2\nname: sub\nversion: 0.1.0\n")
	out := member(append(header("sub/Chart.yaml", len(chart)), padded(chart)...))
	const size = 5<<20 - 1
	block := member(padded(bytes.Repeat([]byte(" "), size)))
	for i := range 19 {
		out = append(out, member(header(fmt.Sprintf("sub/templates/t%02d.yaml", i), size))...)
		out = append(out, block...)
	}
	return append(out, member(make([]byte, 1024))...)
}

// TestHostileKustomizeAliasBomb: --max-nodes bounds what podlint parses,
// not what kustomize parses; the child's limits bound that.
func TestHostileKustomizeAliasBomb(t *testing.T) {
	dir := filepath.Join(hostileRender, "kustomize-alias-bomb")
	fs := lintRoot(t, dir, manifest.RenderKustomize, &Options{})
	if len(fs) == 0 || fs[0].RuleID != rules.ChartRenderError.ID && fs[0].RuleID != rules.LimitExceeded.ID {
		t.Fatalf("want a chart-render-error or limit-exceeded finding, got:\n%s", dump(fs))
	}
}

// TestHostileOverlayDiamond: 12 levels of two overlays that each use both
// of the level below: kustomize builds the base 4096 times.
func TestHostileOverlayDiamond(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "l00", "kustomization.yaml"), "resources: [pod.yaml]\n")
	writeFile(t, filepath.Join(dir, "l00", "pod.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
	below := []string{"../l00", "../l00"}
	var srcs []manifest.Source
	for i := 1; i <= 12; i++ {
		var level []string
		for _, side := range []string{"a", "b"} {
			name := fmt.Sprintf("l%02d%s", i, side)
			writeFile(t, filepath.Join(dir, name, "kustomization.yaml"), fmt.Sprintf("namePrefix: %s-\nresources: [%s, %s]\n", side, below[0], below[1]))
			level = append(level, "../"+name)
			srcs = append(srcs, manifest.Source{Path: filepath.Join(dir, name), Render: manifest.RenderKustomize, Root: dir})
		}
		below = level
	}
	var planned []manifest.Source
	if n := alloctest.Bytes(func() { planned = Plan(srcs) }); n > 8<<20 {
		t.Errorf("Plan of 25 kustomizations allocated %d bytes", n)
	}
	if len(planned) != 2 {
		t.Fatalf("planned %d roots, want the two top overlays", len(planned))
	}
	fs := lintSource(t, planned[0], &Options{})
	if len(fs) == 0 {
		t.Fatal("no finding: 4096 copies of a ConfigMap neither rendered nor stopped")
	}
	if f := fs[0]; f.RuleID == rules.ChartRenderError.ID && !limitHit.MatchString(f.Message) && !strings.Contains(f.Message, "kustomize cannot build") {
		t.Errorf("unexpected problem:\n%s", dump(fs))
	}
}

// TestHostileSelfLinks: a folder with links a -> . and b -> . is one
// kustomization, not 2^40 paths through the links.
func TestHostileSelfLinks(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(hostileRender, "self-links", "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "kustomization.yaml"), string(data))
	for _, l := range []string{"a", "b"} {
		if err := os.Symlink(".", filepath.Join(dir, l)); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	src := manifest.Source{Path: dir, Render: manifest.RenderKustomize}
	if n := alloctest.Bytes(func() { Plan([]manifest.Source{src}) }); n > 1<<20 {
		t.Errorf("Plan allocated %d bytes for one kustomization", n)
	}
	fs := lintRoot(t, dir, manifest.RenderKustomize, &Options{})
	if len(fs) != 1 || fs[0].RuleID != rules.ChartRenderError.ID {
		t.Errorf("want kustomize's refusal of the cycle, got:\n%s", dump(fs))
	}
}

// TestHostileKustomizationChain: a chain of 1000 kustomizations, each the
// base of the next, all named in one run: each is read once, not once per
// overlay above it.
func TestHostileKustomizationChain(t *testing.T) {
	dir := t.TempDir()
	var srcs []manifest.Source
	for i := range 1000 {
		k := "resources: [pod.yaml]\n"
		if i > 0 {
			k = fmt.Sprintf("resources: [../k%03d]\n", i-1)
		} else {
			writeFile(t, filepath.Join(dir, "k000", "pod.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
		}
		writeFile(t, filepath.Join(dir, fmt.Sprintf("k%03d", i), "kustomization.yaml"), k)
		srcs = append(srcs, manifest.Source{Path: filepath.Join(dir, fmt.Sprintf("k%03d", i)), Render: manifest.RenderKustomize, Root: dir})
	}
	var planned []manifest.Source
	// Reading 1000 kustomizations once costs about 20 MB; once per
	// overlay above each, as before, 10 GB.
	if n := alloctest.Bytes(func() { planned = Plan(srcs) }); n > 200<<20 {
		t.Errorf("Plan of a chain of 1000 allocated %d bytes", n)
	}
	if len(planned) != 1 || planned[0].Path != srcs[999].Path || len(planned[0].Through) != 999 || planned[0].Through[0] != srcs[0].Path {
		t.Fatalf("want the top overlay through the 999 below it, got %d roots", len(planned))
	}
	// With --render=never the kustomization files are the sources, and
	// DropPatches reads each once for all of them, as Plan does.
	files := make([]manifest.Source, len(srcs))
	for i, src := range srcs {
		files[i] = manifest.Source{Path: filepath.Join(src.Path, "kustomization.yaml"), Root: dir}
	}
	if n := alloctest.Bytes(func() { DropPatches(files) }); n > 200<<20 {
		t.Errorf("DropPatches of a chain of 1000 allocated %d bytes", n)
	}
}

// TestHostileManyProblems: a kustomization of 5 000 missing entries (250
// KB) is 5 000 problems in one file; quoting each one's line and looking
// for suppression comments read the whole file each time.
func TestHostileManyProblems(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("resources:\n")
	for i := range 5_000 {
		fmt.Fprintf(&b, "  - missing-resource-file-number-%05d.yaml\n", i)
	}
	writeFile(t, filepath.Join(dir, "kustomization.yaml"), b.String())
	var fs []finding.Finding
	n := alloctest.Bytes(func() { fs = lintRoot(t, dir, manifest.RenderKustomize, &Options{}) })
	if len(fs) != maxProblems+1 || !strings.Contains(fs[maxProblems].Message, "4800 more problems") {
		t.Fatalf("%d findings, want %d and one saying how many more", len(fs), maxProblems+1)
	}
	t.Logf("%d bytes allocated", n)
	// About 8 MB; reading and scanning the file once per problem was
	// over 1 GB.
	if n > 64<<20 {
		t.Errorf("linting the problems allocated %d bytes", n)
	}
}

// TestHostileLongName: a patch target name against a resource name of
// 100 000 parts: matching every part against every part was cubic.
func TestKustomizeClones(t *testing.T) {
	for entry, want := range map[string]bool{
		"github.com/org/repo": true, "GitHub.com/org/repo": true, "github.com:org/repo": true, "git::https://x/y": true,
		"https://example.com/r": true, "ssh://git@example.com/r": true, "file:///srv/repo": true, "git@example.com:org/repo": true,
		"./github.com/org/repo": false, "base": false, "../base": false, "my.app/base": false, "gitlab.com/org/repo": false,
	} {
		if got := kustomizeClones(entry); got != want {
			t.Errorf("kustomizeClones(%q) = %v, want %v", entry, got, want)
		}
	}
}

func TestHostileLongName(t *testing.T) {
	name := strings.Repeat("a-", 50_000) + "a"
	var got bool
	if n := alloctest.Bytes(func() { got = nameMatch(name, "a(-a)*b") }); n > 1<<20 || got {
		t.Errorf("nameMatch: %v, %d bytes allocated", got, n)
	}
	long := strings.Repeat("a-", 100) + "api-v2"
	if !nameMatch(long, "api") || nameMatch(long, "pi") {
		t.Error("nameMatch no longer finds a part of a name of valid length")
	}
}

// recorders puts programs named git, helm and kubectl first on PATH that
// record being run, and returns the record's path.
func recorders(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	record := filepath.Join(t.TempDir(), "ran")
	for _, p := range []string{"git", "helm", "kubectl"} {
		script := fmt.Sprintf("#!/bin/sh\necho \"%s $*\" >> '%s'\nexit 1\n", p, record)
		if err := os.WriteFile(filepath.Join(bin, p), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return record
}

// TestNeverExecutes: a resource that looks like a git URL while a folder of
// that name exists made kustomize run git init and git fetch. Nothing but
// podlint's own re-exec may start a process.
func TestNeverExecutes(t *testing.T) {
	record := recorders(t)
	dir := filepath.Join(hostileRender, "git-lookalike")
	fs := lintRoot(t, dir, manifest.RenderKustomize, &Options{})
	if data, err := os.ReadFile(record); err == nil {
		t.Fatalf("rendering ran programs:\n%s", data)
	}
	if len(fs) != 1 || fs[0].RuleID != rules.ChartRenderError.ID || fs[0].File != filepath.Join(dir, "kustomization.yaml") || fs[0].Line != 4 ||
		!strings.Contains(fs[0].Message, "git repository to kustomize") || !strings.Contains(fs[0].Detail, `write "./github.com/org/repo"`) {
		t.Errorf("want one chart-render-error at the entry, saying how to name the folder, got:\n%s", dump(fs))
	}
	// A chart next to it runs nothing either.
	lintRoot(t, filepath.Join("testdata", "helm", "podinfo"), manifest.RenderHelm, &Options{KubeVersion: "1.30"})
	if data, err := os.ReadFile(record); err == nil {
		t.Fatalf("rendering a chart ran programs:\n%s", data)
	}
}

// TestNeverConnects: every way a chart or kustomization names a URL, aimed
// at a loopback listener that must see no connection. The child panics on
// any name lookup, and on Linux cannot create a socket at all.
func TestNeverConnects(t *testing.T) {
	addr, connections := loopbackListener(t)
	url := "http://" + addr
	kust := t.TempDir()
	writeFile(t, filepath.Join(kust, "kustomization.yaml"), fmt.Sprintf("resources:\n  - pod.yaml\npatches:\n  - path: %s/patch.yaml\nopenapi:\n  path: %s/schema.json\n", url, url))
	writeFile(t, filepath.Join(kust, "pod.yaml"), "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: web, image: nginx}]\n")
	chart := t.TempDir()
	writeFile(t, filepath.Join(chart, "Chart.yaml"), "apiVersion: v2\nname: net\nversion: 0.1.0\n")
	writeFile(t, filepath.Join(chart, "values.schema.json"), fmt.Sprintf(`{"$ref": "%s/values.schema.json"}`, url))
	writeFile(t, filepath.Join(chart, "templates", "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
	named := t.TempDir()
	writeFile(t, filepath.Join(named, "kustomization.yaml"), "resources:\n  - localhost.localdomain/org/repo\n")
	writeFile(t, filepath.Join(named, "localhost.localdomain", "org", "repo", "kustomization.yaml"), "resources: []\n")
	for _, root := range []struct{ dir, kind string }{{kust, manifest.RenderKustomize}, {chart, manifest.RenderHelm}, {named, manifest.RenderKustomize}} {
		fs := lintRoot(t, root.dir, root.kind, &Options{testHooks: testHooks{panicOnNetwork: true}})
		for _, f := range fs {
			if strings.Contains(f.Message, "crashed") {
				t.Errorf("%s: the child tried the network:\n%s", root.dir, dump(fs))
			}
		}
	}
	if n := connections.Load(); n != 0 {
		t.Fatalf("the loopback listener saw %d connections", n)
	}
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// loopbackListener listens on a loopback port for the test's duration and
// counts the connections it accepts.
func loopbackListener(t *testing.T) (addr string, connections *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("no loopback listener:", err)
	}
	t.Cleanup(func() { ln.Close() })
	connections = new(atomic.Int32)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			connections.Add(1)
			c.Close()
		}
	}()
	return ln.Addr().String(), connections
}
