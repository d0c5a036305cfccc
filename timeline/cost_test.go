package timeline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/podlint/podlint/internal/alloctest"
	"github.com/podlint/podlint/workload"
	corev1 "k8s.io/api/core/v1"
)

// Cost tests: the work must grow linearly with the input. Work is measured
// in bytes allocated (never in time): a quadratic step shows as a ratio of
// about 4 between inputs of size 2N and N, a linear one as about 2.

// allocated returns the bytes f allocates, the least of a few runs.
var allocated = alloctest.Min

// checkLinear fails unless cost(2n) ≤ 2.5 × cost(n), growth below
// alloctest.Floor aside.
func checkLinear(t *testing.T, n int, cost func(n int) uint64) {
	t.Helper()
	a, b := cost(n), cost(2*n)
	t.Logf("n=%d: %d bytes; 2n: %d bytes (×%.2f)", n, a, b, float64(b)/float64(a))
	if alloctest.Exceeds(a, b, 2.5) {
		t.Errorf("doubling the input from %d multiplied the bytes allocated by %.2f (%d → %d); want at most 2.5 (linear)", n, float64(b)/float64(a), a, b)
	}
}

// manyContainers is a Pod with n init containers, n sidecars and n regular
// containers, each with the probes and hooks the start chain reads.
func manyContainers(n int) *workload.Workload {
	always := corev1.ContainerRestartPolicyAlways
	spec := &corev1.PodSpec{}
	for i := range n {
		c := corev1.Container{Name: fmt.Sprintf("c%d", i), Image: "busybox",
			ReadinessProbe: probe(1, 2, 1, 1, 3), LivenessProbe: probe(5, 10, 1, 1, 3), StartupProbe: probe(0, 1, 1, 1, 30),
			Lifecycle: &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sleep", "1"}}},
				PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "sleep 5"}}}}}
		spec.InitContainers = append(spec.InitContainers, corev1.Container{Name: fmt.Sprintf("i%d", i), Image: "busybox"})
		sc := c
		sc.Name = fmt.Sprintf("s%d", i)
		sc.RestartPolicy = &always
		spec.InitContainers = append(spec.InitContainers, sc)
		spec.Containers = append(spec.Containers, c)
	}
	return podWorkload(spec)
}

// TestComputeIsLinearInContainers: the start chain once copied every
// earlier container's paths into each span (2 800 containers took 13 s).
func TestComputeIsLinearInContainers(t *testing.T) {
	checkLinear(t, 300, func(n int) uint64 {
		w := manyContainers(n)
		return allocated(func() { Compute(w, Latest, DefaultParams()) })
	})
}

func TestSpanTermsAreBounded(t *testing.T) {
	tl := Compute(manyContainers(100), Latest, DefaultParams())
	last := tl.Containers[len(tl.Containers)-1]
	plus, paths := last.Start.Plus, last.Start.Paths
	if len(plus) != maxTerms || plus[len(plus)-1] != Elided {
		t.Errorf("Plus of the last container's start has %d entries ending in %q; want %d ending in %q", len(plus), plus[len(plus)-1], maxTerms, Elided)
	}
	if len(paths) != maxTerms || paths[len(paths)-1] != Elided {
		t.Errorf("Paths of the last container's start has %d entries ending in %q; want %d ending in %q", len(paths), paths[len(paths)-1], maxTerms, Elided)
	}
	if s := last.Start.String(); !strings.HasSuffix(s, " + "+Elided) {
		t.Errorf("Start = %s; want the cut list to end in %s", s, Elided)
	}
}

// TestStatedSleepIsLinear: hook scripts are read in one pass, whatever
// their shape.
func TestStatedSleepIsLinear(t *testing.T) {
	scripts := map[string]func(n int) string{
		"newlines": func(n int) string { return "sleep 1" + strings.Repeat("\n", n) + "true" },
		"while;":   func(n int) string { return strings.Repeat("while;", n) },
		"nested loops": func(n int) string {
			return strings.Repeat("while true; do ", n) + "sleep 1" + strings.Repeat("; done", n)
		},
		"unclosed quote":    func(n int) string { return "sleep 1; echo \"" + strings.Repeat("x\n", n) },
		"comments":          func(n int) string { return strings.Repeat("# c\n", n) + "sleep 2" },
		"operators":         func(n int) string { return strings.Repeat("true && ", n) + "sleep 2" },
		"opaque subshells":  func(n int) string { return strings.Repeat("(sleep 1) ; ", n) },
		"sleeps":            func(n int) string { return strings.Repeat("sleep 1;", n) },
		"line continuation": func(n int) string { return "sleep" + strings.Repeat(" \\\n", n) + " 3" },
	}
	for name, gen := range scripts {
		t.Run(name, func(t *testing.T) {
			checkLinear(t, 20_000, func(n int) uint64 {
				cmd := []string{"sh", "-c", gen(n)}
				return allocated(func() { StatedSleep(cmd) })
			})
		})
	}
}
