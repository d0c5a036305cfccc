package fix_test

import (
	"strings"
	"testing"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/fix"
	"github.com/podlint/podlint/rules"
)

// TestInsertedProbeLayout: PL103's fix (a startupProbe after the liveness
// probe, whose initialDelaySeconds goes) indents the new probe as its
// sibling probe is indented, not as the first nested mapping of the
// container (here securityContext, by four), and at the end of a file
// without a final line break leaves no blank line inside the container.
func TestInsertedProbeLayout(t *testing.T) {
	const head = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n  - name: app\n    image: nginx\n    securityContext:\n        privileged: false\n"
	for _, tc := range []struct{ name, in, want string }{
		{"delay last, no final line break",
			head + "    livenessProbe:\n      httpGet: {path: /h, port: 80}\n      periodSeconds: 5\n      initialDelaySeconds: 300",
			head + "    livenessProbe:\n      httpGet: {path: /h, port: 80}\n      periodSeconds: 5\n    startupProbe:\n      httpGet: {path: /h, port: 80}\n      periodSeconds: 10\n      failureThreshold: 31\n"},
		{"delay before the period",
			head + "    livenessProbe:\n      httpGet: {path: /h, port: 80}\n      initialDelaySeconds: 300\n      periodSeconds: 120\n",
			head + "    livenessProbe:\n      httpGet: {path: /h, port: 80}\n      periodSeconds: 120\n    startupProbe:\n      httpGet: {path: /h, port: 80}\n      periodSeconds: 10\n      failureThreshold: 31\n"},
	} {
		res := fix.File(analyzer.Default(), "pod.yaml", []byte(tc.in), finding.Unsafe)
		if string(res.Data) != tc.want {
			t.Errorf("%s: fixed text\n%s\nwant\n%s", tc.name, res.Data, tc.want)
		}
	}
}

// TestFixWithTheFixOfWhatItAdds: PL103's startup probe makes the readiness
// probe's initialDelaySeconds pointless (PL104, opt-in, enabled here):
// alone its fix is refused (it adds a finding), but PL104 has a fix of its
// own, and the two are applied together and verified as one.
func TestFixWithTheFixOfWhatItAdds(t *testing.T) {
	const in = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - name: app
    image: nginx
    readinessProbe:
      httpGet: {path: /ping, port: 80}
      initialDelaySeconds: 120
    livenessProbe:
      httpGet: {path: /h, port: 80}
      initialDelaySeconds: 150
      periodSeconds: 5
`
	cfg := analyzer.Default(analyzer.Enable(rules.IneffectiveInitialDelay))
	res := fix.File(cfg, "pod.yaml", []byte(in), finding.Unsafe)
	var got []string
	for _, a := range res.Applied {
		got = append(got, a.Finding.RuleID)
	}
	for _, s := range res.Skipped {
		t.Errorf("skipped %s: %s", s.Finding.RuleID, s.Reason)
	}
	if strings.Join(got, " ") != "PL103 PL104" {
		t.Fatalf("applied %q, want PL103 and PL104 together:\n%s", got, res.Data)
	}
	if strings.Contains(string(res.Data), "initialDelaySeconds") || !strings.Contains(string(res.Data), "startupProbe:") {
		t.Errorf("fixed text:\n%s", res.Data)
	}
}
