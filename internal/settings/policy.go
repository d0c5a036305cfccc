package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/textsafe"
	"github.com/podlint/podlint/policy"
	"github.com/podlint/podlint/rules"
	yaml "go.yaml.in/yaml/v3"
)

// Organisation policies (docs/policies.md) come from two places that are
// trusted differently, as the limits of trust.go are. A file named with
// --policy is the workflow's choice, which a pull request's author does not
// control; the policies key of .podlint.yaml comes with the checkout, so a
// pull request can write it. The repository's configuration may therefore
// add policies but never take one of the workflow's away: it cannot
// redefine one (an error naming both places), turn rule PL801 off, or set
// fail-on above error while --policy is given (both ignored with a
// warning).

// policyFile is the shape of a file --policy names.
type policyFile struct {
	Policies yaml.Node `yaml:"policies"`
}

// policyReader checks a policy's keys and types as parseConfig checks the
// configuration's, with the same messages; what is "config" or "--policy".
func policyReader(what, path string) policy.Reader {
	return policy.Reader{
		Keys:     func(n *yaml.Node, t reflect.Type, prefix string) error { return checkKeys(what, path, n, t, prefix) },
		Describe: kindName,
	}
}

// loadPolicyFile reads the policies of a file --policy names. The file
// may be outside the repository being checked (the organisation's
// repository checked out beside it, the base branch's copy): the workflow
// names it, so it is read where it is, but as confined as a configuration
// found by searching (readConfined) within its own repository or folder:
// a regular file, no link out of it, no device, FIFO or kernel file.
func loadPolicyFile(path string) ([]*policy.Policy, error) {
	data, err := readConfined("--policy", "policy file", path, "name the file itself")
	if err != nil {
		return nil, err
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("--policy %s: the file is empty; it holds a list under policies:, e.g. %s", textsafe.Quote(path), policy.Examples["policies"])
		}
		return nil, fmt.Errorf("--policy %s: %s", textsafe.Quote(path), textsafe.Escape(err.Error()))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("--policy %s: holds more than one YAML document; a policy file is one mapping", textsafe.Quote(path))
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("--policy %s:%d: want a mapping with a policies list, e.g. %s", textsafe.Escape(path), doc.Line, policy.Examples["policies"])
	}
	if err := checkKeys("--policy", path, doc, reflect.TypeFor[policyFile](), ""); err != nil {
		return nil, err
	}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value == "policies" {
			return policy.Decode("--policy", path, doc.Content[i+1], policyReader("--policy", path))
		}
	}
	return nil, fmt.Errorf("--policy %s: holds no policies key, e.g. %s", textsafe.Quote(path), policy.Examples["policies"])
}

// policySetup reads the policies of the run (the files --policy names,
// then the configuration's) and gives rule PL801 their check. Without a
// policy the rule stays as the rules and flags set it: off.
func (s *Settings) policySetup(f *Flags, warnf func(format string, args ...any)) error {
	var workflow []*policy.Policy
	for _, f := range f.Policy {
		list, err := loadPolicyFile(f)
		if err != nil {
			return err
		}
		workflow = append(workflow, list...)
	}
	// Named as reports name the configuration (relative to the working
	// directory), so that findings do not depend on where the checkout is.
	name := s.ConfigName()
	repo, err := policy.Decode("config", name, &s.Config.Policies, policyReader("config", name))
	if err != nil {
		return err
	}
	all, err := joinPolicies(workflow, repo)
	if err != nil {
		return err
	}
	if len(all) == 0 {
		return nil
	}
	s.Linter.Checks = map[*rules.Rule]func(*rules.Pass){rules.Policy: policy.Check(all)}
	off := namesRule(f.Disable, rules.Policy)
	configOff := namesRule(s.Config.Disable, rules.Policy)
	for k, v := range s.Config.Rules {
		if rules.Lookup(k) == rules.Policy {
			sev, _ := finding.ParseSeverity(v)
			configOff = configOff || sev == finding.Off
		}
	}
	if len(workflow) > 0 {
		if configOff {
			warnf("%s turns rule %s (%s) off, which a configuration may not do while --policy is given "+
				"(it can come with the pull request being checked); the workflow's policies are checked", s.Config.path, rules.Policy.ID, rules.Policy.Name)
			configOff = false
		}
		if !f.FailOnSet && s.FailOn > finding.Error { // never
			warnf("%s: %s would let findings of the workflow's policies pass, and a configuration may not set fail-on above error "+
				"while --policy is given (it can come with the pull request being checked); using error. Set it on the command line, with --fail-on",
				s.Config.setting(false, "fail-on"), textsafe.Quote(s.Config.FailOn))
			s.FailOn = finding.Error
		}
	}
	if !off && !configOff {
		s.Linter.Severity[rules.Policy] = rules.Policy.Severity // each finding has its policy's
	}
	return nil
}

// joinPolicies is the workflow's policies, then the repository's: a
// repository policy named like one of the workflow's is an error, since
// it would replace or weaken it.
func joinPolicies(workflow, repo []*policy.Policy) ([]*policy.Policy, error) {
	byName := map[string]*policy.Policy{}
	for _, p := range workflow {
		if first, dup := byName[p.Name]; dup {
			return nil, fmt.Errorf("--policy %s: policy %s is defined twice, first at %s; give each policy its own name",
				textsafe.Escape(p.Source), textsafe.Quote(p.Name), textsafe.Escape(first.Source))
		}
		byName[p.Name] = p
	}
	for _, p := range repo {
		if w := byName[p.Name]; w != nil {
			return nil, fmt.Errorf("config %s: policy %s is the workflow's, defined at %s (--policy); the repository's configuration "+
				"may add policies but not replace one, since it can come with the pull request being checked: rename this one, or change the workflow's file",
				textsafe.Escape(p.Source), textsafe.Quote(p.Name), textsafe.Escape(w.Source))
		}
	}
	return append(workflow, repo...), nil
}

// namesRule reports whether a list of rules as the flags and the
// configuration give them (IDs or names, comma separated) names r.
func namesRule(names []string, r *rules.Rule) bool {
	for _, n := range names {
		for _, part := range strings.Split(n, ",") {
			if rules.Lookup(strings.TrimSpace(part)) == r {
				return true
			}
		}
	}
	return false
}
