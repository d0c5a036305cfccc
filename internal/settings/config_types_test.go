package settings

import (
	"strings"
	"testing"
)

// TestConfigTypeErrors: a value of the wrong type in .podlint.yaml is
// reported on one line with the key, its line, the type wanted and an
// example, not as yaml.v3's "unmarshal errors:\n  line 1: cannot
// unmarshal !!seq into string".
func TestConfigTypeErrors(t *testing.T) {
	for _, tc := range []struct{ config, want string }{
		{"fail-on: [warning]\n", `x.yaml:1: "fail-on" is a list; want a string, e.g. fail-on: warning`},
		{"kube-version: 1.30\nexclude: vendor/**\n", `x.yaml:2: "exclude" is the string "vendor/**"; want a list of strings, e.g. exclude: [vendor/**, "**/testdata/**"]`},
		{"nodes: three\n", `x.yaml:1: "nodes" is the string "three"; want a whole number, e.g. nodes: 3`},
		{"render-cpu: {a: 1}\n", `x.yaml:1: "render-cpu" is a mapping; want a string, e.g. render-cpu: 10s`},
		{"rules:\n  PL101: [warning]\n", `x.yaml:2: "rules.PL101" is a list; want a severity: error, warning, info or off`},
		{"charts:\n  deploy/chart:\n    values: prod.yaml\n", `x.yaml:3: "charts.deploy/chart.values" is the string "prod.yaml"; want a list of strings, e.g. values: [ci/prod-values.yaml]`},
		{"fail-on: [a]\nnodes: " + strings.Repeat("x", 5000) + "\n", `x.yaml:1: "fail-on" is a list`},
		{"nodes: " + strings.Repeat("x", 5000) + "\n", `x.yaml:1: "nodes" is the string "` + strings.Repeat("x", 60) + `…"; want a whole number`},
		{"enable: [[PL009]]\n", `x.yaml:1: "enable" is a list; want a list of strings, e.g. ` + configExamples["enable"]},
	} {
		_, err := parseConfig("x.yaml", []byte(tc.config))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "unmarshal") {
			t.Errorf("%q: error %v; want one line containing %q", tc.config, err, tc.want)
		}
	}
	// Values of the right type, a number where a string is wanted
	// included (kube-version: 1.30 is a YAML float, and a string to Go),
	// pass.
	for _, ok := range []string{"kube-version: 1.30\nnodes: 3\nfail-on: warning\nrules: {PL101: off}\n", "exclude: []\nenable:\n"} {
		if _, err := parseConfig("x.yaml", []byte(ok)); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}
