//go:build unix

package render

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/podlint/podlint/manifest"
)

// fifo makes a FIFO at p whose writer hands out text to whoever opens it
// for reading. Reading a FIFO through a derived path used to block until a
// writer came (forever in CI); here one is waiting, so a read that should
// not happen shows up as read() returning true instead of as a hang.
func fifo(t *testing.T, p, text string) (read func() bool) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	var done atomic.Bool
	stop, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		// Every opener gets the text: Helm and kustomize may read a file
		// more than once.
		for {
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			select {
			case <-stop:
				f.Close()
				return
			default:
			}
			f.WriteString(text)
			done.Store(true) // before Close: a reader sees EOF only after it
			f.Close()
		}
	}()
	t.Cleanup(func() {
		close(stop)
		// The writer waits in open for a reader: be one until it is gone.
		for {
			select {
			case <-exited:
				return
			default:
			}
			if f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		}
	})
	return done.Load
}

// TestHostileNoFIFOIsRead: a FIFO as a kustomize patch, a kustomize
// resource or a chart file is refused without reading it.
func TestHostileNoFIFOIsRead(t *testing.T) {
	const pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: hunter2}\nspec:\n  containers: [{name: a, image: x}]\n"
	repo, _, write := hostileRepo(t)
	write("patch/kustomization.yaml", "resources: [pod.yaml]\npatches:\n  - path: patch.yaml\n")
	write("patch/pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: x}]\n")
	write("resource/kustomization.yaml", "resources: [pod.yaml]\n")
	write("chart/Chart.yaml", "apiVersion: v2\nname: c\nversion: 0.1.0\n")
	write("chart/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n")
	for _, tc := range []struct{ root, fifo, render string }{
		{"patch", "patch/patch.yaml", manifest.RenderKustomize},
		{"resource", "resource/pod.yaml", manifest.RenderKustomize},
		{"chart", "chart/templates/pod.yaml", manifest.RenderHelm},
	} {
		t.Run(tc.root, func(t *testing.T) {
			read := fifo(t, filepath.Join(repo, tc.fifo), pod)
			fs := lintHostile(t, manifest.Source{Path: filepath.Join(repo, tc.root), Render: tc.render})
			if read() {
				t.Errorf("the FIFO %s was read", tc.fifo)
			}
			if len(fs) == 0 {
				t.Error("no finding: the FIFO was skipped silently")
			}
		})
	}
}
