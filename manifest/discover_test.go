package manifest

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestReadCappedStdin: standard input redirected from a regular file is read
// from where it stands, into one buffer of the size left, and the limit is
// checked before reading; a pipe is read in blocks, with the same result.
func TestReadCappedStdin(t *testing.T) {
	content := bytes.Repeat([]byte("kind: Pod\n---\n"), 100_000) // 1.4 MB: several blocks
	path := filepath.Join(t.TempDir(), "in.yaml")
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(5, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	got, tooBig, err := ReadCapped(f, "-", 1<<30)
	if err != nil || tooBig || !bytes.Equal(got, content[5:]) || cap(got) != len(content)-5+1 {
		t.Errorf("redirected file: %d bytes (cap %d), tooBig %v, err %v; want the %d bytes after the offset in one buffer", len(got), cap(got), tooBig, err, len(content)-5)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if _, tooBig, err := ReadCapped(f, "-", int64(len(content)-1)); !tooBig || err != nil {
		t.Errorf("redirected file over the limit: tooBig %v, err %v", tooBig, err)
	}

	defer func(old int64) { packAbove = old }(packAbove)
	for _, pack := range []int64{packAbove, 100 << 10} { // as read, and compressed past 100 KB
		packAbove = pack
		for _, limit := range []int64{1 << 30, int64(len(content) - 1)} {
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			go func() {
				pw.Write(content)
				pw.Close()
			}()
			got, tooBig, err = ReadCapped(pr, "-", limit)
			pr.Close()
			want := limit < int64(len(content))
			if err != nil || tooBig != want || !want && !bytes.Equal(got, content) {
				t.Errorf("pipe, packed past %d, limit %d: %d bytes, tooBig %v, err %v; want %d bytes", pack, limit, len(got), tooBig, err, len(content))
			}
		}
	}
}

// BenchmarkReadCappedPipe reads 60 MB of YAML from a reader of unknown
// size, kept compressed past packAbove ("packed") and as read ("joined").
func BenchmarkReadCappedPipe(b *testing.B) {
	content := bytes.Repeat([]byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n    - name: app\n      image: nginx:1.27\n---\n"), 600_000)
	for _, bc := range []struct {
		name string
		pack int64
	}{{"packed", packAbove}, {"joined", 1 << 40}} {
		b.Run(bc.name, func(b *testing.B) {
			defer func(old int64) { packAbove = old }(packAbove)
			packAbove = bc.pack
			b.SetBytes(int64(len(content)))
			for b.Loop() {
				if _, _, err := ReadCapped(bytes.NewReader(content), "-", 1<<30); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
