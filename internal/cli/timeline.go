package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/crossobject"
	"github.com/podlint/podlint/internal/settings"
	"github.com/podlint/podlint/internal/textsafe"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/report/plot"
	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
	ucli "github.com/urfave/cli/v2"
)

var timelineFormats = []string{"text", "json", "svg", "mermaid"}

func timelineCommand(env *runEnv) *ucli.Command {
	flags := append([]ucli.Flag{
		&ucli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "`FORMAT`: " + strings.Join(timelineFormats, ", "), Value: "text"},
	}, append(commonFlags(), renderFlags()...)...)
	return &ucli.Command{
		Name:      "timeline",
		Usage:     "show each workload's worst-case lifecycle: probes, readiness, kills, termination",
		ArgsUsage: "PATH...",
		Description: `For each workload: the start chain and probe windows for a healthy start and
for a container that never becomes healthy, the crash-loop schedule, the
termination sequence and the controller deadlines. Times are intervals
[earliest, latest), because a probe's phase relative to container start cannot
be known from a manifest. --format svg writes one chart per workload (to -o DIR
when there are several); --format mermaid prints a gantt block for Markdown.
--observed PROFILE (or observed: in .podlint.yaml) marks on the same axis what
a podlint observe profile saw of each container it covers: start-ups (median,
p95, max; runs a probe cut short as a lower bound), probe kills and shutdowns,
with the profile's date (docs/observe.md).`,
		Flags: grouped(flags),
		Action: func(c *ucli.Context) error {
			if c.NArg() == 0 {
				return &exitError{ExitError, "timeline needs at least one PATH (a file, a directory, or - for standard input)"}
			}
			s, err := loadSettings(c, env)
			if err != nil {
				return err
			}
			format := c.String("format")
			if !slices.Contains(timelineFormats, format) {
				return &exitError{ExitError, fmt.Sprintf("--format %q: want one of %s", format, strings.Join(timelineFormats, ", "))}
			}
			srcs, hints, errs := sources(s, c, env)
			for _, h := range hints {
				env.warnf("hint: %s", h.Message)
			}
			items, loadErrs := timelineItems(s, srcs)
			errs = append(errs, loadErrs...)
			if err := writeTimelines(c, env, s, format, items, srcs); err != nil {
				return err
			}
			for _, e := range errs {
				env.warnf("%v", e)
			}
			if len(errs) > 0 {
				env.code = ExitError
			}
			return nil
		},
	}
}

// timelineItems loads the sources with check's loader and computes every
// workload's timeline. Input problems are check's business; here they only
// mean a workload is missing, which stderr says.
func timelineItems(s *settings.Settings, srcs []manifest.Source) ([]plot.Item, []error) {
	items, _, errs := timelineItemsFrom(s, srcs)
	return items, errs
}

// timelineItemsFrom is timelineItems, also giving the index in srcs of
// the source each item was loaded from.
func timelineItemsFrom(s *settings.Settings, srcs []manifest.Source) ([]plot.Item, []int, []error) {
	var errs []error
	var from []int
	// Each workload's rollout and drain depend on the autoscaler and budget
	// beside it in its environment (release.Partition).
	var parts []*crossobject.Part
	var all []planned
	for _, src := range srcs {
		part := &crossobject.Part{File: src.Path}
		parts = append(parts, part)
		ps, lerrs := loadItems(s, src, part)
		all, errs = append(all, ps...), append(errs, lerrs...)
		for range ps {
			from = append(from, len(parts)-1)
		}
	}
	viewOf := map[*crossobject.Workload]*crossobject.View{}
	for _, env := range crossobject.Partition(parts) {
		view := crossobject.Build(env)
		for _, p := range env {
			for _, w := range p.Workloads {
				viewOf[w] = view
			}
		}
	}
	items := make([]plot.Item, len(all))
	for i, p := range all {
		items[i] = p.item
		if view := viewOf[p.w]; view != nil {
			items[i].Rollout, items[i].Drain = view.Plan(p.w, p.item.Timeline, p.exclusive, s.Linter.Params.Nodes)
		}
	}
	return items, from, errs
}

// loadItems loads one source (a plain file, or a Helm chart or
// kustomization rendered by the same loader as check's) and computes its
// workloads' timelines, each placed at the file and line that holds it and
// each field it depends on at the line check would report it.
func loadItems(s *settings.Settings, src manifest.Source, part *crossobject.Part) ([]planned, []error) {
	if src.Render != "" && s.Renderer == nil {
		return nil, []error{fmt.Errorf("%s: rendering is off (--render never)", src.Path)}
	}
	l, err := s.Linter.Load(src)
	if err != nil {
		return nil, []error{err}
	}
	defer l.Close()
	var errs []error
	if l.Rendered != nil {
		for _, p := range l.Rendered.Problems {
			errs = append(errs, fmt.Errorf("%s:%d:%d: %s (run podlint check for details)", p.File, p.Line, p.Column, p.Message))
		}
	}
	if l.TooBig {
		return nil, append(errs, s.Linter.ErrTooBig(l))
	}
	for _, p := range l.Result.Problems {
		if p.Rule == manifest.RuleInvalidYAML || p.Rule == manifest.RuleInvalidManifest || p.Rule == manifest.RuleHelmTemplate || p.Rule == manifest.RuleLimitExceeded {
			errs = append(errs, fmt.Errorf("%s:%d:%d: %s (run podlint check for details)", src.Path, p.Line, p.Column, p.Message))
		}
	}
	return workloadItems(s, l, part), errs
}

// planned is a workload's timeline and its entry in the cross-object view.
type planned struct {
	item      plot.Item
	w         *crossobject.Workload
	exclusive string // why its Pods need a node each, or ""
}

// workloadItems computes the timeline of every workload of l and records
// every object in part.
func workloadItems(s *settings.Settings, l *analyzer.Loaded, part *crossobject.Part) []planned {
	var out []planned
	for _, o := range l.Result.Objects {
		part.Add(o, s.Linter.Limits)
		if o.Workload == nil {
			continue
		}
		// A rendered object is shown at its kind: its root maps to the
		// last patch that touched it, its kind to the file that declares
		// it.
		at := o.Path
		if l.Rendered != nil {
			at = o.Path.Field("kind")
		}
		pos, _ := placeSafely(l, o, at)
		var own map[string]string
		if o.TemplateMeta != nil {
			own = o.TemplateMeta.Labels
		}
		why, _ := timeline.ExclusiveNode(o.Workload.Spec, own)
		tl := timeline.Compute(o.Workload, s.Linter.Version, s.Linter.Params)
		item := plot.Item{File: pos.File, Line: pos.Line, APIVersion: o.Ref.APIVersion, Kind: o.Ref.Kind,
			Namespace: o.Ref.Namespace, Name: o.Ref.Name, Timeline: tl, Observed: s.Linter.Params.Observed.Of(o.Workload)}
		// A rendered object's fields are written in other files than the
		// object's line: each is placed where check would report it.
		// (A plain file's are under the object's line, in the same file.)
		for _, p := range renderedPaths(l, tl) {
			if _, written := o.Doc.Locate(p); !written {
				continue // a default: the timeline says what it assumed
			}
			f, _ := placeSafely(l, o, p)
			item.Fields = append(item.Fields, plot.Field{Path: string(p), File: f.File, Line: f.Line, Column: f.Column, Approximate: f.Approximate})
		}
		out = append(out, planned{item: item, w: part.Workloads[len(part.Workloads)-1], exclusive: why})
	}
	return out
}

// placeSafely is l.Place, falling back to the source's path when a
// template is too unusual to map (a bug to fix, not a reason to lose the
// timeline).
func placeSafely(l *analyzer.Loaded, o *manifest.Object, p workload.Path) (m manifest.Mapped, written bool) {
	defer func() {
		if recover() != nil {
			m, written = manifest.Mapped{File: l.Path, Line: 1, Column: 1, Approximate: true, Path: string(p)}, true
		}
	}()
	return l.Place(o, p)
}

func renderedPaths(l *analyzer.Loaded, tl *timeline.Timeline) []workload.Path {
	if l.Rendered == nil {
		return nil
	}
	return timelinePaths(tl)
}

// timelinePaths are the fields a timeline depends on: every field path it
// holds (its spans' Paths, the paths of the values it read), sorted and
// each once.
func timelinePaths(tl *timeline.Timeline) []workload.Path {
	seen := map[workload.Path]bool{}
	visited := map[uintptr]bool{}
	pathType := reflect.TypeOf(workload.Path(""))
	var walk func(v reflect.Value, depth int)
	walk = func(v reflect.Value, depth int) {
		if depth > 32 {
			return
		}
		if v.Type() == pathType {
			if p := workload.Path(v.String()); p != "" {
				seen[p] = true
			}
			return
		}
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || visited[v.Pointer()] {
				return
			}
			visited[v.Pointer()] = true
			walk(v.Elem(), depth+1)
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem(), depth+1)
			}
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i), depth+1)
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i), depth+1)
			}
		}
	}
	if tl != nil {
		walk(reflect.ValueOf(tl), 0)
	}
	out := make([]workload.Path, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

var unsafeFileChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9._-]+`) })

// svgNames returns one distinct file name per item, from its namespace,
// kind and name: objects a, a and a-2 get a, a-2 and a-2-2, never one
// name twice (a chart would be lost). Names are compared ignoring case,
// for case-insensitive file systems.
func svgNames(items []plot.Item) []string {
	taken := map[string]bool{}
	names := make([]string, len(items))
	for i, it := range items {
		base := strings.ToLower(it.Kind) + "-" + it.Name
		if it.Namespace != "" {
			base = it.Namespace + "-" + base
		}
		base = boundName(strings.Trim(unsafeFileChars().ReplaceAllString(base, "_"), "_"))
		name := base
		for n := 2; taken[strings.ToLower(name)]; n++ {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		taken[strings.ToLower(name)] = true
		names[i] = name + ".svg"
	}
	return names
}

// maxSVGBase bounds a chart's file name before "-N" and ".svg": an object
// name may be 253 characters and a namespace 63, and file systems take 255
// bytes (NAME_MAX), which createOutput's temporary ".NAME.svg.123.tmp"
// needs about 20 more of. A longer name keeps its start and a hash of the
// whole, so that two long names stay two files.
const maxSVGBase = 180

func boundName(base string) string {
	if len(base) <= maxSVGBase {
		return base
	}
	sum := sha256.Sum256([]byte(base))
	return base[:maxSVGBase-9] + "-" + hex.EncodeToString(sum[:4])
}

func writeTimelines(c *ucli.Context, env *runEnv, s *settings.Settings, format string, items []plot.Item, srcs []manifest.Source) error {
	if format == "svg" {
		return writeSVGs(c, env, items, srcs)
	}
	o, err := openOutput(c, env, srcs)
	if err != nil {
		return err
	}
	out := o.w
	// Text and Mermaid show names and paths from the manifests: render
	// them first and escape what is not plain text (see textsafe).
	var buf bytes.Buffer
	switch format {
	case "text":
		if err = plot.Text(&buf, items, s.Color); err == nil {
			_, err = io.WriteString(out, textsafe.Text(buf.String(), s.Color))
		}
	case "json":
		err = plot.JSON(out, items)
	case "mermaid":
		if err = plot.Mermaid(&buf, items); err == nil {
			_, err = io.WriteString(out, textsafe.Text(buf.String(), false))
		}
	}
	if err = o.finish(err); err != nil {
		return &exitError{ExitError, "writing the timeline: " + err.Error()}
	}
	return nil
}

// writeSVGs prints one chart to standard output or -o FILE, or writes one
// file per workload into the -o directory.
func writeSVGs(c *ucli.Context, env *runEnv, items []plot.Item, srcs []manifest.Source) error {
	o := c.String("output")
	dir := ""
	if o != "" {
		if fi, err := os.Stat(o); (err == nil && fi.IsDir()) || strings.HasSuffix(o, "/") || len(items) > 1 {
			dir = o
		}
	}
	if dir == "" {
		if len(items) > 1 {
			return &exitError{ExitError, fmt.Sprintf("%d workloads: --format svg writes one chart each, so give a directory with -o DIR", len(items))}
		}
		if len(items) == 0 {
			return nil
		}
		out, err := openOutput(c, env, srcs)
		if err != nil {
			return err
		}
		if err = out.finish(plot.SVG(out.w, items[0])); err != nil {
			return &exitError{ExitError, "writing the chart: " + err.Error()}
		}
		return nil
	}
	if fi, err := os.Lstat(strings.TrimRight(dir, "/")); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return &exitError{ExitError, fmt.Sprintf("-o %s is a symbolic link; podlint does not write through links", textsafe.Quote(dir))}
	}
	d, err := openOutDir(dir, true)
	if err != nil {
		return outDirError("-o", dir, err)
	}
	defer d.close()
	for i, name := range svgNames(items) {
		path := filepath.Join(dir, name)
		out, err := createOutputIn(d, name, path, "-o", srcs)
		if err != nil {
			return err
		}
		if err = out.finish(plot.SVG(out.w, items[i])); err != nil {
			return &exitError{ExitError, fmt.Sprintf("%s: %v", path, err)}
		}
		env.warnf("wrote %s", path)
	}
	return nil
}
