package integration

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

var commitPin = regexp.MustCompile(`^[\w.-]+/[\w.-]+@[0-9a-f]{40}$`)

// snippetWorkflow reads the workflow of a docs/ci.md snippet: its
// permissions and the with: of its podlint/podlint step. Every uses: must be
// pinned.
func snippetWorkflow(t *testing.T, name string) (permissions, with map[string]string) {
	t.Helper()
	var wf struct {
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(snippet(t, name)), &wf); err != nil {
		t.Fatalf("the workflow is not valid YAML: %v", err)
	}
	for _, s := range wf.Jobs["podlint"].Steps {
		if !commitPin.MatchString(s.Uses) {
			t.Errorf("uses: %s is not pinned to a commit", s.Uses)
		}
		if strings.HasPrefix(s.Uses, "podlint/podlint@") {
			with = s.With
		}
	}
	if with == nil {
		t.Fatal("the workflow has no podlint/podlint step")
	}
	return wf.Permissions, with
}

// TestCIDocGitHubWorkflow checks the workflow of docs/ci.md against
// action.yml and runs the action with its inputs.
func TestCIDocGitHubWorkflow(t *testing.T) {
	t.Parallel() // runs programs in folders of its own; never changes the working directory or the environment
	permissions, with := snippetWorkflow(t, "github-workflow")
	if permissions["security-events"] != "write" {
		t.Errorf("upload-sarif needs permissions security-events: write, the workflow has %v", permissions)
	}
	root := repoRoot(t)
	a, _ := loadAction(t, filepath.Join(root, "action.yml"))
	if with["upload-sarif"] != "true" {
		t.Errorf("the example should show the SARIF upload, with is %v", with)
	}

	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"k8s/api.yaml": badPod, "k8s/web.yaml": goodPod})
	r := releasedRunner(t, a, root, ws, with) // fails on inputs action.yml lacks
	r.run()
	if r.failedStep != "Fail on findings" || r.exitCode != 1 {
		t.Errorf("step %q exited %d; want the last step to fail with 1:\n%s", r.failedStep, r.exitCode, &r.log)
	}
	upload := slices.IndexFunc(r.skipped, func(s actionStep) bool { return strings.Contains(s.Uses, "upload-sarif") })
	if upload < 0 {
		t.Fatal("upload-sarif: true, but the upload step would not run")
	}
	if ids := sarifResults(t, r.skipped[upload].With["sarif_file"]); !slices.Equal(ids, []string{"PL113"}) {
		t.Errorf("the uploaded SARIF would hold %v, want [PL113]", ids)
	}
}

// TestCIDocGitHubCharts runs the action as the chart example configures
// it, on a chart and a kustomization overlay: both are rendered by podlint
// with no step before it, and the findings are annotated in the template
// and the patch.
func TestCIDocGitHubCharts(t *testing.T) {
	t.Parallel() // runs programs in folders of its own; never changes the working directory or the environment
	_, with := snippetWorkflow(t, "github-charts")
	root := repoRoot(t)
	a, _ := loadAction(t, filepath.Join(root, "action.yml"))
	ws := t.TempDir()
	files := shopChart("charts/shop", false)
	// The values file the example passes breaks the liveness probe.
	files["charts/shop/ci/prod-values.yaml"] = "livenessProbe:\n  httpGet: {path: /healthz, port: 8080}\n  successThreshold: 3\n"
	for k, v := range map[string]string{
		"deploy/base/kustomization.yaml": "resources: [api.yaml]\n",
		"deploy/base/api.yaml":           goodPod,
		"deploy/prod/kustomization.yaml": "resources: [../base]\npatches:\n  - path: never.yaml\n",
		"deploy/prod/never.yaml":         "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  restartPolicy: Never\n  containers:\n    - name: app\n      livenessProbe:\n        exec: {command: [\"true\"]}\n",
	} {
		files[k] = v
	}
	writeFiles(t, ws, files)
	r := releasedRunner(t, a, root, ws, with)
	r.run()
	if r.failedStep != "Fail on findings" || r.exitCode != 1 {
		t.Fatalf("step %q exited %d; want the last step to fail with 1:\n%s", r.failedStep, r.exitCode, &r.log)
	}
	log := r.log.String()
	for _, want := range []string{
		fmt.Sprintf("::error file=charts/shop/templates/deployment.yaml,line=%d,", shopChartLine),
		"::warning file=deploy/prod/never.yaml,line=9,",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks the annotation %s:\n%s", want, log)
		}
	}
	if strings.Contains(log, "helm-template") || strings.Contains(log, "PL005") {
		t.Errorf("chart templates were linted as files:\n%s", log)
	}
}

// gitlabJob is the part of a .gitlab-ci.yml job the snippet uses.
type gitlabJob struct {
	Stage        string   `yaml:"stage"`
	Image        string   `yaml:"image"`
	BeforeScript []string `yaml:"before_script"`
	Script       []string `yaml:"script"`
	Artifacts    struct {
		When    string            `yaml:"when"`
		Reports map[string]string `yaml:"reports"`
	} `yaml:"artifacts"`
}

// TestCIDocGitLab runs the GitLab job's script lines with bash, the way a
// GitLab runner does (each line must succeed, the first failure fails the
// job), with a freshly built podlint on PATH, and checks the reports
// against the shapes GitLab documents.
func TestCIDocGitLab(t *testing.T) {
	t.Parallel() // runs programs in folders of its own; never changes the working directory or the environment
	var cfg map[string]gitlabJob
	dec := yaml.NewDecoder(strings.NewReader(snippet(t, "gitlab-ci")))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		t.Fatalf("the GitLab job does not decode: %v", err)
	}
	job, ok := cfg["podlint"]
	if !ok {
		t.Fatal("no podlint job")
	}
	// before_script installs podlint from the network, which the test cannot
	// do; it checks the package path instead and builds the binary itself.
	gomod, err := os.ReadFile(filepath.Join(repoRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	module := regexp.MustCompile(`(?m)^module (\S+)$`).FindSubmatch(gomod)
	if len(job.BeforeScript) != 1 || !strings.HasPrefix(job.BeforeScript[0], "go install "+string(module[1])+"/cmd/...@") {
		t.Errorf("before_script should go install %s/cmd/... (podlint and the podlint-render and podlint-observe it starts), is %q", module[1], job.BeforeScript)
	}
	if job.Artifacts.When != "always" || job.Artifacts.Reports["codequality"] == "" || job.Artifacts.Reports["junit"] == "" {
		t.Fatalf("the job must keep codequality and junit reports when it fails: %+v", job.Artifacts)
	}
	bin := podlintBinary(t)

	run := func(t *testing.T, files map[string]string) (int, string) {
		ws := t.TempDir()
		writeFiles(t, ws, files)
		var log strings.Builder
		for _, line := range job.Script {
			cmd := exec.Command("bash", "-e", "-c", line)
			cmd.Dir = ws
			cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
			out, err := cmd.CombinedOutput()
			fmt.Fprintf(&log, "$ %s\n%s", line, out)
			if ee, ok := err.(*exec.ExitError); ok {
				return ee.ExitCode(), ws
			} else if err != nil {
				t.Fatal(err)
			}
		}
		return 0, ws
	}

	t.Run("clean", func(t *testing.T) {
		code, ws := run(t, map[string]string{"k8s/web.yaml": goodPod})
		if code != 0 {
			t.Errorf("job failed with %d on a good manifest", code)
		}
		if issues := checkCodeQuality(t, filepath.Join(ws, job.Artifacts.Reports["codequality"])); len(issues) != 0 {
			t.Errorf("code quality issues on a good manifest: %v", issues)
		}
		if tests, failures := checkJUnit(t, filepath.Join(ws, job.Artifacts.Reports["junit"])); tests != 1 || failures != 0 {
			t.Errorf("junit: %d tests, %d failures; want the one passing test case", tests, failures)
		}
	})
	t.Run("failing", func(t *testing.T) {
		code, ws := run(t, map[string]string{"k8s/web.yaml": goodPod, "k8s/api.yaml": badPod})
		if code != 1 {
			t.Errorf("job exited %d on a bad manifest, want 1", code)
		}
		issues := checkCodeQuality(t, filepath.Join(ws, job.Artifacts.Reports["codequality"]))
		if want := fmt.Sprintf("PL113 k8s/api.yaml:%d", badPodLine); !slices.Equal(issues, []string{want}) {
			t.Errorf("code quality issues %v, want [%s]", issues, want)
		}
		if tests, failures := checkJUnit(t, filepath.Join(ws, job.Artifacts.Reports["junit"])); tests != 1 || failures != 1 {
			t.Errorf("junit: %d tests, %d failures; want 1, 1", tests, failures)
		}
	})
}

// checkCodeQuality validates a report against GitLab's documented Code
// Quality format (a JSON array of issues with description, check_name,
// fingerprint, severity and location.path / location.lines.begin), read
// as plain JSON rather than through podlint's own Go type, and returns
// "check path:line" per issue.
func checkCodeQuality(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("code quality report: %v", err)
	}
	var issues []map[string]any
	if err := json.Unmarshal(data, &issues); err != nil || issues == nil {
		t.Fatalf("code quality report is not a JSON array (%v):\n%s", err, data)
	}
	out := []string{}
	seen := map[string]bool{}
	for i, is := range issues {
		str := func(k string) string { s, _ := is[k].(string); return s }
		for _, k := range []string{"description", "check_name", "fingerprint", "severity"} {
			if str(k) == "" {
				t.Errorf("issue %d: %s missing or not a string", i, k)
			}
		}
		if !slices.Contains([]string{"info", "minor", "major", "critical", "blocker"}, str("severity")) {
			t.Errorf("issue %d: severity %q is not one GitLab knows", i, str("severity"))
		}
		if seen[str("fingerprint")] {
			t.Errorf("issue %d: duplicate fingerprint (GitLab drops the issue)", i)
		}
		seen[str("fingerprint")] = true
		loc, _ := is["location"].(map[string]any)
		p, _ := loc["path"].(string)
		lines, _ := loc["lines"].(map[string]any)
		begin, ok := lines["begin"].(float64)
		if p == "" || filepath.IsAbs(p) || !ok || begin < 1 || begin != float64(int(begin)) {
			t.Errorf("issue %d: location %v needs a relative path and lines.begin ≥ 1", i, is["location"])
		}
		out = append(out, fmt.Sprintf("%s %s:%d", strings.Fields(str("check_name"))[0], p, int(begin)))
	}
	return out
}

// checkJUnit parses a JUnit report the way GitLab and Jenkins do and returns
// its test and failure counts, checking the totals against the test cases.
func checkJUnit(t *testing.T, path string) (tests, failures int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("junit report: %v", err)
	}
	var doc struct {
		XMLName xml.Name
		Tests   int `xml:"tests,attr"`
		Suites  []struct {
			Tests int `xml:"tests,attr"`
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("junit report is not XML: %v\n%s", err, data)
	}
	if doc.XMLName.Local != "testsuites" || len(doc.Suites) == 0 {
		t.Fatalf("junit root is <%s> with %d suites, want <testsuites> with suites", doc.XMLName.Local, len(doc.Suites))
	}
	for _, s := range doc.Suites {
		if s.Tests != len(s.Cases) {
			t.Errorf("suite says tests=%d but has %d test cases", s.Tests, len(s.Cases))
		}
		for _, c := range s.Cases {
			tests++
			if c.Failure != nil {
				failures++
			}
		}
	}
	if doc.Tests != tests {
		t.Errorf("testsuites says tests=%d, the suites hold %d", doc.Tests, tests)
	}
	return tests, failures
}

// helmRendered is what `helm template shop ./shop` prints for a small
// chart: "---" and a "# Source:" comment before every document, labels
// from the chart's helpers, and a test hook.
const helmRendered = `---
# Source: shop/templates/serviceaccount.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: shop
  labels:
    helm.sh/chart: shop-0.1.0
    app.kubernetes.io/name: shop
    app.kubernetes.io/instance: shop
    app.kubernetes.io/version: "1.16.0"
    app.kubernetes.io/managed-by: Helm
---
# Source: shop/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: shop
  labels:
    helm.sh/chart: shop-0.1.0
    app.kubernetes.io/name: shop
    app.kubernetes.io/instance: shop
spec:
  type: ClusterIP
  ports:
    - port: 80
      targetPort: http
      protocol: TCP
      name: http
  selector:
    app.kubernetes.io/name: shop
    app.kubernetes.io/instance: shop
---
# Source: shop/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
  labels:
    helm.sh/chart: shop-0.1.0
    app.kubernetes.io/name: shop
    app.kubernetes.io/instance: shop
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: shop
      app.kubernetes.io/instance: shop
  template:
    metadata:
      labels:
        app.kubernetes.io/name: shop
        app.kubernetes.io/instance: shop
    spec:
      serviceAccountName: shop
      containers:
        - name: shop
          image: "nginx:1.16.0"
          imagePullPolicy: IfNotPresent
          ports:
            - name: http
              containerPort: 80
              protocol: TCP
          livenessProbe:
            httpGet:
              path: /
              port: http
            successThreshold: 2
          readinessProbe:
            httpGet:
              path: /
              port: http
---
# Source: shop/templates/tests/test-connection.yaml
apiVersion: v1
kind: Pod
metadata:
  name: "shop-test-connection"
  labels:
    helm.sh/chart: shop-0.1.0
  annotations:
    "helm.sh/hook": test
spec:
  containers:
    - name: wget
      image: busybox
      command: ['wget']
      args: ['shop:80']
  restartPolicy: Never
`

// pipeArgs turns the podlint half of a documented pipe into cli.Run
// arguments.
func pipeArgs(t *testing.T, name string) []string {
	t.Helper()
	line := strings.TrimSpace(snippet(t, name))
	_, right, ok := strings.Cut(line, "|")
	fields := strings.Fields(right)
	if !ok || len(fields) < 3 || fields[0] != "podlint" || !slices.Contains(fields, "-") {
		t.Fatalf("the %s snippet should pipe into podlint check -: %q", name, line)
	}
	return fields[1:]
}

func TestCIDocHelm(t *testing.T) {
	args := pipeArgs(t, "helm")
	code, out, errOut := runCLI(t, t.TempDir(), helmRendered, args...)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	line := 1 + strings.Count(helmRendered[:strings.Index(helmRendered, "successThreshold: 2")], "\n")
	want := fmt.Sprintf("<stdin>:%d:", line)
	// The template is named at the end of each finding's detail, which the
	// text format wraps: compare with the line breaks folded.
	folded := strings.Join(strings.Fields(out), " ")
	if !strings.Contains(out, want) || !regexp.MustCompile(`successThreshold 2, but only 1 is allowed \[PL113[^<]*Rendered from shop/templates/deployment\.yaml\.`).MatchString(folded) {
		t.Errorf("want the finding at %s, rendered from shop/templates/deployment.yaml:\n%s", want, out)
	}
	// Every finding names the template of the document its line is in.
	sourceAt := map[int]string{}
	source := ""
	for i, l := range strings.Split(helmRendered, "\n") {
		if s, ok := strings.CutPrefix(l, "# Source: "); ok {
			source = s
		}
		sourceAt[i+1] = source
	}
	// Each finding is its block of lines up to the blank line after it.
	findings := regexp.MustCompile(`(?ms)^<stdin>:(\d+):\d+: \w+: .*?\n\n`).FindAllStringSubmatch(out, -1)
	if len(findings) == 0 {
		t.Fatalf("no findings in\n%s", out)
	}
	for _, f := range findings {
		n, _ := strconv.Atoi(f[1])
		if want := "Rendered from " + sourceAt[n] + "."; !strings.Contains(strings.Join(strings.Fields(f[0]), " "), want) {
			t.Errorf("finding on line %d does not say %s: %s", n, want, f[0])
		}
	}

	// --stdin-filename names the stream in machine formats too.
	code, out, _ = runCLI(t, "", helmRendered, append(args, "--stdin-filename", "rendered/shop.yaml", "-f", "github")...)
	if want := fmt.Sprintf("::error file=rendered/shop.yaml,line=%d,", line); code != 1 || !strings.Contains(out, want) ||
		!strings.Contains(out, "Rendered from shop/templates/deployment.yaml.") {
		t.Errorf("exit %d, want 1 and %s … rendered from:\n%s", code, want, out)
	}

	// A chart directory is rendered in process: the finding is in the
	// template, the value's line in values.yaml is related, no hint.
	dir := t.TempDir()
	writeFiles(t, dir, shopChart("shop", true))
	code, out, errOut = runCLI(t, dir, "", "check", "shop")
	if errOut != "" || code != 1 || !strings.Contains(out, fmt.Sprintf("shop/templates/deployment.yaml:%d:", shopChartLine)) ||
		!strings.Contains(out, "[PL113") || !strings.Contains(out, "shop/values.yaml:5:") || strings.Contains(out, "helm-template") {
		t.Errorf("exit %d, stderr %q; want PL113 in the template, values.yaml related:\n%s", code, errOut, out)
	}
	// --render=never is the old way: templates are helm-template, with a hint.
	code, out, errOut = runCLI(t, dir, "", "check", "--render=never", "shop")
	if !strings.Contains(errOut, `podlint: hint: "shop" is a Helm chart`) || code != 1 || !strings.Contains(out, "helm-template") {
		t.Errorf("--render=never: exit %d:\n%s%s", code, out, errOut)
	}
}

func TestCIDocKustomize(t *testing.T) {
	args := pipeArgs(t, "kustomize")
	// kustomize build output: documents sorted by kind, no comments.
	rendered := strings.ReplaceAll(helmRendered, "\n# Source: ", "\n# ")
	rendered = regexp.MustCompile(`(?m)^# .*\n`).ReplaceAllString(rendered, "")
	code, out, errOut := runCLI(t, t.TempDir(), rendered, args...)
	if code != 1 || !strings.Contains(out, "<stdin>:") || !strings.Contains(out, "PL113") || strings.Contains(out, "rendered from") {
		t.Errorf("exit %d; want the PL113 finding on <stdin> and no template name:\n%s%s", code, out, errOut)
	}

	// A kustomization directory is built in process, its patches applied:
	// the overlay's patch fixes the base's PL113, and adds a PL110.
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"base/kustomization.yaml": "resources: [api.yaml]\n",
		"base/api.yaml":           badPod,
		"prod/kustomization.yaml": "resources: [../base]\npatches:\n  - path: probe.yaml\n",
		"prod/probe.yaml":         "apiVersion: v1\nkind: Pod\nmetadata:\n  name: api\nspec:\n  restartPolicy: Never\n  containers:\n    - name: app\n      livenessProbe:\n        successThreshold: 1\n",
	})
	code, out, errOut = runCLI(t, dir, "", "check", ".")
	if errOut != "" || code != 0 || strings.Contains(out, "PL113") || !strings.Contains(out, "prod/probe.yaml:6:") || !strings.Contains(out, "PL110") {
		t.Errorf("exit %d, stderr %q; want the patched Pod: no PL113, PL110 at the patch's restartPolicy:\n%s", code, errOut, out)
	}
	if !strings.Contains(out, "rendered prod (kustomization), also rendering base") {
		t.Errorf("the summary should say the base was rendered through the overlay:\n%s", out)
	}
	// --render=never lints the files one by one, with a hint.
	code, out, errOut = runCLI(t, dir, "", "check", "--render=never", "base")
	if !strings.Contains(errOut, `podlint: hint: "base" is a kustomization`) || !strings.Contains(errOut, `kustomize build "base" | podlint check -`) {
		t.Errorf("no kustomize hint on stderr:\n%s", errOut)
	}
	if code != 1 || !strings.Contains(out, fmt.Sprintf("base/api.yaml:%d:", badPodLine)) || strings.Contains(out, "kustomization.yaml") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
