package cli

import (
	"bytes"
	"io"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode"

	ucli "github.com/urfave/cli/v2"
)

// TestFlagsAreGrouped: every flag of check and timeline is in a group of
// flagGroups, and every name there is a flag, so --help shows no flag
// outside the groups.
func TestFlagsAreGrouped(t *testing.T) {
	known := map[string]bool{}
	for _, cmd := range App().Commands {
		if cmd.Name != "check" && cmd.Name != "timeline" {
			continue
		}
		for _, f := range cmd.Flags {
			name := f.Names()[0]
			known[name] = true
			if c, ok := f.(ucli.CategorizableFlag); !ok || c.GetCategory() == "" {
				t.Errorf("%s --%s is in no group of flagGroups", cmd.Name, name)
			}
		}
	}
	for g, names := range flagGroups {
		for _, n := range names {
			if !known[n] {
				t.Errorf("flagGroups[%q] names --%s, which is no flag of check or timeline", g, n)
			}
		}
	}
}

// TestHelpInPlainWords: --help of check and timeline shows the groups,
// uses no Greek letters (the model's symbols mean nothing to a reader of
// --help), and says how --start-time differs from --expected-startup.
func TestHelpInPlainWords(t *testing.T) {
	for _, cmd := range []string{"check", "timeline"} {
		if _, out, _ := run(t, t.TempDir(), nil, cmd, "--help"); !strings.Contains(out, "--help, -h") {
			t.Errorf("%s --help does not list --help, -h:\n%s", cmd, out)
		}
	}
	for _, cmd := range []string{"check", "timeline"} {
		code, out, errOut := run(t, "", nil, cmd, "--help")
		if code != ExitOK {
			t.Fatalf("%s --help: exit %d: %s", cmd, code, errOut)
		}
		for g := range flagGroups {
			if !strings.Contains(out, "\n   "+g+"\n") {
				t.Errorf("%s --help has no group %q:\n%s", cmd, g, out)
			}
		}
		for _, r := range out {
			if unicode.Is(unicode.Greek, r) {
				t.Errorf("%s --help uses the Greek letter %c", cmd, r)
			}
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "--start-time") && !strings.Contains(line, "--expected-startup") {
				t.Errorf("--start-time does not say how it differs from --expected-startup: %s", line)
			}
		}
	}
}

// TestHelpDefaultsOneStyle: every default in --help reads "(default: X)" at
// the end of its line, once, unquoted; no switch says "(default: false)";
// and podlint --help lists its global options without a category heading
// (the help flag shared with the commands once carried "Output" there).
func TestHelpDefaultsOneStyle(t *testing.T) {
	for _, cmd := range []string{"check", "fix", "timeline", "lsp"} {
		var out, errb bytes.Buffer
		Run([]string{"podlint", cmd, "--help"}, strings.NewReader(""), &out, &errb)
		for _, line := range strings.Split(out.String(), "\n") {
			if !strings.HasPrefix(strings.TrimSpace(line), "--") {
				continue
			}
			n := strings.Count(line, "(default")
			switch {
			case n > 1 || (n == 1 && !regexp.MustCompile(`\(default: [^"]\S*( [^"][^)]*)?\)$`).MatchString(line)):
				t.Errorf("podlint %s --help: %q states its default in another style than (default: X) at the end", cmd, line)
			case strings.Contains(line, "(default: false)") || strings.Contains(line, "; default ") || strings.Contains(line, "unknown by default"):
				t.Errorf("podlint %s --help: %q", cmd, line)
			}
		}
	}
	var out, errb bytes.Buffer
	Run([]string{"podlint", "--help"}, strings.NewReader(""), &out, &errb)
	_, global, ok := strings.Cut(out.String(), "GLOBAL OPTIONS:\n")
	if !ok || !strings.Contains(global, "--help") || !strings.Contains(global, "--version") {
		t.Fatalf("podlint --help has no global options:\n%s", out.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(global), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			t.Errorf("podlint --help: %q among the global options", line)
		}
	}
}

// skipFlagActions hides the flags from urfave/cli's search for flag
// actions, which is only right while no podlint flag has one.
func TestNoFlagHasAnAction(t *testing.T) {
	app := newApp(&runEnv{stdout: io.Discard, stderr: io.Discard})
	n := 0
	for _, cmd := range app.Commands {
		for _, f := range cmd.Flags {
			n++
			v := reflect.ValueOf(f)
			if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
				t.Errorf("podlint %s: flag %v is not a urfave/cli flag struct", cmd.Name, f.Names())
				continue
			}
			if a := v.Elem().FieldByName("Action"); !a.IsValid() || !a.IsNil() {
				t.Errorf("podlint %s --%s has an Action (or a flag type without one): skipFlagActions would skip it", cmd.Name, f.Names()[0])
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d flags seen", n)
	}
}

// The flags are back when the command runs: IsSet of a flag given by an
// alias, which walks them, still sees it there, and the Action finds them
// on its command; urfave/cli's search for flag actions ran on none.
func TestFlagsAreBackInAction(t *testing.T) {
	var seen int
	var outputSet bool
	cmd := &ucli.Command{Name: "c",
		Flags: []ucli.Flag{&ucli.StringFlag{Name: "output", Aliases: []string{"o"}}, &ucli.BoolFlag{Name: "quiet"}},
		Action: func(c *ucli.Context) error {
			seen, outputSet = len(c.Command.Flags), c.IsSet("output")
			return nil
		}}
	skipFlagActions(cmd)
	app := &ucli.App{Name: "x", Commands: []*ucli.Command{cmd}, Writer: io.Discard, ErrWriter: io.Discard}
	if err := app.Run([]string{"x", "c", "-o", "f"}); err != nil {
		t.Fatal(err)
	}
	if seen != 2 || !outputSet {
		t.Errorf("in Action: %d flags on the command, IsSet(output) %v; want 2, true", seen, outputSet)
	}
	if len(cmd.Flags) != 2 {
		t.Errorf("after the run the command has %d flags, want 2", len(cmd.Flags))
	}
}
