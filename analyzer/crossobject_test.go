package analyzer

import (
	"strings"
	"testing"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
)

// webDeployment states a start-up long enough for a missing readiness
// probe to matter (PL111, PL705).
const webDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
      annotations: {podlint.dev/expected-startup: 30s}
    spec:
      containers:
        - name: web
          image: web:1
          ports:
            - {name: http, containerPort: 8080}
`

const webService = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
    - {port: 80, targetPort: http}
`

func byRule(fs []finding.Finding) map[string][]finding.Finding {
	out := map[string][]finding.Finding{}
	for _, f := range fs {
		out[f.RuleID] = append(out[f.RuleID], f)
	}
	return out
}

// TestReleaseAcrossFiles: the Deployment and the Service are in two files of
// one run; the finding is in the Deployment's file with the Service as a
// related location, and PL111 gives way to PL705.
func TestReleaseAcrossFiles(t *testing.T) {
	t.Parallel()
	cfg := Default(Only(rules.ServiceWithoutReadiness, rules.MissingReadinessProbe, rules.UnusedSuppression))
	res, errs := Run(cfg, Options{}, []manifest.Source{
		{Path: "deploy.yaml", Data: []byte(webDeployment)},
		{Path: "svc.yaml", Data: []byte(webService)},
	})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := byRule(res.List())
	if len(got["PL111"]) != 0 {
		t.Errorf("PL111 still reported where a Service is in the run: %+v", got["PL111"])
	}
	f := got["PL705"]
	if len(f) != 1 || f[0].File != "deploy.yaml" || f[0].Line != 14 || f[0].SourceLine != "        - name: web" ||
		len(f[0].Related) != 1 || f[0].Related[0].File != "svc.yaml" || f[0].Related[0].Line != 6 || f[0].Object == nil || f[0].Object.Name != "web" {
		t.Fatalf("PL705 findings = %+v", f)
	}

	// Alone, the Deployment gets PL111 and no PL705.
	res, _ = Run(cfg, Options{}, []manifest.Source{{Path: "deploy.yaml", Data: []byte(webDeployment)}})
	got = byRule(res.List())
	if len(got["PL111"]) != 1 || len(got["PL705"]) != 0 {
		t.Errorf("without the Service: %+v", res.List())
	}
}

// TestReleaseSuppressions: a comment and an annotation suppress findings of
// cross-object rules, and one that matches nothing is reported at the end
// of the run.
func TestReleaseSuppressions(t *testing.T) {
	t.Parallel()
	cfg := Default(Only(rules.ServiceWithoutReadiness, rules.ServicePortNotDeclared, rules.UnusedSuppression, rules.SuppressionMissingReason))
	deploy := strings.Replace(webDeployment, "        - name: web\n", "        - name: web # podlint:ignore PL705 probes live in the mesh sidecar\n", 1)
	svc := strings.Replace(webService, "  name: web\n", "  name: web\n  annotations:\n    ignore-check.podlint.dev/service-port-not-declared: \"ports come from a webhook\"\n", 1)
	res, _ := Run(cfg, Options{}, []manifest.Source{{Path: "deploy.yaml", Data: []byte(deploy)}, {Path: "svc.yaml", Data: []byte(svc)}})
	got := byRule(res.List())
	if len(got["PL705"]) != 0 {
		t.Errorf("PL705 not suppressed: %+v", got["PL705"])
	}
	// The Service's annotation suppresses nothing: its port is declared.
	u := got["PL008"]
	if len(u) != 1 || u[0].File != "svc.yaml" || u[0].Line != 6 || !strings.Contains(u[0].Message, "PL704") || u[0].SourceLine == "" {
		t.Errorf("unused suppression findings = %+v", u)
	}
	if len(res.List()) != 1 {
		t.Errorf("findings = %+v", res.List())
	}
}

// TestReleaseNamespaces: a Service never selects Pods of another namespace,
// and a Service without selector selects nothing.
func TestReleaseNamespaces(t *testing.T) {
	t.Parallel()
	cfg := Default(Only(rules.ServiceWithoutReadiness))
	other := strings.Replace(webService, "  name: web\n", "  name: web\n  namespace: other\n", 1)
	none := strings.Replace(webService, "  selector: {app: web}\n", "", 1)
	for name, svc := range map[string]string{"other namespace": other, "no selector": none} {
		res, _ := Run(cfg, Options{}, []manifest.Source{{Path: "deploy.yaml", Data: []byte(webDeployment)}, {Path: "svc.yaml", Data: []byte(svc)}})
		if len(res.List()) != 0 {
			t.Errorf("%s: %+v", name, res.List())
		}
	}
}
