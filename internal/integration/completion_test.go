package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// visibleCommands are the commands `podlint --help` lists, without help.
func visibleCommands(t *testing.T) []string {
	t.Helper()
	_, help, _ := runCLI(t, "", "", "--help")
	_, section, ok := strings.Cut(help, "\nCOMMANDS:\n")
	if !ok {
		t.Fatalf("podlint --help has no COMMANDS section:\n%s", help)
	}
	section, _, _ = strings.Cut(section, "\n\n")
	var cmds []string
	for _, line := range strings.Split(section, "\n") {
		name := strings.TrimSuffix(strings.Fields(line)[0], ",")
		if name != "help" {
			cmds = append(cmds, name)
		}
	}
	return cmds
}

// shellEnv puts a freshly built podlint first on PATH, as an installed one
// would be; completion scripts call it by name.
func shellEnv(t *testing.T) []string {
	return append(os.Environ(), "PATH="+filepath.Dir(podlintBinary(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// TestBashCompletion sources `podlint completion bash` in bash and calls its
// completion function as bash would on TAB, with COMP_WORDS and
// COMP_CWORD set, in a directory with a manifest.
func TestBashCompletion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"k8s/web.yaml": goodPod})
	// No set -e: completion functions run in an interactive shell.
	script := `
source <(podlint completion bash)
complete -p podlint
tab() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _podlint_complete; echo "${COMPREPLY[*]}"; }
tab podlint ""
tab podlint ch
tab podlint check --f
tab podlint check k8s/ --fa
tab podlint check k8s/w
tab podlint check ""
tab podlint completion ""
tab podlint check --kube
tab podlint check -f sa
tab podlint check --enable liveness-kills
tab podlint check --fail-on n
`
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", script)
	cmd.Dir = dir
	cmd.Env = shellEnv(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 12 {
		t.Fatalf("want 12 lines of output, got:\n%s", out)
	}
	if lines[0] != "complete -o default -F _podlint_complete podlint" {
		t.Errorf("completion is not registered: %q", lines[0])
	}
	commands := strings.Fields(lines[1])
	for _, c := range visibleCommands(t) {
		if !slices.Contains(commands, c) {
			t.Errorf("podlint <TAB> offers %v, not the command %s", commands, c)
		}
	}
	for _, c := range []struct{ words, got, want string }{
		{"podlint ch", lines[2], "check"},
		{"podlint check --f", lines[3], "--format --fail-on"},
		{"podlint check k8s/ --fa", lines[4], "--fail-on"}, // flags after paths
		{"podlint check k8s/w", lines[5], "k8s/web.yaml"},
		{"podlint check ", lines[6], "k8s"},
		{"podlint completion ", lines[7], "bash zsh fish powershell"},
		{"podlint check --kube", lines[8], "--kube-version"},
		{"podlint check -f sa", lines[9], "sarif"},                                          // flag values
		{"podlint check --enable liveness-kills", lines[10], "liveness-kills-before-ready"}, // rule names
		{"podlint check --fail-on n", lines[11], "never"},
	} {
		if c.got != c.want {
			t.Errorf("%s<TAB> completes to %q, want %q", c.words, c.got, c.want)
		}
	}

	// The hidden flag itself, as zsh and fish use it: the commands, and
	// every flag of check.
	bin := podlintBinary(t)
	top, _ := exec.Command(bin, "--generate-bash-completion").Output()
	for _, c := range visibleCommands(t) {
		if !slices.Contains(strings.Fields(string(top)), c) {
			t.Errorf("--generate-bash-completion does not list %s:\n%s", c, top)
		}
	}
	flags, _ := exec.Command(bin, "check", "-", "--generate-bash-completion").Output()
	_, help, _ := runCLI(t, "", "", "check", "--help")
	for _, m := range regexp.MustCompile(`(?m)^\s+(--[\w-]+)`).FindAllStringSubmatch(help, -1) {
		if m[1] != "--help" && !slices.Contains(strings.Fields(string(flags)), m[1]) {
			t.Errorf("podlint check - --generate-bash-completion does not list %s:\n%s", m[1], flags)
		}
	}
}

// TestZshFishCompletion loads the zsh script (syntax) and asks fish to
// complete with the fish script.
func TestZshFishCompletion(t *testing.T) {
	env := shellEnv(t)
	t.Run("zsh", func(t *testing.T) {
		if _, err := exec.LookPath("zsh"); err != nil {
			t.Skip("zsh is not installed")
		}
		cmd := exec.Command("zsh", "-f", "-c", "autoload -U compinit && compinit -u && source <(podlint completion zsh) && whence -w _podlint")
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "_podlint: function") {
			t.Errorf("zsh: %v\n%s", err, out)
		}
	})
	t.Run("fish", func(t *testing.T) {
		if _, err := exec.LookPath("fish"); err != nil {
			t.Skip("fish is not installed")
		}
		cmd := exec.Command("fish", "--no-config", "-c", `podlint completion fish | source; complete -C "podlint ch"; complete -C "podlint check --fa"; echo ---; complete -C "podlint check -f sa"; complete -C "podlint check --enable liveness-kills-b"`)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		words, values, _ := strings.Cut(string(out), "---")
		if err != nil || strings.Fields(words)[0] != "check" || !slices.Contains(strings.Fields(words), "--fail-on") {
			t.Errorf("fish completes %q (%v); want check, then --fail-on", out, err)
		}
		if got := strings.Fields(values); !slices.Equal(got, []string{"sarif", "liveness-kills-before-ready"}) {
			t.Errorf("fish completes flag values %q; want sarif, then liveness-kills-before-ready", got)
		}
	})
}

// TestHelpReadsLikeManPage checks the sections of podlint --help a reader
// of man pages expects, in order, and that they say something.
func TestHelpReadsLikeManPage(t *testing.T) {
	code, help, _ := runCLI(t, "", "", "--help")
	if code != 0 {
		t.Fatalf("podlint --help exited %d", code)
	}
	last := -1
	for _, s := range []string{"NAME:\n   podlint - find Pod lifecycle", "\nUSAGE:\n   podlint check [flags] PATH...", "\nDESCRIPTION:\n", "\nCOMMANDS:\n", "\nGLOBAL OPTIONS:\n"} {
		i := strings.Index(help, s)
		if i < 0 || i < last {
			t.Errorf("podlint --help lacks %q, or has it out of order:\n%s", s, help)
		}
		last = i
	}
	for _, want := range []string{"Exit status: 0", "--fail-on", "Documentation: https://"} {
		if !strings.Contains(help, want) {
			t.Errorf("the description lacks %q", want)
		}
	}
	cmds := visibleCommands(t)
	for _, c := range []string{"check", "rules", "version", "completion"} {
		if !slices.Contains(cmds, c) {
			t.Errorf("COMMANDS does not list %s: %v", c, cmds)
		}
	}
	// Each command's page has its own NAME, USAGE, DESCRIPTION and OPTIONS,
	// and `podlint help check` is the same page.
	_, check, _ := runCLI(t, "", "", "check", "--help")
	_, helpCheck, _ := runCLI(t, "", "", "help", "check")
	if check != helpCheck {
		t.Errorf("podlint help check differs from podlint check --help")
	}
	last = -1
	for _, s := range []string{"NAME:\n   podlint check - ", "\nUSAGE:\n   podlint check [command options] PATH...", "\nDESCRIPTION:\n", "\nOPTIONS:\n"} {
		i := strings.Index(check, s)
		if i < 0 || i < last {
			t.Errorf("podlint check --help lacks %q, or has it out of order:\n%s", s, check)
		}
		last = i
	}
}
