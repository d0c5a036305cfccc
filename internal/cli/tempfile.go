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
	files map[string]bool
	once  sync.Once
}

// beforeRename is called with a temporary file's name just before it is
// renamed over its target; tests use it to stop a run at that point.
var beforeRename func(tmp string)

// createTemp creates the temporary file for target in dir and registers
// it for removal on a signal.
func createTemp(dir, base string) (*os.File, error) {
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
			for f := range temps.files {
				os.Remove(f)
			}
			reraise(sig)
		}()
	})
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return nil, err
	}
	temps.Lock()
	if temps.files == nil {
		temps.files = map[string]bool{}
	}
	temps.files[tmp.Name()] = true
	temps.Unlock()
	return tmp, nil
}

// renameTemp renames a registered temporary file over target, or with
// target "" removes it; either way it is no longer registered.
func renameTemp(tmp, target string) error {
	if target != "" && beforeRename != nil {
		beforeRename(tmp)
	}
	temps.Lock()
	defer temps.Unlock()
	delete(temps.files, tmp)
	if target == "" {
		return os.Remove(tmp)
	}
	return os.Rename(tmp, target)
}
