package settings

import (
	"cmp"
	"fmt"

	"github.com/podlint/podlint/internal/textsafe"
)

// The trust split between the command line and configuration files, in
// one place (SECURITY.md, "Configuration from the repository").
//
// A flag is chosen by whoever runs podlint: the user at a terminal, or the
// workflow (its `with:` inputs), which a pull request's author does not
// control where it matters (pull_request_target, protected branches). A
// configuration file is not: one found by searching comes with the
// checkout, and one named with --config (the Action's config input) is
// almost always a file of that same checkout, so a pull request can write
// either. A configuration may therefore make a run cheaper or narrower
// (lower a limit, exclude files, turn rules off), never more expensive or
// wider: each setting below that bounds what a run costs is capped at its
// default when it comes from a configuration, with a warning that names
// the key, the value and the ceiling rather than a silent clamp. What a
// configuration reads beyond the linted paths (the values files under
// charts:) is confined to its repository (valuesInRepo).
//
// configTrust classifies every key of .podlint.yaml (TestConfigTrust holds
// a new key to it): true for a limit, which trustedLimit caps at its
// default; false for a key that cannot make a run cost more or read more.
// The input limits (--max-file-size, --max-documents, --max-depth,
// --max-nodes) have no configuration key at all.
var configTrust = map[string]bool{
	"render-cpu":        true,
	"render-memory":     true,
	"render-timeout":    true,
	"render-max-output": true,
	"render-budget":     true,
	// What fails the run and what is shown: no cost.
	"fail-on": false, "kube-version": false, "enable": false, "disable": false, "rules": false,
	// Only ever fewer files.
	"exclude": false,
	// Model parameters: numbers in the computed timelines, no loop runs
	// over them.
	"nodes": false, "expected-startup": false, "expected-shutdown": false,
	// A profile only lengthens expectations and adds findings; it is
	// read inside the repository and smaller (observedProfile).
	"observed": false,
	// auto is the default; never renders nothing.
	"render": false,
	// Helm options: the values files are confined to the configuration's
	// repository (valuesInRepo); --set values and names are text the
	// render limits already bound.
	"charts": false,
	// fix.never only takes fixes away.
	"fix": false,
	// Policies only add checks: the workflow's (--policy) cannot be
	// redefined, and the rule cannot be turned off or fail-on raised
	// past error while they apply (policySetup).
	"policies": false,
}

// trustedLimit is one limit of a run: the flag's value when given (the
// command line is trusted as it is), else the configuration's when it is
// at most the default, else the default. parse reads a value (the error
// says what is wanted), show prints one as the flags take it.
func trustedLimit[T cmp.Ordered](cfg *Config, key, flag, config string, def T, parse func(string) (T, error), show func(T) string,
	warnf func(format string, args ...any)) (T, error) {
	if flag != "" {
		v, err := parse(flag)
		if err != nil {
			return def, fmt.Errorf("--%s %s: %v", key, textsafe.Quote(flag), err)
		}
		return v, nil
	}
	if config == "" {
		return def, nil
	}
	where := cfg.setting(false, key)
	v, err := parse(config)
	if err != nil {
		return def, fmt.Errorf("%s %s: %v", where, textsafe.Quote(config), err)
	}
	if v > def {
		warnf("%s: %s is above the default %s, and a configuration file may only lower a limit, never raise it "+
			"(it can come with the pull request being checked); using %s. Raise it on the command line, "+
			"with --%s %s (in the GitHub Action, the args input)", where, textsafe.Quote(config), show(def), show(def), key, config)
		return def, nil
	}
	return v, nil
}
