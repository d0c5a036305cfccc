// Package deps is the architecture of podlint as data: which of its
// packages may import which, which packages may import the large
// dependencies (Helm, kustomize, the editor protocol, a cluster client),
// and which packages must stay pure. deps_test.go checks the module
// against it with `go list`, in the manner of Go's own go/build/deps_test.go,
// and CONTRIBUTING.md's package table shows what each package may import.
//
// Like every package of podlint, it makes no API promise.
package deps

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Module is podlint's module path.
const Module = "github.com/podlint/podlint"

// Rules says which packages of the module may import which, in the
// notation of go/build/deps_test.go: "a, b < c, d" lets c and d import a and
// b and everything a and b may import. NONE stands for nothing. Every
// package appears once on the right of a "<": a new package has to be
// placed before its first import is allowed. Test files and the modules
// under e2e/ (each with a go.mod of its own) are outside these rules; the
// tools behind build tags (gencorpus, benchtools, gendocs, apisurface,
// observescrub) are inside.
const Rules = `
	# Leaves: what every layer shares.
	NONE
	< workload, finding, internal/textsafe, internal/version,
	  internal/shellread, internal/alloctest, internal/testbin,
	  internal/testcorpus, internal/integration, internal/deps,
	  internal/docnumbers, internal/testgit, internal/gencrd,
	  internal/sibling;

	# Reading: files in, Kubernetes objects out. safefile confines every
	# read a pull request can steer.
	NONE < internal/safefile;
	finding, workload, internal/safefile, internal/textsafe
	< manifest;

	# The model: pure, it knows no YAML and reads no file.
	workload, internal/shellread
	< timeline;

	# Rendering charts and kustomizations: the loader stage, run in a
	# confined child. It never sees the rules or the analysis. Helm's
	# engine and kustomize are render/engine's, linked only into the
	# render executable, never into podlint (Unlinked).
	manifest, internal/sibling
	< render
	< render/engine;

	# The analysis.
	manifest, timeline
	< crossobject
	< rules
	< analyzer
	< fix;

	# Output.
	finding, internal/textsafe
	< report;
	timeline
	< report/plot;
	rules
	< internal/ruledoc;

	# Organisation policies: their schema, matching and check, run as
	# a rule.
	rules, internal/textsafe
	< policy;

	# podlint observe: a cluster's Pods, events and owners in, a profile
	# out, which check reads as expectations. podlint links it,
	# podlint-render never (Unlinked). The cluster client, kubeconfig, is
	# podlint-observe's alone: podlint starts it for a live cluster.
	timeline, internal/textsafe, internal/sibling
	< internal/observe
	< internal/observe/cmd/scrub, internal/observe/kubeconfig;

	# The harness of the want tests (rules/testdata, render's charts): the
	# engine as shipped over manifests whose comments say what they
	# expect. Nothing places it below a package, so only tests import it.
	analyzer, internal/observe
	< rules/rulestest;

	# Settings: the flags of a run and its .podlint.yaml as one value
	# (what the linter runs, the scheduler, the render stage and its
	# limits, the output), with the trust split of repository
	# configuration. No command line of its own: the CLI parses flags
	# into it, the editor server calls it for each folder.
	analyzer, render, report, policy, internal/safefile
	< internal/settings;

	# The collector's pacing, started by podlint's entry only.
	NONE < internal/gctune;

	# The faces.
	fix, render, report/plot, internal/settings
	< internal/lsp;
	internal/lsp, internal/ruledoc, internal/version, internal/gctune,
	  internal/settings, render, report, policy
	< internal/cli;
	internal/cli, internal/observe
	< internal/observecli
	< cmd/podlint;
	internal/cli, render/engine
	< cmd/podlint-render;
	internal/observe/kubeconfig
	< cmd/podlint-observe;

	# The generated files: the docs follow from the code and these rules.
	internal/cli, internal/deps
	< internal/gendocs
	< internal/gendocs/cmd;

	# Benchmarks and their tools.
	manifest, internal/testcorpus
	< bench
	< bench/gencorpus, bench/perfdoc;
	NONE < bench/floor;
	internal/docnumbers < bench/docnumbers;

	# The count of exported identifiers (issue 35): reads source, imports
	# nothing of podlint's.
	NONE < internal/apisurface < internal/apisurface/cmd;
`

// External names the dependencies that only some packages may import
// directly, by module path prefix: the packages of podlint allowed to. A
// dependency not listed may be imported anywhere the rules above allow.
var External = map[string][]string{
	// Helm and kustomize are the render stage's, which runs them in a
	// confined child process. What renders (Helm's chart types, loader,
	// engine, chartutil, kustomize's API) is render/engine's alone; render
	// keeps the parsing of --set values and kustomize's file system
	// interface, which are small.
	"helm.sh/helm/":                   {"render", "render/engine"},
	"helm.sh/helm/v3/pkg/chart":       {"render/engine"}, // and chartutil, chart/loader
	"helm.sh/helm/v3/pkg/engine":      {"render/engine"},
	"helm.sh/helm/v3/pkg/ignore":      {"render/engine"},
	"helm.sh/helm/v3/pkg/releaseutil": {"render/engine"},
	"sigs.k8s.io/kustomize/":          {"render", "render/engine"},
	"sigs.k8s.io/kustomize/api/":      {"render/engine"},
	"github.com/landlock-lsm/":        {"render"},
	// A cluster client is for reading a live cluster, which only
	// podlint-observe does.
	"k8s.io/client-go/": {"internal/observe/kubeconfig"},
	// The editor protocol is the editor server's.
	"github.com/sourcegraph/jsonrpc2": {"internal/lsp"},
	// The command line's.
	"github.com/urfave/cli/": {"internal/cli", "internal/gendocs"},
	// SARIF is a report format.
	"github.com/owenrumney/go-sarif/": {"report"},
	// Shell scripts are read in one place.
	"mvdan.cc/sh/": {"internal/shellread"},
}

// Unlinked names, for each command of the module, the packages (by
// import path prefix) that must not be linked into it at all, directly or
// through any dependency. Go runs the init of every linked package at
// start-up: chartutil links santhosh-tekuri/jsonschema, which compiles its
// meta-schemas there, and client-go's scheme, which registers every API
// group, and Helm's chart types Masterminds/semver, which compiles its
// regular expressions; with kustomize's API they were most of the CPU time
// of podlint on one small file (docs/performance.md, "Start-up"). podlint
// renders with cmd/podlint-render instead.
var Unlinked = map[string][]string{
	"cmd/podlint": {
		"helm.sh/helm/v3/pkg/chart", "helm.sh/helm/v3/pkg/chartutil", "helm.sh/helm/v3/pkg/engine",
		"helm.sh/helm/v3/pkg/releaseutil", "github.com/Masterminds/semver/", "github.com/santhosh-tekuri/jsonschema/",
		"sigs.k8s.io/kustomize/api/", "render/engine",
		// podlint observe reads a live cluster with podlint-observe:
		// client-go's kubeconfig loader, REST transport and credential
		// plugins linked into podlint were 23 more package inits and
		// 1.24x kube-score's CPU time on one small file instead of 1.05x
		// (docs/performance.md, "Start-up"). What came with them, not
		// otherwise linked: pflag and go-spew.
		"k8s.io/client-go/", "internal/observe/kubeconfig", "github.com/spf13/pflag", "github.com/davecgh/go-spew/",
	},
	// podlint observe and its cluster client are podlint's; the render
	// child never links them.
	"cmd/podlint-render": {"internal/observe", "internal/observecli"},
}

// Pure lists the packages that do no I/O of their own: the model, the
// rules and what they share. They may not import the standard library's
// packages that reach the system (Impure).
var Pure = []string{
	"workload", "finding", "timeline", "rules", "crossobject", "fix",
	"report/plot", "internal/shellread", "internal/textsafe", "policy",
}

// Impure lists the standard packages a pure package may not import.
var Impure = []string{
	"os", "os/exec", "os/signal", "os/user", "io/fs", "io/ioutil", "net",
	"net/http", "syscall", "unsafe", "plugin", "runtime/cgo",
}

// Graph maps each package of the module (path relative to Module) to the
// packages it imports directly: those of the module relative, others as
// they are.
type Graph map[string][]string

// Allowed parses Rules: each package of the module, relative to Module,
// to the set of packages of the module it may import.
func Allowed(rules string) (map[string]map[string]bool, error) {
	allowed := map[string]map[string]bool{}
	for _, stmt := range strings.Split(stripComments(rules), ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		var below []string // everything the previous tiers may import, and they
		for i, tier := range strings.Split(stmt, "<") {
			names := fields(tier)
			if len(names) == 0 {
				return nil, fmt.Errorf("deps rules: empty list in %q", strings.TrimSpace(stmt))
			}
			if i > 0 {
				for _, n := range names {
					if n == "NONE" {
						return nil, fmt.Errorf("deps rules: NONE on the right of < in %q", strings.TrimSpace(stmt))
					}
					if _, dup := allowed[n]; dup {
						return nil, fmt.Errorf("deps rules: %s is placed twice", n)
					}
					set := map[string]bool{}
					for _, b := range below {
						set[b] = true
					}
					allowed[n] = set
				}
			}
			for _, n := range names {
				if n == "NONE" {
					continue
				}
				set, ok := allowed[n]
				if !ok {
					return nil, fmt.Errorf("deps rules: %s is used before it is placed", n)
				}
				below = append(below, n)
				for p := range set {
					below = append(below, p)
				}
			}
		}
	}
	return allowed, nil
}

// Violation is one import the rules do not allow.
type Violation struct {
	From, To, Why string
}

func (v Violation) String() string {
	if v.To == "" {
		return fmt.Sprintf("%s: %s", v.From, v.Why)
	}
	return fmt.Sprintf("%s imports %s: %s", v.From, v.To, v.Why)
}

// Check lists every import of g that the rules, External and Pure do not
// allow, sorted.
func Check(g Graph, allowed map[string]map[string]bool) []Violation {
	var out []Violation
	for from, imports := range g {
		set, placed := allowed[from]
		if !placed {
			out = append(out, Violation{from, "", "the package is not placed in deps.Rules; add it where it belongs"})
			continue
		}
		pure := slices.Contains(Pure, from)
		for _, to := range imports {
			switch {
			case isOwn(to):
				if !set[to] {
					out = append(out, Violation{from, to, "not allowed by deps.Rules"})
				}
			case pure && slices.Contains(Impure, to):
				out = append(out, Violation{from, to, "a pure package (deps.Pure) does no I/O of its own"})
			default:
				for prefix, who := range External {
					if strings.HasPrefix(to, prefix) && !slices.Contains(who, from) {
						out = append(out, Violation{from, to, fmt.Sprintf("only %s may import %s (deps.External)", orNobody(who), prefix)})
					}
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].From != out[j].From {
			return out[i].From < out[j].From
		}
		return out[i].To < out[j].To
	})
	return out
}

// isOwn reports whether an import path, as Graph holds it, is a package of
// the module: those are relative, and no importable standard package or
// other module's path begins with one of podlint's top-level folders.
func isOwn(path string) bool {
	top, _, _ := strings.Cut(path, "/")
	switch top {
	case "analyzer", "bench", "cmd", "crossobject", "finding", "fix", "internal", "manifest",
		"render", "report", "rules", "timeline", "workload":
		return true
	}
	return false
}

func orNobody(who []string) string {
	if len(who) == 0 {
		return "no package of podlint"
	}
	return strings.Join(who, ", ")
}

func stripComments(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		line, _, _ = strings.Cut(line, "#")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

func fields(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// CheckUnlinked lists the packages of linked (every package linked into
// the command cmd, as `go list -deps` gives them, the module's relative)
// that Unlinked forbids it.
func CheckUnlinked(cmd string, linked []string) []Violation {
	var out []Violation
	for _, p := range linked {
		for _, prefix := range Unlinked[cmd] {
			if p == prefix || strings.HasPrefix(p, prefix) && (strings.HasSuffix(prefix, "/") || strings.HasPrefix(p[len(prefix):], "/")) {
				out = append(out, Violation{cmd, p, fmt.Sprintf("links %s, which deps.Unlinked keeps out of it (its package inits cost every run's start-up)", prefix)})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].To < out[j].To })
	return out
}
