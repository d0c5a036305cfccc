package settings

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/podlint/podlint/internal/safefile"
	"github.com/podlint/podlint/internal/textsafe"
	"github.com/podlint/podlint/timeline"
)

// maxObservedSize is the largest profile podlint reads (observe.MaxProfileSize).
const maxObservedSize = 16 << 20

// ReadProfile reads the profile at path, a regular file of at most the
// size a profile may have, for --observed and for podlint observe to
// merge into.
func ReadProfile(path string) ([]byte, error) { return readBounded(path, maxObservedSize) }

// readBounded reads a regular file of at most limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, UnwrapPathErr(err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, UnwrapPathErr(err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d MB, more than a profile may be", limit>>20)
	}
	return data, nil
}

// maxConfigObservedSize is the largest profile a configuration may name: a
// pull request's file, read on every run.
const maxConfigObservedSize = 1 << 20

// observedProfile reads the profile of --observed, else of the
// configuration's observed key, for the model. A profile can only
// lengthen the expected start-up and shutdown and add findings (timeline's
// observedOver), so one from the configuration, which a pull request may
// have written, is trusted that far; it must be a regular file inside the
// configuration's repository, of at most 1 MiB.
func (s *Settings) observedProfile(flag string, env *Env) (*timeline.Observed, error) {
	name, where := flag, "--observed "+textsafe.Quote(flag)
	var data []byte
	var err error
	switch {
	case flag != "":
		if fi, serr := os.Stat(flag); serr == nil && !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: not a regular file", where)
		}
		data, err = readBounded(flag, maxObservedSize)
	case s.Config != nil && s.Config.Observed != "":
		name = s.Config.Observed
		where = fmt.Sprintf("config %s: observed: %s", textsafe.Quote(s.Config.path), textsafe.Quote(name))
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(s.Config.dir, p)
		}
		var root *safefile.Root
		if root, err = safefile.Open(repoRoot(absPath(s.Config.dir)), s.Config.dir); err == nil {
			data, err = root.ReadFileUntracked(p, maxConfigObservedSize)
			root.Close()
		}
	default:
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", where, err)
	}
	if env.ReadProfile == nil {
		return nil, fmt.Errorf("%s: reading a profile needs podlint observe, which this executable does not link", where)
	}
	o, err := env.ReadProfile(data, name, env.now())
	if err != nil {
		return nil, err
	}
	if strings.Contains(o.Source, "stale") {
		env.Warnf("%s: the profile is a %s; start-ups may have changed since (run podlint observe again)", where, o.Source)
	}
	return o, nil
}
