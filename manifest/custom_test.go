package manifest

import (
	"os"
	"reflect"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
)

// TestKnownCustomKindsDocumented: docs/custom-resources.md has a row for
// every kind of knownCustomKinds, and no row for a kind podlint does not know.
func TestKnownCustomKindsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/custom-resources.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		g, k := strings.Trim(strings.TrimSpace(cells[1]), "`"), strings.Trim(strings.TrimSpace(cells[2]), "`")
		rows[g+"/"+k] = true
		known := knownCustomKinds[g][k]
		if known == nil {
			t.Errorf("docs/custom-resources.md lists %s/%s, which podlint does not know", g, k)
			continue
		}
		if want := map[bool]string{true: "yes", false: "no"}[known.PodsFromTemplate]; !strings.HasPrefix(strings.TrimSpace(cells[4]), want) {
			t.Errorf("docs/custom-resources.md: %s/%s: Pods made from the template should say %q", g, k, want)
		}
	}
	for g, kinds := range knownCustomKinds {
		for k := range kinds {
			if !rows[g+"/"+k] {
				t.Errorf("docs/custom-resources.md has no row for %s/%s", g, k)
			}
		}
	}
}

// TestKnativeDefaults: Knative names unnamed containers and points probes
// without a port at the container's port; the decoded object is left as
// written, the spec the rules read is defaulted.
func TestKnativeDefaults(t *testing.T) {
	src := `apiVersion: serving.knative.dev/v1
kind: Service
metadata: {name: hello}
spec:
  template:
    spec:
      containers:
        - image: a
          ports: [{containerPort: 9000}]
          livenessProbe: {httpGet: {path: /}}
        - name: user-container-0
          image: b
        - image: c
          readinessProbe: {tcpSocket: {}}
`
	res := Parse("ksvc.yaml", []byte(src), DefaultLimits)
	if len(res.Objects) != 1 || res.Objects[0].Workload == nil {
		t.Fatalf("objects: %+v, problems: %+v", res.Objects, res.Problems)
	}
	o := res.Objects[0]
	if o.Custom == nil || !o.Custom.Known || o.Custom.PodsFromTemplate {
		t.Errorf("custom kind: %+v", o.Custom)
	}
	cs := o.Workload.Spec.Containers
	if got := []string{cs[0].Name, cs[1].Name, cs[2].Name}; strings.Join(got, ",") != "user-container-1,user-container-0,user-container-2" {
		t.Errorf("names: %v", got)
	}
	if p := cs[0].LivenessProbe.HTTPGet.Port.IntValue(); p != 9000 {
		t.Errorf("liveness port %d, want the container port 9000", p)
	}
	if p := cs[2].ReadinessProbe.TCPSocket.Port.IntValue(); p != 8080 {
		t.Errorf("readiness port %d, want Knative's default 8080", p)
	}
	if len(res.Problems) != 0 {
		t.Errorf("problems: %+v", res.Problems)
	}
}

// TestScaledJob: a KEDA ScaledJob is linted as the Job KEDA makes from
// spec.jobTargetRef, decoded as the API server would decode that Job spec.
func TestScaledJob(t *testing.T) {
	src := `apiVersion: keda.sh/v1alpha1
kind: ScaledJob
metadata: {name: worker, annotations: {podlint.dev/expected-startup: 5s}}
spec:
  pollingInterval: 30
  jobTargetRef:
    backoffLimit: 2
    template:
      spec:
        restartPolicy: Never
        containers: [{name: w, image: worker, livenessProbe: {exec: {command: ["true"]}}}]
`
	res := Parse("scaledjob.yaml", []byte(src), DefaultLimits)
	if len(res.Objects) != 1 || res.Objects[0].Workload == nil || len(res.Problems) != 0 {
		t.Fatalf("objects: %+v, problems: %+v", res.Objects, res.Problems)
	}
	o := res.Objects[0]
	w := o.Workload
	if w.Job == nil || w.JobPath != "spec.jobTargetRef" || w.SpecPath != "spec.jobTargetRef.template.spec" || *w.Job.BackoffLimit != 2 {
		t.Errorf("workload: job %v at %q, spec at %q", w.Job, w.JobPath, w.SpecPath)
	}
	if w.Annotations["podlint.dev/expected-startup"] != "5s" || o.Custom == nil || !o.Custom.PodsFromTemplate {
		t.Errorf("annotations %v, custom %+v", w.Annotations, o.Custom)
	}
	var want struct {
		Spec struct {
			JobTargetRef batchv1.JobSpec `json:"jobTargetRef"`
		} `json:"spec"`
	}
	if err := kubectlDecode([]byte(src), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&want.Spec.JobTargetRef, o.Typed) {
		t.Errorf("decoded Job spec differs from the API server's")
	}
	if pos, exact := o.Doc.Locate(w.JobPath.Field("backoffLimit")); pos.Line != 7 || !exact {
		t.Errorf("backoffLimit located at %+v (exact %v), want line 7", pos, exact)
	}
}
