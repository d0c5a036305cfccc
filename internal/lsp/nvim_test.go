package lsp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podlint/podlint/internal/testbin"
	"github.com/podlint/podlint/manifest"
)

// TestNeovim drives `podlint lsp` from a real editor: Neovim's built-in
// client (0.7 or later, headless, no configuration) opens a manifest,
// receives the diagnostics, hovers the liveness probe and applies a code
// action with Neovim's own workspace-edit code (testdata/e2e.lua). Neovim
// 0.7 offers UTF-16 positions only; TestDiagnosticsPositionEncoding covers
// UTF-8. Without nvim the test skips, except in CI (CI=true), where .ci/run
// installs it and a missing nvim is a failure.
func TestNeovim(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("nvim is not installed; CI (.ci/run) installs Debian's neovim for this test")
		}
		t.Skip("nvim is not installed (apt-get install neovim)")
	}
	if testing.Short() {
		t.Skip("builds podlint")
	}
	dir := t.TempDir()
	// Kept between runs (testbin): an unchanged podlint is not linked again.
	bin, temporary, out, err := testbin.BuildPodlint("../..", "lsp")
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if temporary {
		t.Cleanup(func() { os.RemoveAll(filepath.Dir(bin)) })
	}
	ws := filepath.Join(dir, "ws")
	file := filepath.Join(ws, "web.yaml")
	// PL101 and PL113 (with a safe fix) on one line.
	src := strings.Replace(webYAML, "failureThreshold: 1}", "failureThreshold: 1, successThreshold: 2}", 1)
	writeFile(t, file, src)
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil { // the repository root: no config above it
		t.Fatal(err)
	}
	got := runNvim(t, nvim, bin, dir, file, "PL101", "Set successThreshold to 1", "PL113")
	if got.Encoding != "utf-16" {
		t.Errorf("negotiated %q; Neovim 0.7 offers utf-16 only", got.Encoding)
	}
	// Neovim converts the UTF-16 range back to byte columns: they must be
	// those of check (web.yaml:12:50) and the end of the key.
	line := []byte(strings.Split(src, "\n")[11])
	var pl101 bool
	for _, d := range got.Diagnostics {
		if d.Code != "PL101" {
			continue
		}
		pl101 = true
		if d.Lnum != 11 || d.Col != 49 || d.EndCol != 49+len("livenessProbe") || d.Severity != 1 {
			t.Errorf("PL101 at line %d bytes %d–%d, severity %d; want line 11 bytes 49–62, severity 1 (error)", d.Lnum, d.Col, d.EndCol, d.Severity)
		}
		if !strings.Contains(d.Message, "liveness probe kills") {
			t.Errorf("message %q", d.Message)
		}
	}
	if !pl101 {
		t.Fatalf("no PL101 among %+v", got.Diagnostics)
	}
	if manifest.UTF16Column(line, 50) == 50 {
		t.Fatal("the fixture does not tell UTF-16 from bytes")
	}
	for _, want := range []string{"liveness kill if unhealthy", "first probe", "start-up budget"} {
		if !strings.Contains(got.Hover, want) {
			t.Errorf("hover lacks %q:\n%s", want, got.Hover)
		}
	}
	if !slices.Contains(got.Actions, "Suppress PL101 (liveness-kills-before-ready) here") {
		t.Errorf("code actions %q: no suppression of PL101", got.Actions)
	}
	want := strings.Replace(src, "successThreshold: 2", "successThreshold: 1", 1)
	if gotText := strings.Join(got.Lines, "\n") + "\n"; gotText != want {
		t.Errorf("buffer after the quick fix:\n%s\nwant:\n%s", gotText, want)
	}
	if slices.Contains(got.After, "PL113") || !slices.Contains(got.After, "PL101") {
		t.Errorf("diagnostics after the quick fix: %v; want PL101 and no PL113", got.After)
	}

	// A JSON manifest: the quick fix Neovim applies leaves JSON, and no
	// action inserts a comment.
	jsonFile := filepath.Join(ws, "pod.json")
	writeFile(t, jsonFile, probeJSON)
	got = runNvim(t, nvim, bin, dir, jsonFile, "PL106", "Raise periodSeconds to 20, the timeout (adds no kills: every answer that passes today still passes) (unsafe: changes behaviour)", "PL106")
	text := strings.Join(got.Lines, "\n") + "\n"
	var v map[string]any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Errorf("the JSON buffer after the quick fix is not JSON: %v\n%s", err, text)
	}
	if want := strings.Replace(probeJSON, `"timeoutSeconds": 20}`, `"timeoutSeconds": 20, "periodSeconds": 20}`, 1); text != want {
		t.Errorf("JSON buffer after the quick fix:\n%s\nwant:\n%s", text, want)
	}
	for _, a := range got.Actions {
		if strings.HasPrefix(a, "Suppress") {
			t.Errorf("code action %q in a JSON file", a)
		}
	}
}

// nvimResult is what testdata/e2e.lua saw.
type nvimResult struct {
	Error       string
	Encoding    string
	Diagnostics []struct {
		Code      string
		Lnum, Col int
		EndCol    int `json:"end_col"`
		Severity  int
		Message   string
	}
	Hover   string
	Actions []string
	Lines   []string
	After   []string
}

// runNvim runs testdata/e2e.lua in a headless Neovim on file: it waits
// for a diagnostic of code, hovers it, applies the code action titled
// action and waits until no diagnostic of gone is left.
func runNvim(t *testing.T, nvim, bin, dir, file, code, action, gone string) nvimResult {
	t.Helper()
	outFile := filepath.Join(dir, "out.json")
	os.Remove(outFile)
	script, err := filepath.Abs("testdata/e2e.lua")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-u", "NONE", "-c", "luafile "+script)
	cmd.Dir = filepath.Dir(file)
	cmd.Env = append(os.Environ(), "PODLINT_BIN="+bin, "PODLINT_FILE="+file, "PODLINT_OUT="+outFile, "PODLINT_CODE="+code,
		"PODLINT_ACTION="+action, "PODLINT_GONE="+gone, "HOME="+dir, "XDG_STATE_HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, out)
	}
	data, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatalf("the script wrote nothing: %v", err)
	}
	var got nvimResult
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	if got.Error != "" {
		t.Fatalf("the script failed on %s: %s\n%s", filepath.Base(file), got.Error, data)
	}
	return got
}
