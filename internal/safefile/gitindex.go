package safefile

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// The git index (.git/index) lists the paths git tracks. podlint reads
// only those paths of it, so the decoder is its own rather than go-git's
// plumbing/format/index: that one decodes every field and extension into
// objects and brings go-git's module graph (about twenty modules) for
// what is a list of names here; this one allocates the names and nothing
// else, never more entries than the file could hold, and its errors never
// quote the file. Format: Documentation/gitformat-index.txt in git.

// maxIndexSize bounds the index read: the Linux kernel's is about 10 MB,
// and a monorepo of a million files about 100 MB.
const maxIndexSize = 256 << 20

// errIndex is wrapped by every decoding error.
var errIndex = errors.New("not a git index podlint can read")

// gitIndex is what podlint keeps of an index: the tracked files (regular
// files and symbolic links), sorted, and the gitlinks (submodules), whose
// files are tracked by the submodule's own index.
type gitIndex struct {
	files    []string
	gitlinks []string
}

// Entry modes (the object type in the high bits of the 32-bit mode).
const (
	modeTypeMask = 0o170000
	modeFile     = 0o100000
	modeLink     = 0o120000
	modeGitlink  = 0o160000
)

// decodeIndex reads an index of version 2, 3 or 4, with SHA-1 or SHA-256
// object names. A checksum that does not match, an entry that runs past
// the end, and an extension git requires a reader to understand (split
// index: "link") are errors: a partial list would be a wrong one.
func decodeIndex(data []byte) (*gitIndex, error) {
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return nil, fmt.Errorf("%w: no DIRC header", errIndex)
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("%w: version %d", errIndex, version)
	}
	// The trailing checksum says which hash the repository uses; a zero
	// one (index.skipHash) says nothing, and SHA-1 is tried first.
	var errs []error
	for _, h := range []int{sha1.Size, sha256.Size} {
		if len(data) < 12+h {
			continue
		}
		body, sum := data[:len(data)-h], data[len(data)-h:]
		zero := bytes.Count(sum, []byte{0}) == h
		if !zero {
			var got []byte
			if h == sha1.Size {
				s := sha1.Sum(body)
				got = s[:]
			} else {
				s := sha256.Sum256(body)
				got = s[:]
			}
			if !bytes.Equal(got, sum) {
				errs = append(errs, fmt.Errorf("%w: checksum mismatch", errIndex))
				continue
			}
		}
		idx, err := decodeEntries(body, version, h)
		if err == nil || !zero {
			return idx, err
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("%w: truncated", errIndex)
	}
	return nil, errs[0]
}

func decodeEntries(body []byte, version uint32, hashSize int) (*gitIndex, error) {
	count := binary.BigEndian.Uint32(body[8:12])
	// 40 bytes of stat data, the object name, 2 of flags, and at least one
	// byte of name (v4) or a NUL: more entries than that cannot fit.
	fixed := 40 + hashSize + 2
	if uint64(count)*uint64(fixed+1) > uint64(len(body)-12) {
		return nil, fmt.Errorf("%w: %d entries do not fit in %d bytes", errIndex, count, len(body))
	}
	idx := &gitIndex{}
	pos := 12
	var prev []byte
	for i := uint32(0); i < count; i++ {
		start := pos
		if pos+fixed > len(body) {
			return nil, fmt.Errorf("%w: entry %d is truncated", errIndex, i)
		}
		mode := binary.BigEndian.Uint32(body[pos+24 : pos+28])
		flags := binary.BigEndian.Uint16(body[pos+fixed-2 : pos+fixed])
		pos += fixed
		if flags&0x4000 != 0 { // extended flags (v3+)
			if version < 3 || pos+2 > len(body) {
				return nil, fmt.Errorf("%w: entry %d has extended flags", errIndex, i)
			}
			pos += 2
		}
		var name []byte
		if version == 4 {
			strip, n, ok := varint(body[pos:])
			if !ok || strip > uint64(len(prev)) {
				return nil, fmt.Errorf("%w: entry %d has a bad name prefix", errIndex, i)
			}
			pos += n
			end := bytes.IndexByte(body[pos:], 0)
			if end < 0 {
				return nil, fmt.Errorf("%w: entry %d is truncated", errIndex, i)
			}
			name = append(append([]byte{}, prev[:len(prev)-int(strip)]...), body[pos:pos+end]...)
			pos += end + 1
		} else {
			end := bytes.IndexByte(body[pos:], 0)
			if end < 0 {
				return nil, fmt.Errorf("%w: entry %d is truncated", errIndex, i)
			}
			name = body[pos : pos+end]
			// Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
			pos = start + (pos+end-start+8)&^7
			if pos > len(body) {
				return nil, fmt.Errorf("%w: entry %d is truncated", errIndex, i)
			}
		}
		prev = name
		if len(name) == 0 {
			return nil, fmt.Errorf("%w: entry %d has no name", errIndex, i)
		}
		switch mode & modeTypeMask {
		case modeFile, modeLink:
			idx.files = append(idx.files, string(name))
		case modeGitlink:
			idx.gitlinks = append(idx.gitlinks, string(name))
		}
		// Anything else (a sparse index's folder entries) vouches for
		// no file: what lies below stays unread.
	}
	// Extensions: a signature starting with A-Z is optional; any other
	// changes what the entries mean (a split index keeps most entries in
	// another file), and is refused unless known to be harmless here.
	for pos < len(body) {
		if pos+8 > len(body) {
			return nil, fmt.Errorf("%w: truncated extension", errIndex)
		}
		sig := string(body[pos : pos+4])
		size := binary.BigEndian.Uint32(body[pos+4 : pos+8])
		if uint64(size) > uint64(len(body)-pos-8) {
			return nil, fmt.Errorf("%w: truncated extension", errIndex)
		}
		if (sig[0] < 'A' || sig[0] > 'Z') && sig != "sdir" {
			return nil, fmt.Errorf("%w: it needs the %q extension (a split index?)", errIndex, sanitizeSig(sig))
		}
		pos += 8 + int(size)
	}
	idx.files = sortedUnique(idx.files)
	idx.gitlinks = sortedUnique(idx.gitlinks)
	return idx, nil
}

// varint is the offset encoding of git's varint.c.
func varint(b []byte) (uint64, int, bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	c := b[0]
	v := uint64(c & 127)
	n := 1
	for c&128 != 0 {
		if n >= len(b) || n > 9 {
			return 0, 0, false
		}
		c = b[n]
		n++
		v = ((v + 1) << 7) | uint64(c&127)
	}
	return v, n, true
}

func sanitizeSig(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '?'
		}
		return r
	}, s)
}

// sortedUnique sorts s and drops repeats: a path in conflict is listed
// once per stage.
func sortedUnique(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// has reports whether the sorted list holds p.
func has(sorted []string, p string) bool {
	i := sort.SearchStrings(sorted, p)
	return i < len(sorted) && sorted[i] == p
}

// hasUnder reports whether the sorted list holds a path below the folder
// dir ("" is the top).
func hasUnder(sorted []string, dir string) bool {
	if dir == "" {
		return len(sorted) > 0
	}
	i := sort.SearchStrings(sorted, dir+"/")
	return i < len(sorted) && strings.HasPrefix(sorted[i], dir+"/")
}
