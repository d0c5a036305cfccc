package rules

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/podlint/podlint/crossobject"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
)

// CrossObjectPass is one cross-object rule's view of a whole run: every
// workload, Service, PodDisruptionBudget, HorizontalPodAutoscaler and
// PersistentVolumeClaim, grouped by namespace. A rule with a CrossObject check
// runs once per run, after every file was loaded.
type CrossObjectPass struct {
	Rule    *Rule
	View    *crossobject.View
	Version timeline.Version
	Params  timeline.Params // Params.Nodes is --nodes
	report  func(CrossObjectDiagnostic)
}

// NewCrossObjectPass is used by the analyzer and by tests.
func NewCrossObjectPass(r *Rule, v *crossobject.View, ver timeline.Version, p timeline.Params, report func(CrossObjectDiagnostic)) *CrossObjectPass {
	return &CrossObjectPass{Rule: r, View: v, Version: ver, Params: p, report: report}
}

// CrossObjectDiagnostic is what a cross-object rule reports: a position in the
// object At belongs to, and related positions in the other objects.
type CrossObjectDiagnostic struct {
	At        crossobject.Pos
	Object    *crossobject.Object // the object At is in; its annotations can suppress the finding
	Container string
	Message   string            // headline: what is wrong, one sentence, no arithmetic
	Detail    string            // mechanism, numbers, fix
	Related   []crossobject.Pos // Message says what each is
}

// Report records a diagnostic.
func (p *CrossObjectPass) Report(d CrossObjectDiagnostic) { p.report(d) }

// related names a position in another object.
func related(at crossobject.Pos, format string, args ...any) crossobject.Pos {
	at.Message = fmt.Sprintf(format, args...)
	return at
}

// crossObjectName is how messages name a container of the cross-object view (see
// ContainerRef.Name).
func crossObjectName(c *crossobject.Container) containerName {
	return containerName{Name: c.Name, Image: c.Image, Index: c.Index}
}

// onlyScraped reports whether PodMonitors of the run scrape every serving
// port (ServingPorts) of the named regular container of w.
func onlyScraped(v *crossobject.View, w *crossobject.Workload, container string) bool {
	scraped := v.ScrapedPorts(w)
	if len(scraped) == 0 {
		return false
	}
	for i := range w.Containers {
		c := &w.Containers[i]
		if c.Sidecar || c.Name != container {
			continue
		}
		for _, port := range ServingPorts(c.Ports, w.ScrapePort) {
			if !slices.Contains(scraped, port.Name) && !slices.Contains(scraped, strconv.Itoa(int(port.ContainerPort))) {
				return false
			}
		}
		return true
	}
	return false
}

// detail turns a message into a detail: capitalized, ending with a period.
func detail(format string, args ...any) string {
	return finding.Sentence(fmt.Sprintf(format, args...))
}
