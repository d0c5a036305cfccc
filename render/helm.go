package render

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/safefile"
	"github.com/podlint/podlint/internal/textsafe"
	"github.com/podlint/podlint/manifest"
	"helm.sh/helm/v3/pkg/strvals"
	sigsyaml "sigs.k8s.io/yaml"
)

// HelmOptions are what `helm template` takes on its command line.
type HelmOptions struct {
	ReleaseName string // default "release-name", as helm template
	Namespace   string // default "default"
	// ConfigValues are values files named in a configuration, which may
	// come with the pull request being checked: they are read, before
	// Values, only inside ConfigRoot, the repository holding the
	// configuration ("" is the chart's Root).
	ConfigValues []string
	ConfigRoot   string
	Values       []string // values files named by the user, read as given; later ones win
	Set          []string // k=v, after the values files
	// KubeVersion is .Capabilities.KubeVersion, "1.30" or "v1.30.0".
	KubeVersion string
	// Root is the repository root every file of the chart must be in
	// (safefile.RepoRoot of the path given); "" is the chart's own.
	Root string
}

// NotTrackedProblem is the problem of a chart or kustomization whose own
// file is outside the read set: a new chart nobody has added to git yet.
func NotTrackedProblem(file, what string, err error) Problem {
	head := fmt.Sprintf("this %s is not tracked by git, so it was not rendered", what)
	if errors.Is(err, safefile.ErrNoIndex) {
		head = fmt.Sprintf("the repository's git index cannot be read, so this %s was not rendered", what)
	}
	return NewProblem(file, 1, 1, head, "",
		fmt.Sprintf("podlint renders only the files git tracks, so that a pull request's %s cannot read what the CI job keeps in its checkout "+
			"(the token in .git/config, credential files an earlier step wrote). %s Run git add on the %s (git add -N is enough), "+
			"or name untracked files with --read-untracked PATTERN.", what, finding.Sentence(unwrap(err).Error()), what))
}

// Problem is a render failure with its position in a source file.
type Problem = manifest.RenderProblem

// headlineMax is the longest headline a render problem gets: one line of
// a terminal next to its position and rule ID.
const headlineMax = 100

// NewProblem builds a problem from a headline naming what failed, the
// underlying error's text (may be empty) and a detail. The error joins the
// headline when both fit one short sentence; otherwise it opens the detail.
func NewProblem(file string, line, col int, head, cause, detail string) Problem {
	p := Problem{File: file, Line: line, Column: col, Message: head}
	cause = strings.TrimSpace(cause)
	if cause != "" {
		if h := head + ": " + cause; utf8.RuneCountInString(h) <= headlineMax && !strings.ContainsAny(cause, ";\n") && !strings.HasSuffix(cause, ".") {
			p.Message = h
		} else {
			detail = strings.TrimSpace(finding.Sentence(cause) + " " + detail)
		}
	}
	p.Detail = detail
	return p
}

// Output is one root's output: documents in the order the tool prints
// them, each with the file it came from.
type Output struct {
	Docs     []Doc
	Problems []Problem
	// values files in precedence order (chart values.yaml first), as
	// read for rendering, for related locations.
	valuesFiles []valuesFile
	// notRendered: the run's render budget did not render the root
	// (Budget); Problems says why.
	notRendered bool
}

type valuesFile struct {
	path string
	data []byte
}

// Doc is one rendered document.
type Doc struct {
	// Source is the file that produced it: the chart template (a path on
	// disk) or the kustomize resource file.
	Source string
	// Name is how the tool names it: the template name
	// ("podinfo/templates/deployment.yaml") for Helm.
	Name string
	YAML string
	// Template is the template's text, for Helm documents.
	Template []byte
	// Kustomize documents: the patches that can have set fields of it.
	origin *kOrigin
}

var yamlLine = lazyRegexp(`line (\d+)`)

// YAMLErrorLine is the line a YAML parser's error names, 1 when none.
func YAMLErrorLine(err error) int {
	if m := yamlLine().FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return max(n, 1)
	}
	return 1
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func unwrap(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// RenderChart renders the chart in dir as `helm template` does, without
// ever touching the network. Problems are positioned in the chart's files;
// a chart with problems still renders as much as it can. It renders with
// the engine this process linked (Engine.Chart); in podlint, which links
// none, it only says so.
func RenderChart(dir string, opt HelmOptions) *Output {
	if linked == nil {
		return &Output{Problems: []Problem{notLinkedProblem(filepath.Join(dir, "Chart.yaml"))}}
	}
	return linked.Chart(dir, opt)
}

// CheckCommandLineValues reads the values files and parses the --set
// values of the command line as every chart's render will, so that a
// mistake in them is one usage error before anything renders, not a
// finding on every chart rendered without them. (Values files a
// configuration names come from the repository and stay findings of the
// chart they belong to.)
func CheckCommandLineValues(files, set []string) error {
	for _, f := range files {
		data, tooBig, err := manifest.ReadSource(f, MaxSourceFile)
		if err == nil && tooBig {
			err = fmt.Errorf("larger than %d bytes", MaxSourceFile)
		}
		if err != nil { // ReadSource's error starts with the file's name
			return fmt.Errorf("--values %s", textsafe.Escape(Reason(err).Error()))
		}
		if err := sigsyaml.Unmarshal(data, &map[string]any{}); err != nil {
			return fmt.Errorf("--values %s:%d: not a YAML mapping of chart values: %s", textsafe.Escape(f), YAMLErrorLine(err), textsafe.Escape(err.Error()))
		}
	}
	vals := map[string]any{}
	for _, s := range set {
		if err := strvals.ParseInto(s, vals); err != nil {
			return fmt.Errorf("--set %s: %s; write KEY=VALUE, e.g. --set replicaCount=2 or --set image.tag=1.2.3", textsafe.Quote(s), textsafe.Escape(err.Error()))
		}
	}
	return nil
}
