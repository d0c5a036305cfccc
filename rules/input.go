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
}

var InvalidManifest = &Rule{
	ID: "PL002", Name: manifest.RuleInvalidManifest, Title: "manifest does not decode into its Kubernetes type",
	Severity: finding.Error,
}

var UnknownField = &Rule{
	ID: "PL003", Name: manifest.RuleUnknownField, Title: "field is not part of the Kubernetes API",
	Severity: finding.Error,
}

var DuplicateKey = &Rule{
	ID: "PL004", Name: manifest.RuleDuplicateKey, Title: "mapping key is defined twice",
	Severity: finding.Error,
	Fix: &FixDoc{Safety: finding.Safe, Text: "Deletes the first of the two keys, which the last one overrides: safe when both have the same value, " +
		"unsafe otherwise (the first may be the one meant)."},
}

var HelmTemplate = &Rule{
	ID: "PL005", Name: manifest.RuleHelmTemplate, Title: "file is a Helm template, not a manifest",
	Severity: finding.Error,
}

var LimitExceeded = &Rule{
	ID: "PL006", Name: manifest.RuleLimitExceeded, Title: "input exceeds a safety limit",
	Severity: finding.Error,
}

var EmptyFile = &Rule{
	ID: "PL007", Name: "empty-file", Title: "file holds no YAML documents",
	Severity: finding.Info,
}

var UnusedSuppression = &Rule{
	ID: "PL008", Name: "unused-suppression", Title: "suppression matches no finding",
	Severity: finding.Warning,
}

var InternalError = &Rule{
	ID: "PL009", Name: "internal-error", Title: "a rule failed on this object",
	Severity: finding.Error,
}

var SuppressionMissingReason = &Rule{
	ID: "PL011", Name: "suppression-missing-reason", Title: "suppression gives no reason",
	Severity: finding.Warning,
}

var ChartRenderError = &Rule{
	ID: "PL012", Name: "chart-render-error", Title: "Helm chart or kustomization cannot be rendered",
	Severity: finding.Error,
}
