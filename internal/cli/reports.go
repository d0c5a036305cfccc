package cli

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/settings"
	"github.com/podlint/podlint/internal/textsafe"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/report"
	"github.com/podlint/podlint/report/plot"
	ucli "github.com/urfave/cli/v2"
)

// One check run can write several reports (-f sarif=podlint.sarif -f github
// -f markdown=summary.md): a CI job then reads, renders and lints every
// file once, where it used to run podlint once per format.

// formatList is the value of check's repeatable --format flag. Its items
// are FORMAT or FORMAT=FILE, kept as typed (urfave/cli's slice flags split
// on commas, and a file name may hold one).
type formatList struct {
	items []string
	set   bool // the default is replaced by the first -f
}

// serialFormats starts formatList's serialized form. urfave/cli copies a
// flag given by one name (-f) to its other names (--format) through
// Serialize and Set, on the same value; a NUL cannot come from a command
// line, so the copy is told apart from an item.
const serialFormats = "\x00formats\x00"

func (f *formatList) Serialize() string {
	return serialFormats + strings.Join(f.items, "\x00")
}

func (f *formatList) Set(v string) error {
	if list, ok := strings.CutPrefix(v, serialFormats); ok {
		f.items, f.set = strings.Split(list, "\x00"), true
		return nil
	}
	if !f.set {
		f.items, f.set = nil, true
	}
	f.items = append(f.items, v)
	return nil
}

func (f *formatList) String() string {
	if f == nil {
		return ""
	}
	return strings.Join(f.items, " ")
}

// reportSpec is one report of a check run: its format and where it goes,
// "" for standard output.
type reportSpec struct {
	format string
	file   string
}

// formatFlag is check's --format flag.
func formatFlag() *ucli.GenericFlag {
	return &ucli.GenericFlag{Name: "format", Aliases: []string{"f"},
		Usage: "report `FORMAT`: " + strings.Join(report.Formats, ", ") + "; FORMAT=FILE writes that report to FILE, and -f repeated writes several reports from one run " +
			"(e.g. -f text -f sarif=podlint.sarif); a FORMAT without =FILE goes to -o or standard output",
		Value: &formatList{items: []string{"text"}}, DefaultText: "text"}
}

// formatItems is what -f was given, or the default.
func formatItems(c *ucli.Context) []string {
	if f, ok := c.Generic("format").(*formatList); ok && f != nil {
		return f.items
	}
	return []string{"text"}
}

// reportSpecs turns -f and -o into the reports to write. At most one
// report goes to standard output (two would interleave), no two to the
// same file, and -o only where a -f has no file of its own.
func reportSpecs(items []string, output string) ([]reportSpec, error) {
	var specs []reportSpec
	toOutput := 0
	for _, it := range items {
		format, file, hasFile := strings.Cut(it, "=")
		if !slices.Contains(report.Formats, format) {
			return nil, fmt.Errorf("--format %s: want one of %s, optionally with =FILE%s", textsafe.Quote(format), strings.Join(report.Formats, ", "), settings.DidYouMean(format, report.Formats))
		}
		switch {
		case hasFile && file == "":
			return nil, fmt.Errorf("--format %s=: give the file to write the %s report to after the =, or - for standard output", format, format)
		case !hasFile:
			file = output
			toOutput++
		}
		if file == "-" {
			file = ""
		}
		specs = append(specs, reportSpec{format: format, file: file})
	}
	if output != "" && toOutput == 0 {
		return nil, fmt.Errorf("-o %s names no report: every --format has its own =FILE (give -o's report as -f FORMAT without a file)", textsafe.Quote(output))
	}
	seen := map[string]string{}
	for _, sp := range specs {
		key := "standard output"
		if sp.file != "" {
			key = sp.file
			if abs, err := filepath.Abs(sp.file); err == nil {
				key = abs
			}
		}
		if prev, dup := seen[key]; dup {
			where := "standard output"
			if sp.file != "" {
				where = textsafe.Quote(sp.file)
			}
			return nil, fmt.Errorf("--format %s and --format %s would both write to %s: give one of them its own file, -f FORMAT=FILE", prev, sp.format, where)
		}
		seen[key] = sp.format
	}
	return specs, nil
}

// hasFormat reports whether one of the reports is in one of formats.
func hasFormat(specs []reportSpec, formats ...string) bool {
	return slices.ContainsFunc(specs, func(sp reportSpec) bool { return slices.Contains(formats, sp.format) })
}

// toStdout reports whether one of the reports goes to standard output.
func toStdout(specs []reportSpec) bool {
	return slices.ContainsFunc(specs, func(sp reportSpec) bool { return sp.file == "" })
}

// writeReports writes every report, each file through the same
// link-refusing, atomic writer as -o. A report that cannot be written does
// not stop the others; the errors are returned together.
func writeReports(env *runEnv, specs []reportSpec, srcs []manifest.Source, res *finding.Result, opts report.Options) []string {
	var failed []string
	for _, sp := range specs {
		var out *output
		if sp.file == "" {
			out = &output{w: env.stdout}
		} else {
			flag := "--format " + sp.format + "="
			var err error
			if out, err = createOutput(sp.file, flag, srcs); err != nil {
				failed = append(failed, err.Error())
				continue
			}
		}
		o := opts
		if sp.format != "markdown" {
			o.Timelines = nil
		}
		if err := out.finish(report.Write(out.w, sp.format, res, o)); err != nil {
			where := "standard output"
			if sp.file != "" {
				where = textsafe.Quote(sp.file)
			}
			failed = append(failed, fmt.Sprintf("writing the %s report to %s: %v", sp.format, where, err))
		}
	}
	return failed
}

// writtenTo is the tally's tail when no report went to standard output:
// "sarif report written to a.sarif, markdown report written to s.md".
func writtenTo(specs []reportSpec) string {
	var parts []string
	for _, sp := range specs {
		parts = append(parts, sp.format+" report written to "+sp.file)
	}
	return strings.Join(parts, ", ")
}

// defaultTimelines is how many workloads' timelines the markdown report
// shows by default: the Action's job summary showed ten files' worth.
const defaultTimelines = 10

// reportTimelines computes the Mermaid timelines the markdown report ends
// with: those of the first n workloads that have a finding at or above
// show, in the report's order. Only the sources those findings came from
// are loaded again (a chart or kustomization is rendered again, within the
// same render budget); a workload whose timeline cannot be computed is
// left out, as the timeline command would say why.
func reportTimelines(s *settings.Settings, srcs []manifest.Source, res *finding.Result, show finding.Severity, n int) []report.Timeline {
	if n <= 0 {
		return nil
	}
	type object struct{ source, kind, namespace, name string }
	var want []object
	seen := map[object]bool{}
	for i := 0; i < res.Len() && len(want) < n; i++ {
		if res.SeverityAt(i) < show {
			continue
		}
		f := res.At(i)
		if f.Object == nil || f.Object.Kind == "" {
			continue
		}
		source := f.File
		if f.Rendered != nil {
			source = f.Rendered.Root
		}
		o := object{source, f.Object.Kind, f.Object.Namespace, f.Object.Name}
		if !seen[o] {
			seen[o] = true
			want = append(want, o)
		}
	}
	if len(want) == 0 {
		return nil
	}
	var load []manifest.Source
	for _, src := range srcs {
		if slices.ContainsFunc(want, func(o object) bool { return o.source == src.Path }) {
			load = append(load, src)
		}
	}
	items, from, _ := timelineItemsFrom(s, load)
	var out []report.Timeline
	for _, o := range want {
		for k, it := range items {
			if it.Kind != o.kind || it.Namespace != o.namespace || it.Name != o.name || load[from[k]].Path != o.source {
				continue
			}
			var buf bytes.Buffer
			if err := plot.Mermaid(&buf, []plot.Item{it}); err != nil || buf.Len() == 0 {
				break
			}
			title := it.Kind + " " + it.Name
			if it.Namespace != "" {
				title = it.Kind + " " + it.Namespace + "/" + it.Name
			}
			out = append(out, report.Timeline{Title: title, File: it.File, Line: it.Line, Mermaid: textsafe.Text(buf.String(), false)})
			break
		}
	}
	return out
}

// keptRenders keeps each render root's output after check has linted it,
// for the markdown report's timelines: they place the same workloads in
// the same files, and rendering again would cost the chart's render time
// twice (and count against the render budget twice). At most
// keptRenderBytes of rendered output is kept; a root past that is
// rendered again if a timeline needs it.
type keptRenders struct {
	mu    sync.Mutex
	open  func(manifest.Source) (*manifest.RenderedRoot, error)
	kept  map[string]*manifest.RenderedRoot
	bytes int
}

const keptRenderBytes = 64 << 20

func renderKey(src manifest.Source) string { return src.Render + "\x00" + src.Path }

// Open renders src, or hands over the output kept from its first render
// (once: the taker closes its map).
func (k *keptRenders) Open(src manifest.Source) (*manifest.RenderedRoot, error) {
	key := renderKey(src)
	k.mu.Lock()
	if r, ok := k.kept[key]; ok {
		delete(k.kept, key)
		k.bytes -= len(r.Stream)
		k.mu.Unlock()
		return r, nil
	}
	k.mu.Unlock()
	r, err := k.open(src)
	if err != nil || r == nil || r.NotRendered || r.Map == nil {
		return r, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, dup := k.kept[key]; dup || k.bytes+len(r.Stream) > keptRenderBytes {
		return r, nil
	}
	if k.kept == nil {
		k.kept = map[string]*manifest.RenderedRoot{}
	}
	k.kept[key] = r
	k.bytes += len(r.Stream)
	lent := *r
	lent.Map = lentMap{r.Map}
	return &lent, nil
}

// release closes the maps of the outputs nobody took.
func (k *keptRenders) release() {
	k.mu.Lock()
	defer k.mu.Unlock()
	for key, r := range k.kept {
		r.Map.Close()
		delete(k.kept, key)
	}
	k.bytes = 0
}

// lentMap is a source map whose files stay open when its borrower closes
// it: keptRenders closes them.
type lentMap struct{ manifest.SourceMap }

func (lentMap) Close() {}

// MoveFix is the lender's, so that a borrower that moves fixes to the
// source files (podlint fix) sees the same map.
func (m lentMap) MoveFix(x finding.Fix) (finding.Fix, error) {
	if ed, ok := m.SourceMap.(manifest.SourceEditor); ok {
		return ed.MoveFix(x)
	}
	return x, errors.New("the source map cannot move fixes")
}
