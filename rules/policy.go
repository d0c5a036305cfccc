package rules

import "github.com/podlint/podlint/finding"

// Policy reports the workloads that break an organisation's policies:
// lifecycle requirements stated in a policy file the workflow names
// (--policy) or in the repository's .podlint.yaml, checked against each
// workload's timeline (docs/policies.md). It has no Check of its own: the
// policies are the run's, so the command line gives the analyzer their
// check (analyzer.Linter.Checks, built by package policy), and the rule is
// off until a run states a policy. Each finding names its policy and has
// the policy's severity.
var Policy = &Rule{
	ID: "PL801", Name: "policy", Title: "workload breaks an organisation policy",
	Severity: finding.Error, DefaultOff: true, Audited: true,
}
