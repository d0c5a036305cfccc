package lsp

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the hover example of docs/editors.md")

// TestEditorsDocHoverIsTheServers: the hover example docs/editors.md shows
// on a liveness probe is what the server answers there, so its numbers and
// duration style cannot drift from the server's (it once read "40.5 s" and
// "2 min 1 s" where the server writes 40.5s and 2m1s). go test
// ./internal/lsp -run TestEditorsDocHoverIsTheServers -update-docs
// rewrites it.
func TestEditorsDocHoverIsTheServers(t *testing.T) {
	e := &Podlint{Configure: defaultConfig}
	e.Open(nil)
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "examples", "healthy-deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(data, []byte("livenessProbe:"))
	md, _, _ := e.Hover("/ws/healthy-deployment.yaml", data, at+1, 60)
	got := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(md), "```text\n"), "\n```")
	if strings.Contains(got, "```") || !strings.Contains(got, "liveness") {
		t.Fatalf("the hover is not one text block about the liveness probe:\n%s", md)
	}
	docPath := filepath.Join("..", "..", "docs", "editors.md")
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	const open, close = "  On a liveness probe:\n\n  ```text\n", "\n  ```\n"
	i := bytes.Index(doc, []byte(open))
	if i < 0 {
		t.Fatalf("docs/editors.md has no %q block", strings.TrimSpace(open))
	}
	j := bytes.Index(doc[i+len(open):], []byte(close))
	if j < 0 {
		t.Fatal("docs/editors.md: the hover example's block does not end")
	}
	var want strings.Builder
	for _, line := range strings.Split(got, "\n") {
		if line != "" {
			want.WriteString("  " + line)
		}
		want.WriteString("\n")
	}
	block := strings.TrimSuffix(want.String(), "\n")
	have := string(doc[i+len(open) : i+len(open)+j])
	if have == block {
		return
	}
	if *updateDocs {
		out := append(append(append([]byte{}, doc[:i+len(open)]...), block...), doc[i+len(open)+j:]...)
		if err := os.WriteFile(docPath, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/editors.md's hover example differs from the server's (go test ./internal/lsp -run TestEditorsDocHoverIsTheServers -update-docs rewrites it):\n--- doc\n%s\n--- server\n%s", have, block)
}
