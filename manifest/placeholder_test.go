package manifest

import (
	"strings"
	"testing"
)

// TestPlaceholdersFoldIntoOneProblem: an envsubst template's placeholders
// in typed fields are one problem per object, at the first, naming the
// others; a real type error beside them keeps its own problem.
func TestPlaceholdersFoldIntoOneProblem(t *testing.T) {
	src := `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: ${REPLICAS:-1}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: app
          image: nginx
          ports:
            - containerPort: ${PORT}
            - containerPort: ${METRICS_PORT:-9090}
            - containerPort: ${A}
            - containerPort: ${B}
            - containerPort: eighty
`
	res := Parse("t.yaml", []byte(src), DefaultLimits)
	var got []Problem
	for _, p := range res.Problems {
		if p.Rule == RuleInvalidManifest {
			got = append(got, p)
		}
	}
	if len(got) != 2 {
		t.Fatalf("got %d invalid-manifest problems, want 2 (the placeholders folded, and eighty): %+v", len(got), got)
	}
	p := got[0]
	if p.Line != 5 || p.Message != "shell placeholder ${REPLICAS:-1} in a typed field: this Deployment is a template (5 placeholders)" ||
		!strings.Contains(p.Detail, "The Deployment holds 4 more: ${PORT} (line 14), ${METRICS_PORT:-9090} (line 15), ${A} (line 16), ${B} (line 17).") ||
		!strings.Contains(p.Detail, "envsubst < FILE | podlint check -") {
		t.Errorf("folded problem = line %d %q / %q", p.Line, p.Message, p.Detail)
	}
	if got[1].Line != 18 || strings.Contains(got[1].Message, "placeholder") {
		t.Errorf("the real type error = line %d %q, want line 18 on its own", got[1].Line, got[1].Message)
	}
}
