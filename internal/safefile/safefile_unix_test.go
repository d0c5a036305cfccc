//go:build unix

package safefile

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
)

func TestReadFileRefusesWhatIsNotAPlainFile(t *testing.T) {
	dir, _ := repo(t)
	fifo := filepath.Join(dir, "chart/templates/fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	r := open(t, "", dir)
	// Without O_NONBLOCK and the type checks this blocks forever, as no
	// one writes to the FIFO.
	if _, err := r.ReadFile(fifo, 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile(FIFO) = %v, want ErrNotRegular", err)
	}
	if _, err := r.ReadFile(filepath.Join(dir, "chart"), 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile(folder) = %v, want ErrNotRegular", err)
	}
	dev := open(t, "/dev", "/dev")
	if _, err := dev.ReadFile("/dev/zero", 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile(/dev/zero) = %v, want ErrNotRegular", err)
	}
}

func mkfifo(p string) error { return syscall.Mkfifo(p, 0o644) }
