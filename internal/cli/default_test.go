package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/manifest"
)

// TestCheckRunsDefault: podlint check with no flag and no configuration
// file reports what analyzer.Default() finds, so that the tests which start
// from Default test what users run. Compared on the examples and the
// corpus of real manifests: every finding's rule, severity, position,
// headline and detail (the details carry the model's numbers).
func TestCheckRunsDefault(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	paths := []string{filepath.Join("testdata", "examples"), filepath.Join("testdata", "corpus")}
	var out, errb bytes.Buffer
	Run(append([]string{"podlint", "check", "-f", "json"}, paths...), strings.NewReader(""), &out, &errb)
	var report struct {
		Findings []struct {
			ID, Severity, File, Message, Detail string
			Line, Column                        int
		}
		Summary struct{ ConfigFile string }
	}
	if err := json.Unmarshal(out.Bytes(), &report); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if report.Summary.ConfigFile != "" {
		t.Fatalf("the run read %s: the test needs no configuration", report.Summary.ConfigFile)
	}
	var cli []string
	for _, f := range report.Findings {
		cli = append(cli, fmt.Sprintf("%s:%d:%d: %s %s: %s %s", f.File, f.Line, f.Column, f.Severity, f.ID, f.Message, f.Detail))
	}

	srcs, _, errs := manifest.Discover(paths, nil, false)
	res, runErrs := analyzer.Run(analyzer.Default(), analyzer.Options{}, srcs)
	if errs = append(errs, runErrs...); len(errs) > 0 {
		t.Fatal(errs)
	}
	var def []string
	for _, f := range res.List() {
		def = append(def, fmt.Sprintf("%s:%d:%d: %s %s: %s %s", f.File, f.Line, f.Column, f.Severity, f.RuleID, f.Message, f.Detail))
	}
	if len(cli) < 40 {
		t.Fatalf("check found %d findings: too few to compare", len(cli))
	}
	for i := range max(len(cli), len(def)) {
		var c, d string
		if i < len(cli) {
			c = cli[i]
		}
		if i < len(def) {
			d = def[i]
		}
		if c != d {
			t.Fatalf("finding %d of %d/%d differs:\ncheck:             %s\nanalyzer.Default: %s", i+1, len(cli), len(def), c, d)
		}
	}
}
