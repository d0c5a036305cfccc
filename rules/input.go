package rules

import (
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
)

// The input rules have no Check: the loader and the analyzer report them.
// They are rules all the same so that they can be disabled, re-levelled,
// suppressed and documented like any other.

var InvalidYAML = &Rule{
	ID: "PL001", Name: manifest.RuleInvalidYAML, Title: "file or document is not valid YAML",
	Severity: finding.Error,
	Doc: `The document cannot be parsed as YAML (or JSON), so ` + "`kubectl apply`" + ` refuses the whole file.
podlint reports the line of the syntax error and goes on with the other documents of the file,
because each document between ` + "`---`" + ` lines is parsed on its own.

Binary files, files that are not UTF-8 text, unknown anchors, documents whose aliases expand
out of all proportion (a "billion laughs" document, which kubectl's YAML decoder refuses as
"excessive aliasing") and other input that kubectl cannot read are reported under this rule too.

**Fix:** correct the syntax at the reported line: usually an indentation error, a tab used for
indentation, a missing space after ` + "`:`" + `, or an unclosed quote.`,
}

var InvalidManifest = &Rule{
	ID: "PL002", Name: manifest.RuleInvalidManifest, Title: "manifest does not decode into its Kubernetes type",
	Severity: finding.Error,
	Doc: `The YAML is valid but a value has the wrong type for its field, as in ` + "`command: [true]`" + `
(a list of strings holding a boolean), ` + "`containerPort: \"80\"`" + ` (a quoted number) or
` + "`replicas: ${REPLICAS}`" + ` (an unrendered placeholder). The API server, and kubectl before it,
reject the whole object, so nothing of it is applied. podlint decodes manifests exactly as kubectl
does (YAML 1.1 scalars: ` + "`yes`" + ` and ` + "`on`" + ` are booleans, ` + "`0644`" + ` is octal) and points at the value.

**Fix:** give the field a value of the type it expects: quote strings that look like numbers or
booleans (` + "`value: \"yes\"`" + `), unquote numbers, render templates before linting.`,
}

var UnknownField = &Rule{
	ID: "PL003", Name: manifest.RuleUnknownField, Title: "field is not part of the Kubernetes API",
	Severity: finding.Error,
	Doc: `A field name that the API does not define, usually a typo such as ` + "`initialDelaySecond`" + ` or
` + "`livenesProbe`" + `, or a field at the wrong level of indentation. With kubectl's default
` + "`--validate=strict`" + ` the apply fails; with validation off the API server silently drops the
field, so the probe, limit or hook you meant to set does not exist at runtime. Field names are
case-sensitive: ` + "`Image`" + ` is not ` + "`image`" + `.

podlint suggests the closest known field name.

**Fix:** correct the spelling or the indentation.`,
}

var DuplicateKey = &Rule{
	ID: "PL004", Name: manifest.RuleDuplicateKey, Title: "mapping key is defined twice",
	Severity: finding.Error,
	Doc: `A key appears twice in the same mapping. YAML forbids this; kubectl's YAML decoder keeps the last
value and strict validation rejects the object. Either way, one of the two values you wrote is
not what runs, and reviewers read the first one.

**Fix:** keep one of the two keys.`,
}

var HelmTemplate = &Rule{
	ID: "PL005", Name: manifest.RuleHelmTemplate, Title: "file is a Helm template, not a manifest",
	Severity: finding.Error,
	Doc: `The file contains Helm template actions (` + "`{{ .Values.x }}`" + `, ` + "`{{- if … }}`" + `), so it is not a
Kubernetes manifest until Helm renders it. podlint reports the file once and does not lint it.

podlint renders a chart itself when it walks the chart's folder (the folder holding ` + "`Chart.yaml`" + `) or
is given a file inside it, so this finding appears only for a template outside any chart, or with
` + "`--render=never`" + `.

**Fix:** lint the chart's folder (` + "`podlint check ./chart`" + `), or what Helm renders:
` + "`helm template my-release ./chart | podlint check -`" + `.`,
}

var LimitExceeded = &Rule{
	ID: "PL006", Name: manifest.RuleLimitExceeded, Title: "input exceeds a safety limit",
	Severity: finding.Error,
	Doc: `The input is larger or deeper than podlint's limits: a file over ` + "`--max-file-size`" + `, more documents
than ` + "`--max-documents`" + `, nesting deeper than ` + "`--max-depth`" + `, or a document that expands to more than
` + "`--max-nodes`" + ` nodes through YAML aliases and merge keys. Such input is either an accident (a
generated file, a binary) or hostile. The finding names the limit and its flag; the rest of the
input is still linted.

**Fix:** split the input, or raise the limit named in the message if the input is genuine.`,
}

var EmptyFile = &Rule{
	ID: "PL007", Name: "empty-file", Title: "file holds no YAML documents",
	Severity: finding.Info,
	Doc: `A file named on the command line (or standard input) is empty or holds only comments, so there
is nothing to lint. A generator that failed silently (` + "`helm template`" + ` with every resource disabled,
an empty ` + "`kustomize build`" + `) is the usual cause.

**Fix:** check the step that produced the file, or leave it out of the paths.`,
}

var UnusedSuppression = &Rule{
	ID: "PL008", Name: "unused-suppression", Title: "suppression matches no finding",
	Severity: finding.Warning,
	Doc: `An ` + "`ignore-check.podlint.dev/<rule>`" + ` annotation or a ` + "`# podlint:ignore <rule>`" + ` comment
suppresses nothing: the finding it was written for is gone, the rule name is misspelled, or the
comment is not on (or directly above) the line the finding points at. Stale suppressions hide
the next real finding, so podlint reports them.

**Fix:** delete the suppression, or correct the rule ID or name.`,
}

var InternalError = &Rule{
	ID: "PL009", Name: "internal-error", Title: "a rule failed on this object",
	Severity: finding.Error,
	Doc: `A rule crashed on this object. podlint reports it and goes on with the other rules and objects;
the object may have findings that were not reported.

**Fix:** please report the bug with the manifest that triggers it.`,
}

var SuppressionMissingReason = &Rule{
	ID: "PL011", Name: "suppression-missing-reason", Title: "suppression gives no reason",
	Severity: finding.Warning,
	Doc: `A suppression must say why the finding does not apply, so that the next reader can judge
whether it still holds: ` + "`ignore-check.podlint.dev/PL101: \"starts in 2s, measured\"`" + ` or
` + "`# podlint:ignore PL101 starts in 2s, measured`" + `. The suppression still applies.

**Fix:** add the reason after the rule name.`,
}

var ChartRenderError = &Rule{
	ID: "PL012", Name: "chart-render-error", Title: "Helm chart or kustomization cannot be rendered",
	Severity: finding.Error,
	Doc: `podlint renders Helm charts (a folder with ` + "`Chart.yaml`" + `) and kustomizations (a folder with
` + "`kustomization.yaml`" + `) itself, as ` + "`helm template`" + ` and ` + "`kustomize build`" + ` would, and lints what they
produce. This finding says that part of it could not be rendered, so its objects were not linted:

- a template does not parse or fails to execute: reported at the template line Helm names; the
  chart's other templates are still rendered and linted;
- a dependency declared in ` + "`Chart.yaml`" + ` is missing from ` + "`charts/`" + `: reported at its entry; the chart
  is rendered without it;
- a kustomization names a remote base (` + "`github.com/…`" + `, a URL): podlint never fetches over the
  network, so the kustomization is not built;
- a values file, a resource or a patch that does not exist, or any other error Helm or kustomize
  reports.

**Fix:** correct the template at the reported line; run ` + "`helm dependency build CHART`" + ` so the
dependencies are in ` + "`charts/`" + `; vendor remote bases into the repository, or lint the output of
` + "`kustomize build`" + ` through standard input. ` + "`--render=never`" + ` turns rendering off.`,
}
