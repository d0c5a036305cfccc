// Package policy is an organisation's lifecycle requirements: what every
// workload of a kind, a namespace or a label must allow for (a startup
// budget, the earliest liveness kill, the time the grace period leaves after
// the preStop hook, how long a Job may run), read from a policy file or the
// policies key of .podlint.yaml, matched against each workload and checked
// against its computed timeline. It reads no file: the command line hands it
// the YAML and runs its check as rule PL801 (rules.Policy). docs/policies.md
// is the user's guide.
//
// It makes no API promise: it is podlint's own, serving its commands, and
// may change in any commit. Use the podlint command, not this package.
package policy

import (
	"fmt"
	"path"
	"reflect"
	"strings"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/textsafe"
	"github.com/podlint/podlint/timeline"
	yaml "go.yaml.in/yaml/v3"
)

// Schema is one policy as written: the keys and types a policy file and
// the policies key of .podlint.yaml are checked against (docs/policies.md
// documents each).
type Schema struct {
	Name        string        `yaml:"name"`
	Description string        `yaml:"description"`
	Severity    string        `yaml:"severity"`
	Match       MatchSchema   `yaml:"match"`
	Require     RequireSchema `yaml:"require"`
}

// MatchSchema selects the workloads a policy covers; an empty list or map
// selects every workload.
type MatchSchema struct {
	Kinds      []string          `yaml:"kinds"`
	Namespaces []string          `yaml:"namespaces"`
	Labels     map[string]string `yaml:"labels"`
}

// RequireSchema is what a policy requires, each a duration ("2m", "90s"
// or plain seconds); at least one must be set.
type RequireSchema struct {
	MinStartupBudget     string `yaml:"min-startup-budget"`
	MinLivenessKill      string `yaml:"min-liveness-kill"`
	MinGraceAfterPreStop string `yaml:"min-grace-after-prestop"`
	MaxJobTime           string `yaml:"max-job-time"`
}

// Examples shows each key of a policy with a value of its type, for the
// message that reports a value of another type.
var Examples = map[string]string{
	"policies":                "policies: [{name: prod-startup, require: {min-startup-budget: 2m}}]",
	"name":                    "name: prod-startup",
	"description":             "description: the load balancer deregisters a target in 30s",
	"severity":                "severity: warning",
	"match":                   "match: {kinds: [Deployment], namespaces: [prod-*]}",
	"kinds":                   "kinds: [Deployment, StatefulSet]",
	"namespaces":              `namespaces: ["prod-*"]`,
	"labels":                  "labels: {tier: web}",
	"require":                 "require: {min-startup-budget: 2m}",
	"min-startup-budget":      "min-startup-budget: 2m",
	"min-liveness-kill":       "min-liveness-kill: 60s",
	"min-grace-after-prestop": "min-grace-after-prestop: 30s",
	"max-job-time":            "max-job-time: 1h",
}

// Policy is one checked requirement.
type Policy struct {
	Name        string
	Description string
	Severity    finding.Severity
	Match       MatchSchema
	// Each bound is nil when the policy does not require it.
	MinStartupBudget, MinLivenessKill, MinGraceAfterPreStop, MaxJobTime *Bound
	// Source is where the policy is defined, "file:line".
	Source string
}

// Bound is a duration a policy states: its seconds and its text as
// written, which messages print.
type Bound struct {
	Seconds float64
	Text    string
}

// validName reports what a policy may be called, ^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$:
// findings print the name in their headline, so it is short and plain. It
// is a loop rather than that regexp, whose compilation at package init was
// 553 allocations of every podlint run's start-up (docs/performance.md).
func validName(s string) bool {
	if len(s) == 0 || len(s) > 40 {
		return false
	}
	for i := range len(s) {
		c := s[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// KeyChecker reports the first key of mapping n that struct type t has no
// yaml tag for, or a value of the wrong type, with the file, line and an
// example; prefix is n's path in the file ("policies[0]."). The command
// line's configuration checker is one, so that a policy's errors read as
// .podlint.yaml's do.
type KeyChecker func(n *yaml.Node, t reflect.Type, prefix string) error

// Reader is how the command line checks a policy as it checks its
// configuration: Keys checks the keys and types of a mapping, Describe
// says what a YAML value is ("a list", `the string "x"`) as its messages
// do.
type Reader struct {
	Keys     KeyChecker
	Describe func(*yaml.Node) string
}

// Decode reads the policies of n, the value of a policies key of the file
// at file: a list of policies. what starts an error, naming what the file
// is ("config", "--policy"), as the key checker's errors do.
func Decode(what, file string, n *yaml.Node, r Reader) ([]*Policy, error) {
	at := func(line int) string { return fmt.Sprintf("%s %s:%d", what, textsafe.Escape(file), line) }
	if n == nil || n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		return nil, nil
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s: policies is %s; want a list of policies, e.g. %s", at(n.Line), r.Describe(n), Examples["policies"])
	}
	var out []*Policy
	seen := map[string]string{}
	for i, item := range n.Content {
		prefix := fmt.Sprintf("policies[%d].", i)
		if item.Kind == yaml.AliasNode && item.Alias != nil {
			item = item.Alias
		}
		if item.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s: policies[%d] is %s; want a mapping, e.g. {name: prod-startup, require: {min-startup-budget: 2m}}",
				at(item.Line), i, r.Describe(item))
		}
		if err := r.Keys(item, reflect.TypeFor[Schema](), prefix); err != nil {
			return nil, err
		}
		var s Schema
		if err := item.Decode(&s); err != nil {
			return nil, fmt.Errorf("%s: %s%v", at(item.Line), prefix, err)
		}
		p, err := compile(s, func(key string) string {
			return fmt.Sprintf("%s: %s%s", at(lineOf(item, key)), prefix, key)
		})
		if err != nil {
			return nil, err
		}
		p.Source = fmt.Sprintf("%s:%d", file, item.Line)
		if first, dup := seen[p.Name]; dup {
			return nil, fmt.Errorf("%s: policy %s is defined twice, first at %s; give each policy its own name", at(item.Line), textsafe.Quote(p.Name), textsafe.Escape(first))
		}
		seen[p.Name] = p.Source
		out = append(out, p)
	}
	return out, nil
}

// compile checks the values of s; where names a key ("require.max-job-time")
// with its file and line for an error.
func compile(s Schema, where func(key string) string) (*Policy, error) {
	if !validName(s.Name) {
		if s.Name == "" {
			return nil, fmt.Errorf("%s: a policy needs a name, which its findings show, e.g. %s", where("name"), Examples["name"])
		}
		return nil, fmt.Errorf("%s: %s is not a policy name: 1 to 40 letters, digits, '.', '_' or '-', starting with a letter or digit, e.g. %s",
			where("name"), textsafe.Quote(s.Name), Examples["name"])
	}
	p := &Policy{Name: s.Name, Description: strings.TrimSpace(s.Description), Severity: finding.Error, Match: s.Match}
	if s.Severity != "" {
		sev, err := finding.ParseSeverity(s.Severity)
		if err != nil || sev == finding.Off {
			return nil, fmt.Errorf("%s: %s: want error, warning or info, e.g. %s", where("severity"), textsafe.Quote(s.Severity), Examples["severity"])
		}
		p.Severity = sev
	}
	for _, ns := range s.Match.Namespaces {
		if _, err := path.Match(ns, ""); err != nil {
			return nil, fmt.Errorf("%s: %s is not a glob (%v), e.g. %s", where("match.namespaces"), textsafe.Quote(ns), err, Examples["namespaces"])
		}
	}
	for _, k := range s.Match.Kinds {
		if k == "" || strings.ContainsAny(k, " */") {
			return nil, fmt.Errorf("%s: %s is not a kind; name kinds as the manifests do, e.g. %s", where("match.kinds"), textsafe.Quote(k), Examples["kinds"])
		}
	}
	for _, b := range []struct {
		key  string
		text string
		dst  **Bound
	}{
		{"min-startup-budget", s.Require.MinStartupBudget, &p.MinStartupBudget},
		{"min-liveness-kill", s.Require.MinLivenessKill, &p.MinLivenessKill},
		{"min-grace-after-prestop", s.Require.MinGraceAfterPreStop, &p.MinGraceAfterPreStop},
		{"max-job-time", s.Require.MaxJobTime, &p.MaxJobTime},
	} {
		if b.text == "" {
			continue
		}
		sec, err := timeline.ParseSeconds(b.text)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v, e.g. %s", where("require."+b.key), textsafe.Quote(b.text), err, Examples[b.key])
		}
		*b.dst = &Bound{Seconds: sec, Text: strings.TrimSpace(b.text)}
	}
	if p.MinStartupBudget == nil && p.MinLivenessKill == nil && p.MinGraceAfterPreStop == nil && p.MaxJobTime == nil {
		return nil, fmt.Errorf("%s: policy %s requires nothing; set at least one of min-startup-budget, min-liveness-kill, "+
			"min-grace-after-prestop and max-job-time, e.g. %s", where("require"), textsafe.Quote(p.Name), Examples["require"])
	}
	return p, nil
}

// lineOf is the line of the key at dotted path key in mapping n, or of the
// deepest part of it that is there.
func lineOf(n *yaml.Node, key string) int {
	line := n.Line
	for _, part := range strings.Split(key, ".") {
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == part {
				line, next = n.Content[i].Line, n.Content[i+1]
				break
			}
		}
		if next == nil {
			break
		}
		n = next
	}
	return line
}
