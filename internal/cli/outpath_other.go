//go:build !unix

package cli

import (
	"io/fs"
	"os"
	"path/filepath"
)

// openComponent: without openat, each folder is checked not to be a link
// (Lstat) and then opened by its path: a link swapped in between the two
// is followed, which the openat walk on Unix prevents.
func openComponent(_ *os.File, lex, _ string, create bool) (*os.File, error) {
	fi, err := os.Lstat(lex)
	if os.IsNotExist(err) && create {
		if err = os.Mkdir(lex, 0o755); err == nil || os.IsExist(err) {
			fi, err = os.Lstat(lex)
		}
	}
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 || fi.Mode()&fs.ModeIrregular != 0 {
		return nil, &linkError{lex}
	}
	return os.Open(lex)
}

func (d *outDir) createTemp(base string) (*os.File, string, error) {
	f, err := os.CreateTemp(d.name, "."+base+".*.tmp")
	if err != nil {
		return nil, "", err
	}
	return f, filepath.Base(f.Name()), nil
}

func (d *outDir) rename(tmp, base string) error {
	return os.Rename(filepath.Join(d.name, tmp), filepath.Join(d.name, base))
}

func (d *outDir) remove(name string) error { return os.Remove(filepath.Join(d.name, name)) }
