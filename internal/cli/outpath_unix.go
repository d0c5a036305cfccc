//go:build unix

package cli

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// openComponent opens the folder name in parent without following a
// symbolic link (O_NOFOLLOW: a link fails with ELOOP), creating it first
// when create is set; lex is its path as given, for messages.
func openComponent(parent *os.File, lex, name string, create bool) (*os.File, error) {
	pfd := int(parent.Fd())
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := unix.Openat(pfd, name, flags, 0)
	if errors.Is(err, unix.ENOENT) && create {
		if err = unix.Mkdirat(pfd, name, 0o755); err == nil || errors.Is(err, unix.EEXIST) {
			fd, err = unix.Openat(pfd, name, flags, 0)
		}
	}
	if err != nil {
		var st unix.Stat_t
		if unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return nil, &linkError{lex}
		}
		return nil, &os.PathError{Op: "open", Path: lex, Err: err}
	}
	return os.NewFile(uintptr(fd), lex), nil
}

// createTemp creates ".base.N.tmp" (mode 0600, as os.CreateTemp) in the
// folder, never through a link, and returns it with its name.
func (d *outDir) createTemp(base string) (*os.File, string, error) {
	if d.f == nil {
		f, err := os.CreateTemp(d.name, "."+base+".*.tmp")
		if err != nil {
			return nil, "", err
		}
		return f, filepath.Base(f.Name()), nil
	}
	for range 100 {
		name := "." + base + "." + strconv.FormatUint(uint64(rand.Uint32()), 10) + ".tmp"
		fd, err := unix.Openat(int(d.f.Fd()), name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return nil, "", &os.PathError{Op: "create", Path: filepath.Join(d.name, name), Err: err}
		}
		return os.NewFile(uintptr(fd), filepath.Join(d.name, name)), name, nil
	}
	return nil, "", &os.PathError{Op: "create", Path: filepath.Join(d.name, "."+base+".*.tmp"), Err: os.ErrExist}
}

// rename replaces base with tmp, both in the folder; renameat replaces a
// link named base itself, never what it points at.
func (d *outDir) rename(tmp, base string) error {
	if d.f == nil {
		return os.Rename(filepath.Join(d.name, tmp), filepath.Join(d.name, base))
	}
	if err := unix.Renameat(int(d.f.Fd()), tmp, int(d.f.Fd()), base); err != nil {
		return &os.LinkError{Op: "rename", Old: tmp, New: filepath.Join(d.name, base), Err: err}
	}
	return nil
}

func (d *outDir) remove(name string) error {
	if d.f == nil {
		return os.Remove(filepath.Join(d.name, name))
	}
	return unix.Unlinkat(int(d.f.Fd()), name, 0)
}
