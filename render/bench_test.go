//go:build unix

package render

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/podlint/podlint/internal/gencrd"
	"github.com/podlint/podlint/manifest"
)

// The render path's benchmarks (issue 36): a root rendered as podlint
// renders it (Options.Open: the render child, its reply decoded, the
// stream and source map built), reported as CPU time per root, the
// child's and this process's together (cpu-ms/op; ns/op is wall-clock
// time, which the machine's load inflates). With the reference tool named
// in the environment, each iteration also runs it on the same root right
// after, and ref-cpu-ms/op and ratio/op compare the two in the same run:
//
//	PODLINT_BENCH_KUSTOMIZE=/tmp/ref/kustomize PODLINT_BENCH_HELM=/tmp/ref/helm \
//	  go test -run=NONE -bench=Render -benchtime=3x ./render
//
// scripts/render-bench.sh builds both at the versions go.mod pins, outside
// the repository, and runs this. No test needs them.

// BenchmarkRenderKustomizeCRDs: the kustomization, four 2.8 MB
// CRDs (as controller-gen writes them), a Deployment, a Service and an
// overlay, written by internal/gencrd at benchmark time.
func BenchmarkRenderKustomizeCRDs(b *testing.B) {
	dir := b.TempDir()
	if err := gencrd.Write(dir, 4, 2_800_000); err != nil {
		b.Fatal(err)
	}
	over := filepath.Join(dir, "overlay")
	benchRender(b, manifest.Source{Path: over, Root: dir, Render: manifest.RenderKustomize}, HelmOptions{},
		os.Getenv("PODLINT_BENCH_KUSTOMIZE"), "build", over)
}

// BenchmarkRenderChartSubcharts: a chart with a subchart
// (testdata/helm/subchart), where the process start is most of the cost.
func BenchmarkRenderChartSubcharts(b *testing.B) {
	chart, _ := filepath.Abs(filepath.Join("testdata", "helm", "subchart"))
	benchRender(b, manifest.Source{Path: chart, Render: manifest.RenderHelm}, HelmOptions{Set: []string{"token=x"}},
		os.Getenv("PODLINT_BENCH_HELM"), "template", "release-name", chart, "--set", "token=x")
}

// BenchmarkRenderChartLarge: ingress-nginx (45 templates).
func BenchmarkRenderChartLarge(b *testing.B) {
	chart, _ := filepath.Abs(filepath.Join("testdata", "helm", "ingress-nginx"))
	benchRender(b, manifest.Source{Path: chart, Render: manifest.RenderHelm}, HelmOptions{KubeVersion: "1.37"},
		os.Getenv("PODLINT_BENCH_HELM"), "template", "release-name", chart, "--kube-version", "1.37")
}

func benchRender(b *testing.B, src manifest.Source, ho HelmOptions, ref string, refArgs ...string) {
	o := &Options{Limits: Limits{CPU: 10 * time.Minute, Memory: 4 << 30, Wall: 10 * time.Minute, Output: 1 << 30},
		Helm: func(string) HelmOptions { return ho }}
	var ours, theirs time.Duration
	b.ResetTimer()
	for b.Loop() {
		before := usedCPU()
		out, err := o.Open(src)
		if err != nil {
			b.Fatal(err)
		}
		if len(out.Problems) > 0 {
			b.Fatalf("%s: %+v", src.Path, out.Problems)
		}
		out.Map.Close()
		ours += usedCPU() - before
		if ref != "" {
			cmd := exec.Command(ref, refArgs...)
			cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
			if err := cmd.Run(); err != nil {
				b.Fatalf("%s %v: %v", ref, refArgs, err)
			}
			theirs += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(ours.Milliseconds())/n, "cpu-ms/op")
	if ref != "" {
		b.ReportMetric(float64(theirs.Milliseconds())/n, "ref-cpu-ms/op")
		b.ReportMetric(float64(ours)/float64(theirs), "ratio/op")
	}
}

// usedCPU is the CPU time of this process and of its children it waited
// for, all threads.
func usedCPU() time.Duration {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
}
