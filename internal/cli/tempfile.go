package cli

import (
	"os"
	"os/signal"
	"sync"
)

// The temporary files podlint writes beside a target (a fixed manifest, a
// report) are named ".NAME.*.tmp" and live in the user's repository until
// they are renamed over the target. A run stopped by a signal in between
// (a CI job cancelled, ^C) must not leave them there: they are registered
// while they exist, and the first terminating signal removes them before
// podlint exits with the status the signal would have given it.

var temps struct {
	sync.Mutex
	files map[*tempFile]bool
	once  sync.Once
}

// tempFile is a registered temporary file: name in the folder dir.
type tempFile struct {
	dir  *outDir
	name string
}

// beforeRename is called with a temporary file's name just before it is
// renamed over its target; tests use it to stop a run at that point.
var beforeRename func(tmp string)

// createTemp creates the temporary file for target base in d and
// registers it for removal on a signal.
func createTemp(d *outDir, base string) (*os.File, *tempFile, error) {
	temps.once.Do(func() {
		ch := make(chan os.Signal, 1)
		for _, sig := range stopSignals {
			// A signal podlint was started ignoring (nohup) stays ignored.
			if !signal.Ignored(sig) {
				signal.Notify(ch, sig)
			}
		}
		go func() {
			sig := <-ch
			temps.Lock() // held: no new file is registered or renamed after this
			for t := range temps.files {
				t.dir.remove(t.name)
			}
			reraise(sig)
		}()
	})
	f, name, err := d.createTemp(base)
	if err != nil {
		return nil, nil, err
	}
	t := &tempFile{dir: d, name: name}
	temps.Lock()
	if temps.files == nil {
		temps.files = map[*tempFile]bool{}
	}
	temps.files[t] = true
	temps.Unlock()
	return f, t, nil
}

// commit renames the temporary file over base, in its folder.
func (t *tempFile) commit(base string) error {
	if beforeRename != nil {
		beforeRename(t.name)
	}
	temps.Lock()
	defer temps.Unlock()
	delete(temps.files, t)
	return t.dir.rename(t.name, base)
}

// discard removes the temporary file.
func (t *tempFile) discard() {
	temps.Lock()
	defer temps.Unlock()
	delete(temps.files, t)
	t.dir.remove(t.name)
}
