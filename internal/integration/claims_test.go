package integration

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestActionFailOnNamesEveryLevel: the Action's fail-on input documents
// every value --fail-on takes (never was missing).
func TestActionFailOnNamesEveryLevel(t *testing.T) {
	a, _ := loadAction(t, filepath.Join(repoRoot(t), "action.yml"))
	desc := a.Inputs["fail-on"].Description
	for _, level := range []string{"error", "warning", "info", "never"} {
		if !strings.Contains(desc, level) {
			t.Errorf("action.yml's fail-on description %q does not name %q", desc, level)
		}
	}
}

// TestBuiltBinaryIsIgnored: the README's go build writes ./podlint,
// ./podlint-render and ./podlint-observe at the root of the clone, which git must not offer to
// commit.
func TestBuiltBinaryIsIgnored(t *testing.T) {
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte("-o . ./cmd/podlint ./cmd/podlint-render ./cmd/podlint-observe")) {
		t.Fatal("the README no longer builds ./podlint; update this test to the name it builds")
	}
	ignore, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(ignore), "\n")
	for _, want := range []string{"/podlint", "/podlint.exe", "/podlint-render", "/podlint-render.exe", "/podlint-observe", "/podlint-observe.exe"} {
		found := false
		for _, l := range lines {
			found = found || strings.TrimSpace(l) == want
		}
		if !found {
			t.Errorf(".gitignore lacks %s", want)
		}
	}
}

// TestVSCodeClientPackages: the VS Code client ships the repository's
// license under the name its package.json states, and a .vscodeignore, as
// `vsce package` expects of a published extension.
func TestVSCodeClientPackages(t *testing.T) {
	root := repoRoot(t)
	dir := filepath.Join(root, "editors", "vscode")
	want, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "LICENSE"))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("editors/vscode/LICENSE is missing or differs from the repository's LICENSE (%v)", err)
	}
	var pkg struct {
		License string `json:"license"`
		Main    string `json:"main"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatal(err)
	}
	if pkg.License != "Apache-2.0" || !bytes.Contains(want, []byte("Apache License")) {
		t.Errorf("package.json says license %q; the repository's LICENSE is the Apache License 2.0", pkg.License)
	}
	ignore, err := os.ReadFile(filepath.Join(dir, ".vscodeignore"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(ignore), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "!") {
			continue
		}
		for _, keep := range []string{pkg.Main, "package.json", "LICENSE", "README.md"} {
			if m, _ := filepath.Match(line, strings.TrimPrefix(keep, "./")); m {
				t.Errorf(".vscodeignore's %q leaves out %s, which the extension needs", line, keep)
			}
		}
	}
}
