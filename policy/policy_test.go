package policy_test

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/policy"
	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/timeline"
	yaml "go.yaml.in/yaml/v3"
)

// reader accepts every key (the command line's checker, with its
// did-you-mean messages, is tested in internal/cli) and describes a value
// by its text.
var reader = policy.Reader{
	Keys:     func(*yaml.Node, reflect.Type, string) error { return nil },
	Describe: func(n *yaml.Node) string { return fmt.Sprintf("%q", n.Value) },
}

// decode reads the policies of a policies list written in YAML.
func decode(t *testing.T, src string) ([]*policy.Policy, error) {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	return policy.Decode("--policy", "org.yaml", doc.Content[0].Content[1], reader)
}

// lint runs the policies of src (a policies file) over a manifest on
// Kubernetes version kube (zero: the newest) and returns the PL801
// findings.
func lint(t *testing.T, policies, file string, kube timeline.Version) []finding.Finding {
	t.Helper()
	list, err := decode(t, policies)
	if err != nil {
		t.Fatal(err)
	}
	if kube.Minor == 0 {
		kube = timeline.Latest
	}
	l := analyzer.Default(analyzer.Only(rules.Policy))
	l.Checks = map[*rules.Rule]func(*rules.Pass){rules.Policy: policy.Check(list)}
	l.Version = kube
	fs, _ := l.File("m.yaml", []byte(file), true)
	var out []finding.Finding
	for _, f := range fs {
		if f.RuleID == rules.Policy.ID {
			out = append(out, f)
		}
	}
	return out
}

// deployment is a Deployment in namespace ns with labels, whose container
// has a liveness probe killing 20s after start.
func deployment(ns string, labels map[string]string) string {
	meta := "  name: web\n"
	if ns != "" {
		meta += "  namespace: " + ns + "\n"
	}
	if len(labels) > 0 {
		meta += "  labels:\n"
		for k, v := range labels {
			meta += fmt.Sprintf("    %s: %s\n", k, v)
		}
	}
	return `apiVersion: apps/v1
kind: Deployment
metadata:
` + meta + `spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: app
          image: example/app:1
          livenessProbe:
            httpGet: {path: /, port: 8080}
`
}

// TestMatches holds matching by kind, namespace glob and labels to the
// schema's word: every key given must match, an absent one matches all.
func TestMatches(t *testing.T) {
	job := `apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: prod-eu}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: app
          image: example/app:1
          livenessProbe:
            httpGet: {path: /, port: 8080}
`
	for _, c := range []struct {
		name, match, manifest string
		fires                 bool
	}{
		{"no match keys", "{}", deployment("", nil), true},
		{"kind listed", "{kinds: [StatefulSet, Deployment]}", deployment("", nil), true},
		{"kind not listed", "{kinds: [StatefulSet]}", deployment("", nil), false},
		{"kind is case-sensitive as in manifests", "{kinds: [deployment]}", deployment("", nil), false},
		{"Job matched by kind", "{kinds: [Job]}", job, true},
		{"Job not matched by Deployment", "{kinds: [Deployment]}", job, false},
		{"namespace glob matches", `{namespaces: ["prod-*"]}`, deployment("prod-eu", nil), true},
		{"namespace glob does not match", `{namespaces: ["prod-*"]}`, deployment("staging", nil), false},
		{"second glob matches", `{namespaces: ["prod-*", "stag?ng"]}`, deployment("staging", nil), true},
		{"no namespace: a glob does not match", `{namespaces: ["prod-*"]}`, deployment("", nil), false},
		{"no namespace: * matches", `{namespaces: ["*"]}`, deployment("", nil), true},
		{"label matches", "{labels: {tier: web}}", deployment("", map[string]string{"tier": "web", "team": "a"}), true},
		{"label has another value", "{labels: {tier: web}}", deployment("", map[string]string{"tier": "db"}), false},
		{"label missing", "{labels: {tier: web}}", deployment("", map[string]string{"team": "a"}), false},
		{"every label must match", "{labels: {tier: web, team: b}}", deployment("", map[string]string{"tier": "web", "team": "a"}), false},
		{"all keys match", `{kinds: [Deployment], namespaces: ["prod-*"], labels: {tier: web}}`, deployment("prod-us", map[string]string{"tier": "web"}), true},
		{"all keys but one match", `{kinds: [Deployment], namespaces: ["prod-*"], labels: {tier: web}}`, deployment("dev", map[string]string{"tier": "web"}), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			pol := "policies:\n  - name: p\n    match: " + c.match + "\n    require: {min-liveness-kill: 60s}\n"
			got := lint(t, pol, c.manifest, timeline.Version{})
			if fires := len(got) > 0; fires != c.fires {
				t.Errorf("fires = %v, want %v (%v)", fires, c.fires, got)
			}
		})
	}
}

// TestRequirements holds each requirement to a manifest that breaks it
// (the finding's position, and numbers from the timeline in its detail)
// and one that meets it.
func TestRequirements(t *testing.T) {
	const pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
	for _, c := range []struct {
		name    string
		require string
		kube    string // Kubernetes version; "" the newest
		file    string
		want    string // "LINE:COL regexp", "" for no finding
	}{
		{"startup probe too short", "min-startup-budget: 2m", "", pod + `  containers:
    - name: app
      image: example/app:1
      startupProbe:
        httpGet: {path: /, port: 8080}
        periodSeconds: 10
        failureThreshold: 3
`, `11:27 started within 20s .* requires 2m for the start\. Raise failureThreshold to 13\.`},
		{"startup probe long enough", "min-startup-budget: 2m", "", pod + `  containers:
    - name: app
      image: example/app:1
      startupProbe:
        httpGet: {path: /, port: 8080}
        periodSeconds: 10
        failureThreshold: 13
`, ""},
		{"liveness without startup probe kills a slow start", "min-startup-budget: 2m", "", pod + `  containers:
    - name: app
      image: example/app:1
      livenessProbe:
        httpGet: {path: /, port: 8080}
        initialDelaySeconds: 30
`, `8:7 kills an application that is not answering yet as early as 49s after .* Add a startupProbe`},
		{"liveness delay covers the budget", "min-startup-budget: 2m", "", pod + `  containers:
    - name: app
      image: example/app:1
      livenessProbe:
        httpGet: {path: /, port: 8080}
        initialDelaySeconds: 101
`, ""},
		{"no probe never kills a slow start", "min-startup-budget: 2m", "", pod + `  containers:
    - name: app
      image: example/app:1
`, ""},
		{"liveness kills too early", "min-liveness-kill: 60s", "", pod + `  containers:
    - name: app
      image: example/app:1
      livenessProbe:
        httpGet: {path: /, port: 8080}
        failureThreshold: 3
`, `10:27 can kill the container 20s after it starts .* Raise failureThreshold to 7`},
		{"liveness kills late enough", "min-liveness-kill: 60s", "", pod + `  containers:
    - name: app
      image: example/app:1
      livenessProbe:
        httpGet: {path: /, port: 8080}
        failureThreshold: 7
`, ""},
		{"a startup probe delays the liveness kill", "min-liveness-kill: 60s", "", pod + `  containers:
    - name: app
      image: example/app:1
      startupProbe:
        httpGet: {path: /, port: 8080}
        initialDelaySeconds: 41
      livenessProbe:
        httpGet: {path: /, port: 8080}
`, ""},
		{"grace without preStop too short", "min-grace-after-prestop: 30s", "", pod + `  terminationGracePeriodSeconds: 10
  containers:
    - name: app
      image: example/app:1
`, `5:34 stop signal at once and SIGKILL 10s later .* at least 30\.`},
		{"grace covers preStop and delay", "min-grace-after-prestop: 30s", "", pod + `  terminationGracePeriodSeconds: 40
  containers:
    - name: app
      image: example/app:1
      lifecycle:
        preStop:
          sleep: {seconds: 10}
`, ""},
		{"preStop eats into the grace period", "min-grace-after-prestop: 30s", "", pod + `  terminationGracePeriodSeconds: 30
  containers:
    - name: app
      image: example/app:1
      lifecycle:
        preStop:
          exec: {command: [sh, -c, "sleep 10"]}
`, `5:34 after its preStop hook, which takes 10s, and SIGKILL 20s later .* 10s \+ 30s = 40s\.`},
		// On 1.22 to 1.27 the grace period was handed whole to the kill
		// after the preStop hook (semantics T-2): the same manifest meets
		// the policy there, which no comparison of fields can tell.
		{"preStop outside the grace period on 1.27", "min-grace-after-prestop: 30s", "1.27", pod + `  terminationGracePeriodSeconds: 30
  containers:
    - name: app
      image: example/app:1
      lifecycle:
        preStop:
          exec: {command: [sh, -c, "sleep 10"]}
`, ""},
		{"Job without deadline", "max-job-time: 1h", "", `apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: app, image: example/app:1}]
`, `4:1 no activeDeadlineSeconds, so a Pod that hangs keeps it running forever.* at most 3600\.`},
		// 3600 − 32: after the deadline the Pod's termination (up to its
		// 30 s grace), the kubelet's phase write (ε, 1 s) and the Job
		// controller's batched sync (1 s).
		{"Job deadline too long", "max-job-time: 1h", "", `apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  activeDeadlineSeconds: 7200
  template:
    spec:
      restartPolicy: Never
      containers: [{name: app, image: example/app:1}]
`, `5:26 ended 2h\d+s after it starts at the latest \(activeDeadlineSeconds 7200, .* Lower activeDeadlineSeconds to at most 3567\.`},
		{"Job deadline within the bound", "max-job-time: 1h", "", `apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  activeDeadlineSeconds: 1800
  template:
    spec:
      restartPolicy: Never
      containers: [{name: app, image: example/app:1}]
`, ""},
		{"CronJob's Jobs without deadline", "max-job-time: 1h", "", `apiVersion: batch/v1
kind: CronJob
metadata: {name: c}
spec:
  schedule: "@hourly"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: app, image: example/app:1}]
`, `7:5 no activeDeadlineSeconds`},
		{"a Job time does not apply to a Deployment", "max-job-time: 1h", "", deployment("", nil), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var kube timeline.Version
			if c.kube != "" {
				var err error
				if kube, err = timeline.ParseVersion(c.kube); err != nil {
					t.Fatal(err)
				}
			}
			// The longest name a policy may have: headlines stay one line.
			name := "p" + strings.Repeat("-", 39)
			got := lint(t, "policies:\n  - name: "+name+"\n    require: {"+c.require+"}\n", c.file, kube)
			if c.want == "" {
				if len(got) > 0 {
					t.Fatalf("unexpected finding %d:%d: %s %s", got[0].Line, got[0].Column, got[0].Message, got[0].Detail)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("%d findings, want 1: %v", len(got), got)
			}
			pos, pattern, _ := strings.Cut(c.want, " ")
			f := got[0]
			if at := fmt.Sprintf("%d:%d", f.Line, f.Column); at != pos {
				t.Errorf("finding at %s, want %s", at, pos)
			}
			if !regexp.MustCompile(pattern).MatchString(f.Detail) {
				t.Errorf("detail %q does not match %q", f.Detail, pattern)
			}
			if !strings.Contains(f.Message, `policy "`+name+`"`) || !strings.HasSuffix(f.Detail, `Policy "`+name+`" is defined at org.yaml:2.`) {
				t.Errorf("finding does not name the policy and where it is defined: %s / %s", f.Message, f.Detail)
			}
			// A headline as CONTRIBUTING.md has them: one sentence of at
			// most 100 characters, without arithmetic or a period.
			if n := len([]rune(f.Message)); n > 100 || strings.ContainsAny(f.Message, ";=+") || strings.HasSuffix(f.Message, ".") {
				t.Errorf("headline %q (%d characters) is not one short sentence", f.Message, n)
			}
			if f.Severity != finding.Error {
				t.Errorf("severity %v, want error (the default)", f.Severity)
			}
		})
	}
}

// TestSeverityAndDescription: a policy states its findings' severity, and
// its description ends their detail.
func TestSeverityAndDescription(t *testing.T) {
	got := lint(t, `policies:
  - name: slow-start
    description: warm-up takes a minute
    severity: warning
    require: {min-liveness-kill: 60s}
`, deployment("", nil), timeline.Version{})
	if len(got) != 1 {
		t.Fatalf("%d findings, want 1", len(got))
	}
	if got[0].Severity != finding.Warning {
		t.Errorf("severity %v, want warning", got[0].Severity)
	}
	if want := `Policy "slow-start" (org.yaml:2): warm-up takes a minute.`; !strings.HasSuffix(got[0].Detail, want) {
		t.Errorf("detail %q does not end with %q", got[0].Detail, want)
	}
}

// TestDecodeErrors: values the schema refuses, each with the file, the
// line, the key and what to write instead.
func TestDecodeErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"not a list", "policies: {name: x}", `--policy org.yaml:1: policies is ""; want a list of policies, e.g. policies: [`},
		{"item not a mapping", "policies: [x]", `--policy org.yaml:1: policies[0] is "x"; want a mapping`},
		{"no name", "policies:\n  - require: {max-job-time: 1h}", `--policy org.yaml:2: policies[0].name: a policy needs a name`},
		{"bad name", "policies:\n  - name: \"a b\"\n    require: {max-job-time: 1h}", `--policy org.yaml:2: policies[0].name: "a b" is not a policy name`},
		{"bad severity", "policies:\n  - name: a\n    severity: fatal\n    require: {max-job-time: 1h}", `--policy org.yaml:3: policies[0].severity: "fatal": want error, warning or info, e.g. severity: warning`},
		{"off is no severity", "policies:\n  - name: a\n    severity: off\n    require: {max-job-time: 1h}", `--policy org.yaml:3: policies[0].severity: "off": want error, warning or info`},
		{"bad glob", "policies:\n  - name: a\n    match:\n      namespaces: [\"prod-[\"]\n    require: {max-job-time: 1h}", `--policy org.yaml:4: policies[0].match.namespaces: "prod-[" is not a glob`},
		{"bad kind", "policies:\n  - name: a\n    match: {kinds: [\"apps/v1 Deployment\"]}\n    require: {max-job-time: 1h}", `--policy org.yaml:3: policies[0].match.kinds: "apps/v1 Deployment" is not a kind`},
		{"bad duration", "policies:\n  - name: a\n    require:\n      max-job-time: 1 hour", `--policy org.yaml:4: policies[0].require.max-job-time: "1 hour": want a duration such as 90s or 1m30s, or plain seconds, e.g. max-job-time: 1h`},
		{"negative duration", "policies:\n  - name: a\n    require: {min-liveness-kill: -5s}", `--policy org.yaml:3: policies[0].require.min-liveness-kill: "-5s": duration must not be negative`},
		{"requires nothing", "policies:\n  - name: a\n    match: {kinds: [Job]}", `--policy org.yaml:2: policies[0].require: policy "a" requires nothing`},
		{"twice", "policies:\n  - name: a\n    require: {max-job-time: 1h}\n  - name: a\n    require: {max-job-time: 2h}", `--policy org.yaml:4: policy "a" is defined twice, first at org.yaml:2`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := decode(t, c.src)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("error %v, want one starting %q", err, c.want)
			}
		})
	}
}
