package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/podlint/podlint/internal/settings"
	"github.com/podlint/podlint/internal/textsafe"
	"github.com/podlint/podlint/manifest"
	ucli "github.com/urfave/cli/v2"
)

// Output files are written the safe way round:
//
//   - never through a symbolic link: `-o results.sarif` where a pull request
//     made results.sarif a link to ../victim.txt would overwrite the victim;
//   - never onto one of the inputs, which would destroy the manifest being
//     checked;
//   - atomically: the report goes to a temporary file in the same folder,
//     which is synced and renamed over the target only once it is complete,
//     so a kill or a full disk leaves the previous report in place, and two
//     concurrent runs leave one whole report, not a mix.

// output is where a report goes: standard output, or a file being written.
type output struct {
	w       io.Writer
	tmp     *os.File  // nil for standard output
	temp    *tempFile // tmp, registered
	base    string    // the target's name in temp's folder
	ownsDir bool      // finish closes the folder
}

// openOutput returns where the report goes: -o FILE, or standard output.
func openOutput(c *ucli.Context, env *runEnv, srcs []manifest.Source) (*output, error) {
	o := c.String("output")
	if o == "" || o == "-" {
		return &output{w: env.stdout}, nil
	}
	return createOutput(o, "--output", srcs)
}

// createOutput opens the folder of path (see openOutDir) and a temporary
// file in it.
func createOutput(path, flag string, srcs []manifest.Source) (*output, error) {
	dir, base := filepath.Split(path)
	d, err := openOutDir(dir, false)
	if err != nil {
		return nil, outDirError(flag, path, err)
	}
	o, err := createOutputIn(d, base, path, flag, srcs)
	if err != nil {
		d.close()
		return nil, err
	}
	o.ownsDir = true
	return o, nil
}

// outDirError is the refusal of an output path whose folder cannot be
// opened or is a link inside the working tree.
func outDirError(flag, path string, err error) error {
	if errors.Is(err, errLinkInTree) {
		return &exitError{ExitError, fmt.Sprintf("%s %s: %v", flag, textsafe.Quote(path), err)}
	}
	return &exitError{ExitError, fmt.Sprintf("%s %s: %v", flag, textsafe.Quote(path), settings.UnwrapPathErr(err))}
}

// createOutputIn checks base in the folder d (path is both, as given) and
// opens a temporary file beside it.
func createOutputIn(d *outDir, base, path, flag string, srcs []manifest.Source) (*output, error) {
	name := textsafe.Quote(path)
	fi, err := os.Lstat(filepath.Join(d.name, base))
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return nil, &exitError{ExitError, fmt.Sprintf("%s %s is a symbolic link; podlint does not write through links (remove it, or write elsewhere)", flag, name)}
	case err == nil && !fi.Mode().IsRegular():
		return nil, &exitError{ExitError, fmt.Sprintf("%s %s exists and is not a regular file (use -o - for standard output)", flag, name)}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, &exitError{ExitError, fmt.Sprintf("%s %s: %v", flag, name, settings.UnwrapPathErr(err))}
	}
	if err == nil {
		for _, s := range srcs {
			if s.Data != nil {
				continue // standard input
			}
			if si, serr := os.Stat(s.Path); serr == nil && os.SameFile(fi, si) {
				return nil, &exitError{ExitError, fmt.Sprintf("%s %s is one of the files being checked; writing the report there would destroy it", flag, name)}
			}
		}
	}
	tmp, temp, err := createTemp(d, base)
	if err != nil {
		return nil, &exitError{ExitError, fmt.Sprintf("%s %s: %v", flag, name, settings.UnwrapPathErr(err))}
	}
	// The temporary file is private (0600); a report is not.
	mode := fs.FileMode(0o644)
	if fi != nil {
		mode = fi.Mode().Perm()
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		temp.discard()
		return nil, &exitError{ExitError, fmt.Sprintf("%s %s: %v", flag, name, settings.UnwrapPathErr(err))}
	}
	return &output{w: tmp, tmp: tmp, temp: temp, base: base}, nil
}

// finish completes the output: with werr == nil the temporary file is
// synced and renamed over the target; otherwise it is removed and the
// target left as it was. It returns werr or the first error finishing.
func (o *output) finish(werr error) error {
	if o.tmp == nil {
		return werr
	}
	if o.ownsDir {
		defer o.temp.dir.close()
	}
	if werr == nil {
		werr = o.tmp.Sync()
	}
	if cerr := o.tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		// The target may have become a link since it was checked; rename
		// replaces the link itself, never what it points at.
		werr = o.temp.commit(o.base)
	}
	if werr != nil {
		o.temp.discard()
	}
	return werr
}
