// Package testgit makes git work trees for tests without running git: a
// .git folder with HEAD and an index (version 2, SHA-1) listing the files
// a test says git tracks, as a checkout by actions/checkout has.
package testgit

import (
	"crypto/sha1"
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Modes of index entries.
const (
	File    = 0o100644
	Link    = 0o120000
	Gitlink = 0o160000
)

// Init makes dir a git work tree whose index tracks the given
// slash-separated paths as regular files.
func Init(dir string, tracked ...string) error {
	m := map[string]uint32{}
	for _, p := range tracked {
		m[p] = File
	}
	return InitModes(dir, m)
}

// InitAll makes dir a git work tree whose index tracks every file and
// symbolic link below it, as a checkout of a pull request holding them.
func InitAll(dir string) error {
	tracked := map[string]uint32{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		tracked[filepath.ToSlash(rel)] = File
		if d.Type()&fs.ModeSymlink != 0 {
			tracked[filepath.ToSlash(rel)] = Link
		}
		return nil
	})
	if err != nil {
		return err
	}
	return InitModes(dir, tracked)
}

// InitModes is Init with each path's entry mode.
func InitModes(dir string, tracked map[string]uint32) error {
	git := filepath.Join(dir, ".git")
	if err := os.MkdirAll(git, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(git, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(git, "index"), Index(tracked), 0o644)
}

// Index encodes an index of version 2 listing the paths with their modes.
func Index(tracked map[string]uint32) []byte {
	names := make([]string, 0, len(tracked))
	for p := range tracked {
		names = append(names, p)
	}
	sort.Strings(names)
	b := []byte("DIRC")
	b = binary.BigEndian.AppendUint32(b, 2)
	b = binary.BigEndian.AppendUint32(b, uint32(len(names)))
	for _, n := range names {
		start := len(b)
		b = append(b, make([]byte, 24)...) // ctime, mtime, dev, ino
		b = binary.BigEndian.AppendUint32(b, tracked[n])
		b = append(b, make([]byte, 12)...) // uid, gid, size
		b = append(b, make([]byte, 20)...) // object name
		b = binary.BigEndian.AppendUint16(b, uint16(min(len(n), 0xfff)))
		b = append(b, n...)
		for pad := (len(b) - start + 8) &^ 7; len(b)-start < pad; {
			b = append(b, 0)
		}
	}
	sum := sha1.Sum(b)
	return append(b, sum[:]...)
}
