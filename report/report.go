// Package report renders a finding.Result in the formats podlint prints:
// text for people, json for scripts, sarif for code scanning, github
// workflow annotations, junit for CI test reports, codeclimate for GitLab
// Code Quality and markdown for job summaries and review comments.
//
// Every writer is a pure function of the result and the options: no clock,
// no environment (apart from the working directory, against which relative
// paths are resolved for the formats that relativize them to SrcRoot) and
// no map iteration order leaks into the output, so golden files and CI
// diffs stay stable.
//
// It makes no API promise: it is podlint's own, serving its commands, and
// may change in any commit. Use the podlint command, not this package.
package report

import (
	"bufio"
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/textsafe"
)

// Options tune the writers. The zero value is usable.
type Options struct {
	// Color turns on ANSI colors in the text format. The CLI decides
	// (--color, NO_COLOR, terminal detection); the writer never guesses.
	Color bool
	// SrcRoot is the absolute directory that sarif, codeclimate, junit and
	// github paths are made relative to, usually the working directory or
	// the repository root. Empty means the working directory.
	SrcRoot string
	// ToolVersion is reported as the SARIF driver version.
	ToolVersion string
	// Category names the analysis in SARIF (runs[0].automationDetails.id),
	// so that code scanning keeps the results of runs with different
	// categories (a matrix over environments) apart instead of letting
	// each upload replace the last. Empty means no automationDetails.
	Category string
	// Rules is the whole enabled catalog; SARIF lists every rule so code
	// scanning can show rule help even for rules without results.
	Rules []finding.RuleInfo
	// Width is the text format's line width: details are wrapped to it.
	// Zero means 100 columns, the width used when not writing to a
	// terminal.
	Width int
	// Brief prints only headlines in the text format: one line per finding.
	Brief bool
	// Show is the lowest severity that is printed, in every format (zero:
	// every finding). The text format's per-rule summary still counts the
	// findings that are not shown.
	Show finding.Severity
	// FailOn is the lowest severity that fails the run (--fail-on); JUnit
	// and Code Climate report only those findings as failures. Zero means
	// error; Never means no finding fails.
	FailOn finding.Severity
	// Errors are the run's usage, configuration and I/O errors (what makes
	// podlint exit 2). SARIF marks such a run as failed and lists them as
	// tool execution notifications.
	Errors []string
	// Timelines end the markdown report: the Mermaid charts of workloads
	// with findings (check --timelines), each in a collapsed block. The
	// other formats ignore them.
	Timelines []Timeline
}

// Timeline is one workload's Mermaid chart for the markdown report.
type Timeline struct {
	Title   string // "Deployment prod/web"
	File    string // where the workload is, as findings name files
	Line    int
	Mermaid string // one or more ```mermaid blocks, plain text already
}

// Never is the FailOn value of --fail-on never: no finding fails the run.
const Never = finding.Error + 1

// failOn returns the effective --fail-on level.
func (o *Options) failOn() finding.Severity {
	if o.FailOn == finding.Off {
		return finding.Error
	}
	return o.FailOn
}

// fails reports whether f is at or above --fail-on.
func (o *Options) fails(f *finding.Finding) bool { return f.Severity >= o.failOn() }

// Formats lists the names Write accepts, in the order help texts show them.
var Formats = []string{"text", "json", "sarif", "github", "junit", "codeclimate", "markdown"}

// sink is what the streaming writers write to.
type sink interface {
	io.Writer
	io.StringWriter
	io.ByteWriter
}

// Write renders res in format to w, its findings in the order they have:
// Less order, in which the engine sorts a run's findings once
// (analyzer.Run; finding.Result.Sorted). Write sorts nothing; it refuses a
// result out of that order rather than print it in an order that may
// differ between runs.
//
// The text, json, github and codeclimate formats are written as they are
// rendered, one finding at a time, through a buffer: the report is never
// held in memory twice over (a run over a large corpus printed tens of
// megabytes). sarif, junit and markdown need every finding before their
// first byte (counts, caps and rule lists come first) and are rendered
// into memory. Either way a failing writer makes Write return an error;
// the CLI writes -o files to a temporary file renamed only on success, so
// a failed run never leaves half a report at the target.
func Write(w io.Writer, format string, res *finding.Result, opts Options) error {
	if res == nil {
		res = &finding.Result{}
	}
	if !res.Sorted() {
		return errors.New("the findings are not in report order (finding.Less), which the engine gives them: a result built by hand must be sorted")
	}
	sorted := *res
	if sorted.Packed.Len() > 0 && len(sorted.Findings) > 0 {
		// The writers see one of the two: both is values.
		sorted.Findings, sorted.Packed = sorted.List(), nil
	}

	all := sorted
	if opts.Show > finding.Info {
		kept := sorted.Findings[:0:0]
		for _, f := range sorted.Findings {
			if f.Severity >= opts.Show {
				kept = append(kept, f)
			}
		}
		sorted.Findings = kept
		if sorted.Packed != nil {
			sorted.Packed = sorted.Packed.KeepSeverity(opts.Show)
		}
	}
	// These three formats are built in memory from every finding anyway.
	unpacked := func(r *finding.Result) *finding.Result {
		if r.Packed.Len() == 0 {
			return r
		}
		u := *r
		u.Findings, u.Packed = r.List(), nil
		return &u
	}

	bw := bufio.NewWriterSize(w, 64<<10)
	var buf bytes.Buffer
	var err error
	switch format {
	case "text":
		err = writeText(bw, &sorted, &all, opts)
	case "json":
		err = writeJSON(bw, &sorted, &all)
	case "sarif":
		err = writeSARIF(bw, &sorted, opts)
	case "github":
		err = writeGitHub(bw, &sorted, opts)
	case "junit":
		err = writeJUnit(&buf, unpacked(&sorted), opts)
	case "codeclimate":
		err = writeCodeClimate(bw, &sorted, opts)
	case "markdown":
		err = writeMarkdown(&buf, unpacked(&sorted), unpacked(&all), opts)
	default:
		return fmt.Errorf("unknown output format %q (want %s)", format, strings.Join(Formats, ", "))
	}
	if err != nil {
		return fmt.Errorf("rendering %s output: %w", format, err)
	}
	if buf.Len() > 0 {
		if _, err := bw.Write(buf.Bytes()); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// stdinName is the path machine-readable formats use for findings read from
// standard input without --stdin-filename. It is relative and non-empty so
// that SARIF consumers (GitHub requires a relative URI) and GitLab accept it.
const stdinName = "stdin"

// isStdin reports whether a finding's file is standard input as the CLI
// names it.
func isStdin(file string) bool {
	return file == "" || file == "-" || file == "<stdin>"
}

// displayPath is the path the text and json formats print: what the user
// typed, so it can be pasted back into an editor, except that standard
// input reads "<stdin>" rather than "-" (as in actionlint and go vet).
func displayPath(file string) string {
	if isStdin(file) {
		return "<stdin>"
	}
	return file
}

// relPath turns a finding's file into a forward-slash path relative to
// root, which is what GitHub, GitLab and CI test reports want.
//
//   - standard input becomes "stdin";
//   - relative paths are relative to the working directory (they are what
//     the user typed), so they are resolved against it before being made
//     relative to root; when root is the working directory they come out
//     unchanged apart from cleaning;
//   - a file outside root keeps its "../" segments: the path stays
//     relative and honest, and a consumer that cannot map it shows the
//     finding without a source link rather than pointing at a wrong file;
//   - if no relative path exists at all (another Windows volume), the base
//     name is used so the URI is still relative and non-empty.
func relPath(root, file string) string {
	if isStdin(file) {
		return stdinName
	}
	var wd string
	if root == "" || !filepath.IsAbs(root) || !filepath.IsAbs(file) {
		wd, _ = os.Getwd() // "" when unreadable: see relPathIn
	}
	return relPathIn(root, file, wd, filepath.Separator)
}

// relPathIn is relPath's arithmetic for paths written with the separator
// sep ('/' on Unix, a backslash on Windows, where a path may also start with a
// drive letter "C:" or a UNC share \\server\share), so that Windows paths
// can be tested on any system. wd is the absolute working directory, or
// "" when it is unknown. The result always uses forward slashes, as URIs
// and CI reports need; Windows compares names case-insensitively, as its
// file systems do.
func relPathIn(root, file, wd string, sep byte) string {
	if root == "" {
		root = wd
	}
	if root == "" {
		if _, rest := splitVolume(file, sep); !isRooted(rest) {
			return path.Clean(rest)
		} else {
			return path.Base(rest)
		}
	}
	rootVol, rootRest := absPath(root, wd, sep)
	fileVol, fileRest := absPath(file, wd, sep)
	same := func(a, b string) bool { return a == b || sep == '\\' && strings.EqualFold(a, b) }
	if rootVol == "" && !isRooted(rootRest) || fileVol == "" && !isRooted(fileRest) || !same(rootVol, fileVol) {
		// No common base: a relative path with an unknown working
		// directory, or two Windows volumes.
		return path.Base(fileRest)
	}
	rootElems, fileElems := pathElems(rootRest), pathElems(fileRest)
	common := 0
	for common < len(rootElems) && common < len(fileElems) && same(rootElems[common], fileElems[common]) {
		common++
	}
	var out []string
	for range rootElems[common:] {
		out = append(out, "..")
	}
	out = append(out, fileElems[common:]...)
	if len(out) == 0 {
		return "."
	}
	return strings.Join(out, "/")
}

// splitVolume returns p's Windows volume ("C:" upper-cased, or
// "//server/share") and the rest with forward slashes. With sep '/' there
// is never a volume.
func splitVolume(p string, sep byte) (vol, rest string) {
	if sep != '\\' {
		return "", p
	}
	p = strings.ReplaceAll(p, `\`, "/")
	switch {
	case len(p) >= 2 && p[1] == ':' && ('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z'):
		return strings.ToUpper(p[:2]), p[2:]
	case strings.HasPrefix(p, "//"):
		parts := strings.SplitN(p[2:], "/", 3)
		if len(parts) >= 2 && parts[0] != "" && parts[1] != "" {
			rest = "/"
			if len(parts) == 3 {
				rest += parts[2]
			}
			return "//" + parts[0] + "/" + parts[1], rest
		}
	}
	return "", p
}

// absPath resolves p against the working directory wd, returning its
// volume and cleaned, rooted rest. A path that cannot be resolved (wd
// unknown) comes back unrooted.
func absPath(p, wd string, sep byte) (vol, rest string) {
	vol, rest = splitVolume(p, sep)
	if isRooted(rest) {
		if vol == "" { // \dir\file on Windows: the working directory's drive
			vol, _ = splitVolume(wd, sep)
		}
		return vol, path.Clean(rest)
	}
	wdVol, wdRest := splitVolume(wd, sep)
	if wd == "" || vol != "" && !strings.EqualFold(vol, wdVol) {
		// "D:file" is relative to D:'s own current directory, which a
		// process on C: cannot know.
		return vol, path.Clean(rest)
	}
	return wdVol, path.Join(wdRest, rest)
}

func isRooted(p string) bool { return strings.HasPrefix(p, "/") }

// pathElems splits a cleaned rooted path into its names ("/" has none).
func pathElems(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// uriEscape percent-encodes a relative slash path for a SARIF
// artifactLocation.uri. Everything except RFC 3986 unreserved characters
// and "/" is escaped (bytes, so UTF-8 becomes %C3%BC): net/url's PathEscape
// would leave ":" alone, which turns "a:b.yaml" into a URI with scheme "a".
func uriEscape(p string) string {
	const hexdigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '.', c == '_', c == '~', c == '/':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hexdigits[c>>4])
			b.WriteByte(hexdigits[c&15])
		}
	}
	return b.String()
}

// fingerprinter derives stable identities for findings. The identity covers
// the rule, the file (relative, so checkouts in different directories
// agree), the object's kind, namespace and name, the container and the
// field path the rule reported at, and deliberately neither the line nor
// the message: adding a field above a finding, or a podlint release that
// rewords a message or refines a number, must not close one alert and open
// another in code scanning or GitLab. Identical findings in one run (the
// loader's findings have no field path) are told apart by an occurrence
// counter in output order, which GitLab needs (it drops issues with
// duplicate fingerprints) and GitHub expects.
type fingerprinter struct {
	newHash func() hash.Hash
	seen    map[string]int
}

func newFingerprinter(h func() hash.Hash) *fingerprinter {
	return &fingerprinter{newHash: h, seen: map[string]int{}}
}

func (fp *fingerprinter) of(f *finding.Finding, rel string) string {
	var obj finding.ObjectRef
	if f.Object != nil {
		obj = *f.Object
	}
	// NUL separators keep ("a b", "c") and ("a", "b c") apart. apiVersion
	// is left out so that migrating apps/v1beta2 → apps/v1 keeps alerts.
	key := strings.Join([]string{f.RuleID, rel, obj.Kind, obj.Namespace, obj.Name, f.Container, f.Path}, "\x00")
	fp.seen[key]++
	h := fp.newHash()
	io.WriteString(h, key)
	io.WriteString(h, "\x00"+strconv.Itoa(fp.seen[key]))
	return hex.EncodeToString(h.Sum(nil))
}

var (
	sha256Hash = sha256.New
	md5Hash    = md5.New
)

// ruleIndex maps rule IDs to catalog entries for the formats that add rule
// titles or help links to a finding.
func ruleIndex(rules []finding.RuleInfo) map[string]*finding.RuleInfo {
	m := make(map[string]*finding.RuleInfo, len(rules))
	for i := range rules {
		m[rules[i].ID] = &rules[i]
	}
	return m
}

// SummaryLine is the tally of a run, for a command that writes its report
// to a file and still owes the terminal a line.
func SummaryLine(res *finding.Result) string { return summaryLine(res) }

// summaryLine is the one-line tally shared by text and github output:
// "2 files, 5 objects (3 workloads): 1 error, 2 warnings, 0 infos". It
// names the charts and kustomizations rendered while they fit on the
// line; past renderedInline characters it counts them instead, and the
// text and markdown reports list them one a line above it (renderedList).
func summaryLine(res *finding.Result) string {
	e, w, i := res.Counts()
	s := res.Summary
	head := fmt.Sprintf("%s, %s (%s)", plural(s.Files, "file", "files"),
		plural(s.Objects, "object", "objects"), plural(s.Workloads, "workload", "workloads"))
	if s.Skipped > 0 {
		head += ", " + plural(s.Skipped, "JSON file", "JSON files") + " skipped (not Kubernetes objects)"
	}
	if s.ConfigFile != "" {
		head += ", config " + textsafe.Escape(s.ConfigFile)
	}
	tail := ""
	if len(s.Rendered) > 0 {
		if list := renderedList(s.Rendered); list != nil {
			tail = "; rendered " + plural(len(list), "chart or kustomization", "charts and kustomizations")
		} else {
			rendered := make([]string, len(s.Rendered))
			for i, r := range s.Rendered {
				rendered[i] = textsafe.Escape(r)
			}
			tail = "; rendered " + strings.Join(rendered, "; ")
		}
	}
	if len(s.NotRendered) > 0 {
		if list := renderedList(s.NotRendered); list != nil {
			tail += "; " + plural(len(list), "chart or kustomization", "charts and kustomizations") + " not rendered, the render budget being spent"
		} else {
			skipped := make([]string, len(s.NotRendered))
			for i, r := range s.NotRendered {
				skipped[i] = textsafe.Escape(r)
			}
			tail += "; not rendered, the render budget being spent: " + strings.Join(skipped, "; ")
		}
	}
	tail += suppressedTally(s.Suppressed)
	if e+w+i == 0 {
		return head + ": no findings" + tail
	}
	return fmt.Sprintf("%s: %s, %s, %s%s", head, plural(e, "error", "errors"),
		plural(w, "warning", "warnings"), plural(i, "info", "infos"), tail)
}

// suppressedTally counts the suppressed findings of the summary by rule,
// "; 2 policy findings suppressed", or "" for none.
func suppressedTally(list []finding.Suppressed) string {
	var names []string
	count := map[string]int{}
	for _, s := range list {
		if count[s.RuleName] == 0 {
			names = append(names, s.RuleName)
		}
		count[s.RuleName]++
	}
	out := ""
	for _, n := range names {
		out += "; " + plural(count[n], n+" finding", n+" findings") + " suppressed"
	}
	return out
}

// renderedInline is how long, in bytes, the names of the rendered roots
// may be and still be named on the tally line.
const renderedInline = 100

// renderedList returns the roots (rendered, or not rendered), escaped,
// when their names are too long together to go on the tally line, else
// nil.
func renderedList(rendered []string) []string {
	n := 0
	for _, r := range rendered {
		n += len(r) + len("; ")
	}
	if n <= renderedInline {
		return nil
	}
	out := make([]string, len(rendered))
	for i, r := range rendered {
		out[i] = textsafe.Escape(r)
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// position formats path:line:col, leaving out what a finding does not have
// so a file-level finding reads "path:" rather than "path:0:0:".
//
// The file name is escaped (textsafe.Escape): a name is chosen by whoever
// wrote the pull request, and a newline or an escape sequence in it must
// not reach a terminal or a CI log raw.
func position(file string, line, col int) string {
	file = textsafe.Escape(file)
	if line < 1 {
		return file
	}
	if col < 1 {
		return fmt.Sprintf("%s:%d", file, line)
	}
	return fmt.Sprintf("%s:%d:%d", file, line, col)
}

// clampPos returns line and column as at least 1: SARIF and GitHub reject
// 0, and a finding without a position is best shown at the top of its file.
func clampPos(line, col int) (int, int) {
	return max(line, 1), max(col, 1)
}

// ruleCount is one row of the per-rule summary.
type ruleCount struct {
	ID, Name string
	Severity finding.Severity
	Count    int
	Files    int
}

// ruleCounts tallies findings per rule and severity, most severe first,
// then by count (largest first), then by rule ID: the errors open the
// summary however many infos there are.
func ruleCounts(res *finding.Result) []ruleCount {
	type key struct {
		id  string
		sev finding.Severity
	}
	rows := map[key]*ruleCount{}
	files := map[key]map[string]bool{}
	var order []key
	for i := range res.Len() {
		v := res.At(i)
		f := &v
		k := key{f.RuleID, f.Severity}
		r := rows[k]
		if r == nil {
			r = &ruleCount{ID: f.RuleID, Name: f.RuleName, Severity: f.Severity}
			rows[k], files[k] = r, map[string]bool{}
			order = append(order, k)
		}
		r.Count++
		files[k][f.File] = true
	}
	out := make([]ruleCount, 0, len(order))
	for _, k := range order {
		r := rows[k]
		r.Files = len(files[k])
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.ID < b.ID
	})
	return out
}
