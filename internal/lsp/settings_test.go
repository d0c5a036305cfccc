package lsp

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/settings"
	"github.com/podlint/podlint/manifest"
)

// TestFolderSettings: without Configure, each folder has the settings of
// `podlint check FOLDER` with the server's flags, read by settings.Load
// with no command line built for it: the folder's .podlint.yaml turns a
// rule off there only, a flag changes the model everywhere, and a
// configuration that cannot be used is one problem on the file, naming
// the key's file and line as check does.
func TestFolderSettings(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/main\n")
	for _, sub := range []string{"on", "off", "bad"} {
		writeFile(t, filepath.Join(dir, sub, "web.yaml"), webYAML)
	}
	writeFile(t, filepath.Join(dir, "off", settings.ConfigFileName), "rules: {PL101: off}\n")
	writeFile(t, filepath.Join(dir, "bad", settings.ConfigFileName), "# the version\nkube-version: \"2.0\"\n")
	t.Chdir(dir)
	lint := func(flags settings.Flags, sub string) []finding.Finding {
		e := &Podlint{Flags: flags}
		e.Open([]string{dir})
		return e.Lint(filepath.Join(dir, sub, "web.yaml"), []byte(webYAML))
	}
	has := func(fs []finding.Finding, id string) *finding.Finding {
		for i := range fs {
			if fs[i].RuleID == id {
				return &fs[i]
			}
		}
		return nil
	}
	flags := settings.Flags{Command: "lsp", Limits: manifest.DefaultLimits, Render: "never"}
	if f := has(lint(flags, "on"), "PL101"); f == nil {
		t.Fatal("on/web.yaml: no PL101; the fixture no longer fires it")
	}
	if f := has(lint(flags, "off"), "PL101"); f != nil {
		t.Errorf("off/web.yaml: PL101 although off/.podlint.yaml turns it off: %+v", f)
	}
	bad := lint(flags, "bad")
	if len(bad) != 1 || bad[0].RuleID != problemConfig || !strings.Contains(bad[0].Detail, `kube-version in `+filepath.Join(dir, "bad", settings.ConfigFileName)+`:2 "2.0": not a Kubernetes version`) {
		t.Errorf("bad/web.yaml: %+v; want one config problem naming %s:2", bad, settings.ConfigFileName)
	}
	// A flag is read without any configuration: --no-config keeps off's
	// PL101, and a malformed flag is the problem on every file.
	noConfig := flags
	noConfig.NoConfig = true
	if f := has(lint(noConfig, "off"), "PL101"); f == nil {
		t.Error("--no-config: off/web.yaml has no PL101")
	}
	badFlag := flags
	badFlag.PullTime = "soon"
	if got := lint(badFlag, "on"); len(got) != 1 || !strings.Contains(got[0].Detail, `--pull-time "soon"`) {
		t.Errorf("--pull-time soon: %+v; want the flag's error", got)
	}
}
