package analyzer

import (
	"strings"
	"testing"
)

// TestDocumentShare: a document's share of the cross-object view changes
// with what the cross-object rules read (a readiness probe, the Pod
// labels, the ports) and not with what they do not (a probe's timeout).
func TestDocumentShare(t *testing.T) {
	const base = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: app
          image: example/web:1
          ports: [{containerPort: 8080}]
          livenessProbe:
            httpGet: {path: /healthz, port: 8080}
            timeoutSeconds: 30
`
	cfg := allRules()
	fs, share := cfg.Document("d.yaml", []byte(base))
	if len(fs) == 0 {
		t.Fatal("no findings")
	}
	for _, c := range []struct {
		name, from, to string
		same           bool
	}{
		{"a probe's timeout", "timeoutSeconds: 30", "timeoutSeconds: 1", true},
		{"a readiness probe", "          livenessProbe:", "          readinessProbe: {tcpSocket: {port: 8080}}\n          livenessProbe:", false},
		{"the Pod labels", "labels: {app: web}", "labels: {app: web2}", false},
		{"the ports", "containerPort: 8080", "containerPort: 8081", false},
	} {
		_, s := cfg.Document("d.yaml", []byte(strings.Replace(base, c.from, c.to, 1)))
		if s.Equal(share) != c.same {
			t.Errorf("changing %s: share equal %v, want %v", c.name, s.Equal(share), c.same)
		}
	}
}

// TestDocumentShareEqualIn: a change to a workload's summary (its
// restartPolicy: whether it runs to completion) changes the share, and
// matters only where the workload's namespace is relevant to the
// cross-object rules.
func TestDocumentShareEqualIn(t *testing.T) {
	const base = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      restartPolicy: OnFailure
      containers: [{name: app, image: example/web:1}]
`
	cfg := allRules()
	_, a := cfg.Document("d.yaml", []byte(base))
	_, b := cfg.Document("d.yaml", []byte(strings.Replace(base, "OnFailure", "Always", 1)))
	if a.Equal(b) {
		t.Fatal("the restartPolicy does not change the share; the test needs one that does")
	}
	if !a.EqualIn(b, func(string) bool { return false }) {
		t.Error("shares differ in an irrelevant namespace")
	}
	if a.EqualIn(b, func(ns string) bool { return ns == "shop" }) {
		t.Error("shares are equal in the workload's relevant namespace")
	}
	_, c := cfg.Document("d.yaml", []byte(strings.Replace(base, "name: web,", "name: web2,", 1)))
	if a.EqualIn(c, func(string) bool { return false }) {
		t.Error("renaming the workload leaves the share equal")
	}
}
