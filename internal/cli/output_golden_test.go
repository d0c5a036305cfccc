package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlint/podlint/internal/testcorpus"
)

// outputSets are the inputs of the output goldens: the shipped examples, a
// small hand-written sample of the kinds of manifests a repository holds
// (errors, warnings and infos in four files), and the committed sample
// corpus of 360 real manifests.
var outputSets = map[string]string{
	"examples": "testdata/examples",
	"sample":   "internal/cli/testdata/sample",
	"corpus":   "testdata/corpus",
}

// outputVariants are the command lines every set is rendered with.
var outputVariants = []struct {
	name, columns string
	args          []string
}{
	{"text-80", "80", nil},
	{"text-120", "120", nil},
	{"text-brief", "", []string{"--brief"}},
	{"text-show-warning", "", []string{"--show", "warning"}},
	{"json", "", []string{"-f", "json"}},
	{"sarif", "", []string{"-f", "sarif"}},
	{"junit", "", []string{"-f", "junit"}},
	{"codeclimate", "", []string{"-f", "codeclimate"}},
	{"markdown", "", []string{"-f", "markdown"}},
	{"github", "", []string{"-f", "github"}},
}

// TestOutputGolden renders every set in every variant through cli.Run from
// the repository root and compares with internal/cli/testdata/output/
// (go test ./internal/cli -run TestOutputGolden -update rewrites them).
func TestOutputGolden(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	t.Setenv("NO_COLOR", "1")
	ruleArgs := goldenRuleArgs(t)
	for set, path := range outputSets {
		for _, v := range outputVariants {
			if set == "corpus" && v.name == "github" {
				continue // the format is covered on the small sets; keep the goldens small
			}
			name := set + "." + v.name + ".golden"
			t.Run(name, func(t *testing.T) {
				t.Setenv("COLUMNS", v.columns)
				args := append(append([]string{"podlint", "check", "--no-config"}, ruleArgs...), v.args...)
				var out, errb bytes.Buffer
				if code := Run(append(args, path), strings.NewReader(""), &out, &errb); code != ExitFindings {
					t.Fatalf("exit %d, want 1: %s", code, errb.String())
				}
				golden := goldenOf(t, v.name, out.Bytes())
				file := filepath.Join("internal", "cli", "testdata", "output", name)
				if *update {
					if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(file, golden, 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(file)
				if err != nil {
					t.Fatalf("%v (go test ./internal/cli -run TestOutputGolden -update creates it)", err)
				}
				if !bytes.Equal(golden, want) {
					t.Errorf("%s differs (go test ./internal/cli -run TestOutputGolden -update rewrites it)\n--- got\n%s", name, golden)
				}
			})
		}
	}
}

// TestTextWidth checks what the goldens show: details wrap within the
// width, and errors lead the per-rule summary.
func TestTextWidth(t *testing.T) {
	for _, width := range []int{80, 120} {
		data, err := os.ReadFile(filepath.Join("testdata", "output", "sample.text-"+map[int]string{80: "80", 120: "120"}[width]+".golden"))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "  ") && !strings.Contains(l, ": ") && len([]rune(l)) > width {
				t.Errorf("width %d: detail line of %d characters: %q", width, len([]rune(l)), l)
			}
		}
		summary := string(data)[strings.LastIndex(string(data), "\nrule "):]
		if e, w := strings.Index(summary, " error "), strings.Index(summary, " warning "); e < 0 || w < 0 || e > w {
			t.Errorf("width %d: errors do not lead the summary:\n%s", width, summary)
		}
	}
}

// TestCorpusSummary runs podlint over the committed sample corpus and, when
// present, the optional extra corpus (../shared/corpus or
// $PODLINT_EXTRA_CORPUS, see testcorpus): the text output must end with a
// per-rule summary that fits a screen and opens with the errors, and every
// headline must stay short.
func TestCorpusSummary(t *testing.T) {
	sets, err := testcorpus.Sets(t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("NO_COLOR", "1")
	t.Setenv("COLUMNS", "")
	for _, set := range sets {
		t.Run(set.Name, func(t *testing.T) {
			var out, errb bytes.Buffer
			Run([]string{"podlint", "check", "--no-config", set.Dir}, strings.NewReader(""), &out, &errb)
			text := out.String()
			i := strings.LastIndex(text, "\nrule ")
			if i < 0 {
				t.Fatalf("no per-rule summary at the end of the output")
			}
			summary := strings.Split(strings.TrimSpace(text[i:]), "\n")
			t.Logf("summary:\n%s", strings.Join(summary, "\n"))
			const screen = 24
			if len(summary) > screen {
				t.Errorf("the summary is %d lines, more than a screen", len(summary))
			}
			errorsSeen, seenOther := false, false
			for _, l := range summary[1:] {
				f := strings.Fields(l)
				if len(f) < 3 {
					break
				}
				if f[2] != "error" {
					seenOther = true
				} else if seenOther {
					t.Errorf("an error row comes after other severities: %q", l)
				} else {
					errorsSeen = true
				}
			}
			if !errorsSeen {
				t.Logf("no errors in %s", set.Name)
			}

			var js bytes.Buffer
			Run([]string{"podlint", "check", "--no-config", "-f", "json", set.Dir}, strings.NewReader(""), &js, &errb)
			var rep struct {
				Findings []struct{ ID, Message string }
			}
			if err := json.Unmarshal(js.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			for _, f := range rep.Findings {
				if n := len([]rune(f.Message)); n > 110 {
					t.Errorf("%s headline of %d characters: %q", f.ID, n, f.Message)
				}
			}
		})
	}
}
