package analyzer

import (
	"strings"
	"testing"

	"github.com/podlint/podlint/rules"
)

// TestUnusedSuppressionNamesNearest: a comment that covers the wrong line
// (here the `lifecycle:` key, while PL201 reports the preStop command four
// lines below) says which finding of its rule is nearest, at which line, and
// one whose rule reports nothing in the file says that instead.
func TestUnusedSuppressionNamesNearest(t *testing.T) {
	t.Parallel()
	const pod = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
    - name: web
      image: nginx
      # podlint:ignore PL201 the app drains in 5s
      lifecycle:
        preStop:
          exec:
            command: ["/bin/sh", "-c", "sleep 45"]
    - name: other
      image: nginx # podlint:ignore PL010 left over
`
	cfg := Default(Only(rules.PreStopExceedsGrace, rules.DuplicateContainerName, rules.UnusedSuppression))
	fs, _ := cfg.File("pod.yaml", []byte(pod), true)
	var got []string
	for _, f := range fs {
		if f.RuleID == rules.UnusedSuppression.ID {
			got = append(got, f.Message+" | "+f.Detail)
		}
	}
	want := []string{
		"suppression of PL201 (prestop-exceeds-grace) matches no finding, the nearest PL201 is on line 12 | It covers line 9, but the nearest PL201 (prestop-exceeds-grace) finding is at line 12, column 13:",
		"suppression of PL010 (duplicate-container-name) matches no finding | It covers line 14, and PL010 (duplicate-container-name) reports nothing anywhere in this file.",
	}
	if len(got) != len(want) {
		t.Fatalf("unused-suppression findings:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("finding %d:\n got %s\nwant %s…", i, got[i], want[i])
		}
	}
}

// TestUnparsedDocumentSuppressions: the comment suppressions of a document
// that does not parse (an unclosed quote, as while typing) are neither
// used nor unused: no PL008, since what they would hide is unknown. Those
// of a document that parses are judged as before.
func TestUnparsedDocumentSuppressions(t *testing.T) {
	t.Parallel()
	const file = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
    - name: web
      image: "nginx
      # podlint:ignore PL201 the app drains in 5s
      lifecycle:
        preStop:
          exec:
            command: ["/bin/sh", "-c", "sleep 45"]
---
apiVersion: v1
kind: Pod
metadata: {name: other}
spec:
  containers:
    - name: other
      image: nginx # podlint:ignore PL010 left over
`
	cfg := Default(Only(rules.InvalidYAML, rules.PreStopExceedsGrace, rules.DuplicateContainerName, rules.UnusedSuppression))
	fs, _ := cfg.File("pod.yaml", []byte(file), true)
	var got []string
	invalid := false
	for _, f := range fs {
		if f.RuleID == rules.UnusedSuppression.ID {
			got = append(got, f.Message)
		}
		invalid = invalid || f.RuleID == rules.InvalidYAML.ID
	}
	if !invalid {
		t.Fatal("the first document parsed: the test needs it not to")
	}
	if len(got) != 1 || !strings.Contains(got[0], "PL010") {
		t.Fatalf("unused suppressions %q, want only the PL010 of the document that parses", got)
	}
}
