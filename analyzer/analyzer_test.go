package analyzer

import (
	"strings"
	"testing"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
)

const twoPods = `apiVersion: v1
kind: Pod
metadata: {name: first}
spec:
  containers: [{name: app, image: nginx}, {name: app, image: nginx}]
---
apiVersion: v1
kind: Pod
metadata: {name: second}
spec:
  containers: [{name: app, image: nginx}, {name: app, image: nginx}]
`

// TestRulePanicBecomesFinding: a crashing rule yields an internal-error
// finding on the object it crashed on, and the other rules still report.
func TestRulePanicBecomesFinding(t *testing.T) {
	t.Parallel()
	crashing := &rules.Rule{ID: "PL999", Name: "crashing-rule", Title: "crashes on the second pod", Severity: finding.Error,
		Check: func(p *rules.Pass) {
			if p.Object.Ref.Name == "second" {
				var containers []string
				_ = containers[len(p.Spec.Containers)] // index out of range, as a real bug would panic
			}
		}}
	cfg := Default(Only(crashing, rules.DuplicateContainerName, rules.InternalError))
	fs, sum := cfg.File("pods.yaml", []byte(twoPods), true)
	if sum.Workloads != 2 {
		t.Fatalf("workloads = %d, want 2", sum.Workloads)
	}
	var internal, dup int
	for _, f := range fs {
		switch f.RuleID {
		case "PL009":
			internal++
			if f.Line != 7 || !strings.Contains(f.Message, "rule PL999 (crashing-rule) crashed") || f.Object.Name != "second" {
				t.Errorf("internal-error finding = %+v", f)
			}
		case "PL010":
			dup++
		}
	}
	if internal != 1 || dup != 2 {
		t.Errorf("got %d internal-error and %d duplicate-container-name findings, want 1 and 2: %+v", internal, dup, fs)
	}
}

// TestNothingLost: in one run over many inputs, bad ones yield their
// findings and every good one is still linted.
func TestNothingLost(t *testing.T) {
	t.Parallel()
	good := "apiVersion: v1\nkind: Pod\nmetadata: {name: ok}\nspec: {containers: [{name: a, image: x}, {name: a, image: x}]}\n"
	inputs := []struct {
		data string
		rule string
	}{
		{good, "PL010"},
		{"\x00\x01binary", "PL001"},
		{"apiVersion: v1\nkind: Pod\nspec: {containers: [{name: a, image: [x]}]}\n", "PL002"},
		{good, "PL010"},
		{"kind: {{ .Values.kind }}\n", "PL005"},
		{"a: [unclosed\n", "PL001"},
		{good, "PL010"},
	}
	var srcs []manifest.Source
	for i, in := range inputs {
		srcs = append(srcs, manifest.Source{Path: string(rune('a'+i)) + ".yaml", Data: []byte(in.data), Explicit: true})
	}
	cfg := Default(Enable(rules.All...))
	res, errs := Run(cfg, Options{}, srcs)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	got := map[string]string{}
	for _, f := range res.List() {
		got[f.File] += f.RuleID + " "
	}
	for i, in := range inputs {
		name := string(rune('a'+i)) + ".yaml"
		if !strings.Contains(got[name], in.rule) {
			t.Errorf("%s: findings %q, want %s", name, got[name], in.rule)
		}
	}
	if res.Summary.Files != len(inputs) || res.Summary.Workloads != 3 {
		t.Errorf("summary = %+v, want %d files and 3 workloads", res.Summary, len(inputs))
	}
}
