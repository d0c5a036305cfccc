package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// README examples are real output: each block between
//
//	<!-- example: ARGS -->            (the whole output of podlint ARGS)
//	<!-- example-excerpt: ARGS -->    (lines that appear, in order and
//	                                   contiguous, in the output; indentation
//	                                   is ignored)
//
// and <!-- /example --> is checked against podlint run from the repository
// root, and `go test ./internal/cli -run TestReadmeExamples -update`
// rewrites the whole-output blocks. docs/timeline.svg, which the README
// shows, is checked the same way.
var exampleBlock = regexp.MustCompile("(?s)<!-- (example|example-excerpt): ([^>]*?) -->\n```[a-z]*\n(.*?)```\n<!-- /example -->")

func runArgs(t *testing.T, args string) string {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(append([]string{"podlint"}, strings.Fields(args)...), strings.NewReader(""), &out, &errb)
	if code == ExitError {
		t.Fatalf("podlint %s: exit 2: %s", args, errb.String())
	}
	return out.String()
}

func TestReadmeExamples(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	t.Setenv("NO_COLOR", "1")
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := exampleBlock.FindAllSubmatchIndex(readme, -1)
	if len(blocks) < 3 {
		t.Fatalf("README has %d example blocks; want the text, JSON and SARIF examples at least", len(blocks))
	}
	var updated bytes.Buffer
	last := 0
	for _, m := range blocks {
		kind, args, body := string(readme[m[2]:m[3]]), string(readme[m[4]:m[5]]), string(readme[m[6]:m[7]])
		shown := args
		if strings.HasPrefix(args, "check") || strings.HasPrefix(args, "timeline") {
			args += " --no-config" // flags after paths work; a user's config must not change the example
		}
		got := runArgs(t, args)
		switch kind {
		case "example":
			if *update {
				updated.Write(readme[last:m[6]])
				updated.WriteString(got)
				last = m[7]
				continue
			}
			if body != got {
				t.Errorf("README example `podlint %s` is stale (run go test ./internal/cli -run TestReadmeExamples -update):\n--- README\n%s\n--- podlint\n%s", shown, body, got)
			}
		case "example-excerpt":
			if !containsLines(got, body) {
				t.Errorf("README excerpt of `podlint %s` no longer appears in its output:\n%s", shown, body)
			}
		}
	}
	if *update {
		updated.Write(readme[last:])
		if err := os.WriteFile("README.md", updated.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	svg := runArgs(t, "timeline --no-config -f svg testdata/examples/web-deployment.yaml")
	if *update {
		if err := os.WriteFile(filepath.Join("docs", "timeline.svg"), []byte(svg), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if got, err := os.ReadFile(filepath.Join("docs", "timeline.svg")); err != nil || string(got) != svg {
		t.Errorf("docs/timeline.svg is stale (run go test ./internal/cli -run TestReadmeExamples -update)")
	}
}

// containsLines reports whether the lines of excerpt appear contiguously in
// text, ignoring leading and trailing white space.
func containsLines(text, excerpt string) bool {
	trim := func(s string) []string {
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
			out = append(out, strings.TrimSpace(l))
		}
		return out
	}
	hay, needle := trim(text), trim(excerpt)
	for i := 0; i+len(needle) <= len(hay); i++ {
		match := true
		for j := range needle {
			if hay[i+j] != needle[j] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}
