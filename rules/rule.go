// Package rules holds podlint's checks. A rule is a value: a stable ID, a
// name, a title, Markdown docs (rules/doc/<ID>.md), a default severity and
// one Check function that reads a workload's normalized Pod template (and
// its timeline) and reports at field paths. All lists every rule, sorted by
// ID.
//
// Labels such as F-7, R-3 or E-9 in the docs and comments name items of
// docs/semantics.md, podlint's reference for what the kubelet, the API
// server and the controllers do (F-7 is docs/semantics.md#f-7).
//
// It makes no API promise: it is podlint's own, serving its commands, and
// may change in any commit. Use the podlint command, not this package.
package rules

import (
	"embed"
	"fmt"
	"strings"

	"github.com/podlint/podlint/crossobject"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
	corev1 "k8s.io/api/core/v1"
)

// Rule is one check.
type Rule struct {
	ID    string // PLnnn, stable forever
	Name  string // kebab-case, stable forever
	Title string // lower-case one-liner
	// The rule's documentation is rules/doc/<ID>.md, see Doc.
	Severity finding.Severity // when enabled
	// DefaultOff rules run only when enabled with --enable or the config.
	DefaultOff bool
	// MinVersion is the first Kubernetes minor the rule applies to; zero
	// means every version.
	MinVersion timeline.Version
	// Check is nil for the input rules, whose findings the loader and the
	// analyzer produce, and for cross-object rules.
	Check func(*Pass)
	// CrossObject is the check of a cross-object rule (PL7xx): it runs once per
	// run over the cross-object view, after every file was loaded.
	CrossObject func(*CrossObjectPass)
	// SupersededBy, on a single-object rule, says when the cross-object
	// view of the run answers the rule's question better than the one
	// object can: the engine then drops the rule's finding. The catalog
	// test checks it (TestCatalog).
	SupersededBy *Supersession
	// Fix describes the fixes the rule attaches to its findings (see
	// fix.go); nil when it offers none.
	Fix *FixDoc
	// Audited rules are those a reviewer must see suppressed: a
	// suppression of one without a reason does not suppress (the finding
	// stays, beside suppression-missing-reason), and every finding one
	// hides is listed in the run's summary (finding.Summary.Suppressed).
	// An organisation's policies are (Policy).
	Audited bool
}

// Supersession is how the cross-object view supersedes a single-object rule's
// finding on a workload.
type Supersession struct {
	// Rule is the cross-object rule that reports the problem instead, or
	// nil when the view shows that there is no problem to report.
	Rule *Rule
	// When reports whether the view supersedes a finding on workload w of
	// namespace ns (never nil) about the named container. w is nil when
	// the workload is not in the view (a second definition of the same
	// object).
	When func(v *crossobject.View, w *crossobject.Workload, ns *crossobject.Namespace, container string) bool
}

// docs holds the rules' documentation, one Markdown file per rule.
//
//go:embed doc/*.md
var docs embed.FS

// Doc is the rule's documentation, rules/doc/<ID>.md: Markdown saying what
// happens at runtime, the arithmetic and how to fix it. The failing and
// passing examples of the generated page come from rules/testdata/<ID>/. A
// rule without a file (one a test builds) has no doc.
func (r *Rule) Doc() string {
	data, err := docs.ReadFile("doc/" + r.ID + ".md")
	if err != nil {
		return ""
	}
	return string(data)
}

// Info returns what output formats need to know of the rule.
func (r *Rule) Info() finding.RuleInfo {
	info := r.Brief()
	info.Doc = r.Doc()
	return info
}

// Brief is Info without the rule's documentation, for the formats that
// print none (all but SARIF): reading the docs of every rule was a tenth
// of the start-up of a run on one small file.
func (r *Rule) Brief() finding.RuleInfo {
	return finding.RuleInfo{ID: r.ID, Name: r.Name, Title: r.Title, Severity: r.Severity,
		HelpURI: "https://github.com/podlint/podlint/blob/main/docs/rules/" + r.ID + ".md"}
}

// Diagnostic is what a rule reports: a field path and a message in two
// parts, as rustc and staticcheck write them. Message is the headline: one
// sentence of at most about 100 characters that says what goes wrong,
// without arithmetic. Detail says how it happens at runtime, with the
// numbers, and the fix.
type Diagnostic struct {
	Path      workload.Path // full field path in the document
	Message   string        // headline
	Detail    string        // mechanism, numbers, fix
	Container string        // name of the container involved, if any
	Related   []Related
	// Info reports the finding at info severity (or the rule's, if lower):
	// something outside the manifest already surfaces the problem, so it
	// is worth knowing but not worth failing a build.
	Info bool
	// Fixes are the ways to resolve the diagnostic by editing the
	// document, the default first (see fix.go).
	Fixes []Fix
	// Severity, when not Off, is the finding's severity instead of the
	// rule's: each policy of Policy states its own.
	Severity finding.Severity
}

// Related points at another field that takes part in a finding (the grace
// period that a preStop hook overruns).
type Related struct {
	Path    workload.Path
	Message string
}

// Pass is one rule's view of one workload.
type Pass struct {
	Rule     *Rule
	Object   *manifest.Object
	Workload *workload.Workload
	Spec     *corev1.PodSpec
	Version  timeline.Version
	Params   timeline.Params
	timeline func() *timeline.Timeline
	report   func(Diagnostic)
	// containers and probes are worked out on first use: the analyzer
	// runs every rule of an object on one Pass, and most rules ask.
	containers []ContainerRef
	probes     []ProbeRef
}

// NewPass is used by the analyzer and by tests; tl computes the timeline on
// first use.
func NewPass(r *Rule, o *manifest.Object, v timeline.Version, p timeline.Params, tl func() *timeline.Timeline, report func(Diagnostic)) *Pass {
	return &Pass{Rule: r, Object: o, Workload: o.Workload, Spec: o.Workload.Spec, Version: v, Params: p, timeline: tl, report: report}
}

// Timeline returns the workload's lifecycle model, computed once per object.
func (p *Pass) Timeline() *timeline.Timeline { return p.timeline() }

// Report records a diagnostic.
func (p *Pass) Report(d Diagnostic) { p.report(d) }

// Reportf records a diagnostic at path with only a headline.
func (p *Pass) Reportf(path workload.Path, format string, args ...any) {
	p.report(Diagnostic{Path: path, Message: fmt.Sprintf(format, args...)})
}

// SpecPath joins a path relative to the Pod spec.
func (p *Pass) SpecPath(rel string) workload.Path { return p.Workload.SpecPath.Join(rel) }

// The kinds of container of ContainerRef.Type, the timeline's
// (timeline.ContainerType); messages name them with Noun.
const (
	Regular = timeline.Regular
	Init    = timeline.Init
	Sidecar = timeline.Sidecar // an init container with restartPolicy: Always
)

// ContainerRef is a container with its kind and path.
type ContainerRef struct {
	C     *corev1.Container
	Type  timeline.ContainerType
	Index int           // in containers or initContainers, from 0
	Path  workload.Path // full path of the container item
}

// Name is how messages name the container: format it with %q, which
// prints `"api"`, or `#2 (busybox:1)` for a container without a name.
func (c ContainerRef) Name() containerName {
	return containerName{Name: c.C.Name, Image: c.C.Image, Index: c.Index}
}

// timelineName is how messages name a container of the timeline (see
// ContainerRef.Name).
func (p *Pass) timelineName(c *timeline.Container) containerName {
	list := p.Spec.Containers
	if c.Type != timeline.Regular {
		list = p.Spec.InitContainers
	}
	n := containerName{Name: c.Name, Index: c.Index}
	if c.Index >= 0 && c.Index < len(list) {
		n.Image = list[c.Index].Image
	}
	return n
}

// Field returns the full path of a field of the container.
func (c ContainerRef) Field(rel string) workload.Path { return c.Path.Join(rel) }

// Containers lists init containers (and sidecars) in order, then regular ones.
// The slice is shared by the rules of the object: read it, do not change it.
func (p *Pass) Containers() []ContainerRef {
	if p.containers == nil {
		p.containers = p.listContainers()
	}
	return p.containers[:len(p.containers):len(p.containers)]
}

func (p *Pass) listContainers() []ContainerRef {
	out := make([]ContainerRef, 0, len(p.Spec.InitContainers)+len(p.Spec.Containers))
	for i := range p.Spec.InitContainers {
		c := &p.Spec.InitContainers[i]
		t := Init
		if workload.IsSidecar(c) {
			t = Sidecar
		}
		out = append(out, ContainerRef{C: c, Type: t, Index: i, Path: p.SpecPath("initContainers").Index(i)})
	}
	for i := range p.Spec.Containers {
		out = append(out, ContainerRef{C: &p.Spec.Containers[i], Type: Regular, Index: i, Path: p.SpecPath("containers").Index(i)})
	}
	return out
}

// RestartPolicy is the Pod's restart policy after defaulting.
func (p *Pass) RestartPolicy() corev1.RestartPolicy {
	if p.Spec.RestartPolicy == "" {
		return corev1.RestartPolicyAlways
	}
	return p.Spec.RestartPolicy
}

// IsLongRunning reports whether the workload is managed by a controller that
// keeps its Pods running (Deployment, StatefulSet, DaemonSet, ReplicaSet,
// ReplicationController, or a custom resource with a template).
func (p *Pass) IsLongRunning() bool {
	w := p.Workload
	switch {
	case w.Deployment != nil, w.StatefulSet != nil, w.DaemonSet != nil, w.ReplicaSet != nil, w.ReplicationController != nil:
		return true
	case w.Job != nil:
		return false
	}
	switch w.Kind {
	case "Pod", "PodTemplate":
		return false
	}
	return true
}

// PodValidated reports whether the API server validates Pods made from
// this template as written: true for the built-in kinds and for custom
// resources whose controller creates Pods from the template (an Argo
// Rollout, an OpenKruise CloneSet); false for other custom resources, whose
// operator may fill in or change the template first (Knative names
// containers and points probes at the container's port). Rules that say
// "the API server rejects the Pod" check this first.
func (p *Pass) PodValidated() bool {
	return p.Object.Custom == nil || p.Object.Custom.PodsFromTemplate
}

// List is a catalog of rules sorted by ID. All is podlint's; the analyzer
// runs the list its Config names, and tests build their own.
type List []*Rule

// Lookup finds a rule of the list by ID or name, case-insensitively.
func (l List) Lookup(idOrName string) *Rule {
	for _, r := range l {
		if strings.EqualFold(r.ID, idOrName) || strings.EqualFold(r.Name, idOrName) {
			return r
		}
	}
	return nil
}

// ByName finds a rule of the list by its exact name (used for loader
// problems).
func (l List) ByName(name string) *Rule {
	for _, r := range l {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// Lookup finds a rule of All by ID or name, case-insensitively.
func Lookup(idOrName string) *Rule { return All.Lookup(idOrName) }
