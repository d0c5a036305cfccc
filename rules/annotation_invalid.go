package rules

import (
	"fmt"
	"path"
	"sort"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
)

// AnnotationInvalid reports a podlint.dev/ annotation podlint reads but
// cannot use. The timeline and the rules that read one fall back to the
// configuration (or to "unknown") when it is malformed, so without this
// finding a typo such as "90sec" would silently change what podlint checks.
var AnnotationInvalid = &Rule{
	ID: "PL014", Name: "invalid-annotation", Title: "podlint annotation cannot be read",
	Severity: finding.Error,
	Check: func(p *Pass) {
		w := p.Workload
		keys := make([]string, 0, len(w.Annotations))
		for k := range w.Annotations {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, key := range keys {
			raw := w.Annotations[key]
			at := w.AnnotationPaths[key]
			switch key {
			case timeline.AnnotationExpectedStartup, timeline.AnnotationExpectedShutdown:
				checkExpectationAnnotation(p, key, raw, at)
			case ExpectedRunAnnotation:
				if _, err := timeline.ParseSeconds(raw); err != nil {
					p.Report(annotationDiagnostic(at, key, raw, err.Error(),
						CronJobOverlap.ID+" cannot tell how long a run of this CronJob lasts and falls back to activeDeadlineSeconds",
						"Write one duration such as 45m or 2700"))
				}
			}
		}
	},
}

// checkExpectationAnnotation reads an expected-startup/-shutdown value as
// the timeline does (timeline.ParseExpectations) and checks that every
// named entry names a container of the Pod.
func checkExpectationAnnotation(p *Pass, key, raw string, at workload.Path) {
	what := "start-up"
	// The rules that read the annotation, by value so that a renumbered
	// rule cannot leave the message naming another one.
	users := LivenessKillsBeforeReady.ID + ", " + StartupBudgetTooShort.ID + ", " + StartupExceedsProgressDeadline.ID + " and " + OrderedRolloutBlocks.ID
	if key == timeline.AnnotationExpectedShutdown {
		what, users = "shutdown", ShutdownExceedsGrace.ID+" and "+ZeroGracePeriod.ID
	}
	effect := fmt.Sprintf("podlint ignores the whole annotation: the %s time falls back to the configuration or to unknown, so %s judge a different Pod than the one you describe", what, users)
	fix := "Write a duration such as 90s or 1m30s, or name=duration entries separated by commas (app=90s,proxy=5s)"
	list, err := timeline.ParseExpectations(raw)
	if err != nil {
		p.Report(annotationDiagnostic(at, key, raw, err.Error(), effect, fix))
		return
	}
	if p.Spec == nil || p.IsFragment() {
		return
	}
	var names []string
	for _, c := range p.Containers() {
		if c.C.Name == "" {
			// The operator of a custom resource names its containers
			// (Knative does): which entry applies cannot be told here.
			return
		}
		names = append(names, c.C.Name)
	}
	for _, e := range list {
		if e.Pattern == "*" || matchesAny(e.Pattern, names) {
			continue
		}
		p.Report(Diagnostic{Path: at,
			Message: fmt.Sprintf("%s names %q, which is no container of this Pod", key, e.Pattern),
			Detail: fmt.Sprintf("The entry %q matches none of the containers %s, so its %s time is never used (a misspelt or renamed container keeps the default instead). Name one of the containers, or remove the entry.",
				e.Pattern+"="+e.Text, quoted(names, 8), what)})
	}
}

func annotationDiagnostic(at workload.Path, key, raw, problem, effect, fix string) Diagnostic {
	return Diagnostic{Path: at,
		Message: fmt.Sprintf("%s %q cannot be read", key, clip(raw, 40)),
		Detail:  fmt.Sprintf("Reading %q fails (%s), so %s. %s.", raw, problem, effect, fix)}
}

func matchesAny(pattern string, names []string) bool {
	for _, n := range names {
		if ok, _ := path.Match(pattern, n); ok {
			return true
		}
	}
	return false
}

// clip shortens a value quoted in a headline.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
