package lsp

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podlint/podlint/timeline"
)

// TestHoverShowsObserved: with a profile in the folder's settings (the
// configuration's observed:, which internal/cli reads into the
// analyzer's parameters), a hover on a probe or on preStop shows what
// the cluster saw beside the computed windows, and a workload the profile
// does not cover shows nothing of it.
func TestHoverShowsObserved(t *testing.T) {
	observed := &timeline.Observed{Source: "watch of 2026-11-28 to 2026-12-01", Mode: "watch",
		From: time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC), To: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC),
		Workloads: map[string]map[string]timeline.ObservedContainer{
			"shop/Deployment/storefront": {"web": {Starts: 20, StartupMin: 38, StartupMedian: 58, StartupP95: 84, StartupMax: 96,
				KillsBeforeReady: 4, NotReadyAfter: 47, LivenessProbeKills: 6,
				Shutdowns: 3, ShutdownMin: 30.5, ShutdownMedian: 31, ShutdownP95: 32, ShutdownMax: 32, SIGKILLs: 2}},
			"default/Deployment/other": {"api": {Starts: 1, StartupMin: 5, StartupMedian: 5, StartupP95: 5, StartupMax: 5}},
		}}
	e := &Podlint{Configure: func(path string) (*Config, error) {
		cfg, err := defaultConfig(path)
		cfg.Analyzer.Params.Observed = observed
		return cfg, err
	}}
	e.Open(nil)
	hover := func(file, field string) string {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "examples", file))
		if err != nil {
			t.Fatal(err)
		}
		md, _, _ := e.Hover("/ws/"+file, data, bytes.Index(data, []byte(field+":"))+1, 60)
		if md == "" {
			t.Fatalf("%s %s: no hover", file, field)
		}
		return md
	}
	for _, tc := range []struct {
		field string
		want  []string
	}{
		{"livenessProbe", []string{"  start → ready               never\n", "liveness kill if unhealthy", "  observed start-up ", "  probe-killed before Ready ", "▲",
			"observed in the cluster (podlint observe): watch of 2026-11-28 to 2026-12-01",
			"observed start-up of web: 20 starts, shortest 38s, median 58s, p95 84s, longest 96s from start to Ready; liveness kills it between 34s and 45s after start",
			"not Ready after up to 47s"}},
		{"readinessProbe", []string{"  observed start-up ", "observed start-up of web: 20 starts"}},
		{"preStop", []string{"SIGTERM → SIGKILL", "  observed shutdown ", "observed shutdown of web: 3 deletions, shortest 30.5s, median 31s, p95 32s, longest 32s from the delete request to its exit, 2 ended by SIGKILL"}},
	} {
		md := hover("web-deployment.yaml", tc.field)
		unwrapped := strings.ReplaceAll(md, "\n  ", " ")
		for _, w := range tc.want {
			if !strings.Contains(md, w) && !strings.Contains(unwrapped, w) {
				t.Errorf("hover on %s lacks %q:\n%s", tc.field, w, md)
			}
		}
		if tc.field == "preStop" && strings.Contains(md, "observed start-up") {
			t.Errorf("hover on preStop shows start-ups:\n%s", md)
		}
	}
	// The api of healthy-deployment.yaml states no namespace and is the
	// one Deployment api nowhere in the profile.
	for _, field := range []string{"livenessProbe", "startupProbe", "preStop", "terminationGracePeriodSeconds"} {
		if md := hover("healthy-deployment.yaml", field); strings.Contains(md, "observed") {
			t.Errorf("hover on %s of a workload the profile does not cover shows observations:\n%s", field, md)
		}
	}
}
