package docnumbers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// documents are the files that state measured numbers.
var documents = []string{"README.md", "CONTRIBUTING.md", "docs/ci.md"}

// TestDocumentsNumbers: every number the documents state is between
// markers the script rewrites, with a known key and a value of its shape;
// and the claims the last review found stale are among them.
func TestDocumentsNumbers(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range documents {
		data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range Check(name, string(data)) {
			t.Error(err)
		}
		for _, n := range Find(string(data)) {
			seen[n.Key] = true
		}
	}
	for key := range Keys {
		if !seen[key] {
			t.Errorf("no document states %s (%s): drop the key or mark where the docs say it", key, Keys[key].What)
		}
	}
}

func TestCheckAndRewrite(t *testing.T) {
	doc := "a <!-- n:size-cgo -->76 MB<!-- /n --> binary,\n<!-- n:size-release -->42MB<!-- /n --> and <!-- n:speed -->3 s<!-- /n -->"
	errs := Check("d.md", doc)
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), `d.md:2: size-release is "42MB"`) || !strings.Contains(errs[1].Error(), `unknown number "speed"`) {
		t.Errorf("Check = %v; want the bad shape and the unknown key, with their lines", errs)
	}
	got := Rewrite(doc, map[string]string{"size-cgo": "62 MB"})
	if !strings.HasPrefix(got, "a <!-- n:size-cgo -->62 MB<!-- /n --> binary,\n<!-- n:size-release -->42MB<!-- /n -->") {
		t.Errorf("Rewrite = %q", got)
	}
}

func TestFormats(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Megabytes(61_700_000), "62 MB"},
		{Mebibytes(11 << 20), "11 MiB"},
		{Minutes(270), "4.5 minutes"},
		{Minutes(81), "1.5 minutes"},
		{Minutes(62), "1 minute"},
		{Minutes(725), "12 minutes"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
