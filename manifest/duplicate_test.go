package manifest

import (
	"testing"

	"github.com/podlint/podlint/finding"
)

// TestDuplicateFixSafety: deleting the first of two duplicate keys is safe
// when both values are the same, mappings included (three corpus files
// repeat a Deployment's whole selector), and unsafe when they differ.
func TestDuplicateFixSafety(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      finding.FixSafety
	}{
		{"same mapping", "spec:\n  selector:\n    matchLabels:\n      name: etcd\n  replicas: 3\n  selector:\n    matchLabels:\n      name: etcd\n", finding.Safe},
		{"same mapping, other style", "spec:\n  selector:\n    matchLabels:\n      name: etcd\n  selector: {matchLabels: {name: etcd}}\n", finding.Safe},
		{"same scalar", "spec:\n  replicas: 3\n  replicas: 3\n", finding.Safe},
		{"other mapping", "spec:\n  selector:\n    matchLabels:\n      name: etcd\n  selector:\n    matchLabels:\n      name: web\n", finding.Unsafe},
		{"other scalar type", "spec:\n  replicas: 3\n  replicas: \"3\"\n", finding.Unsafe},
	} {
		doc := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: etcd}\n" + tc.doc
		res := Parse("dup.yaml", []byte(doc), DefaultLimits)
		var got []finding.Fix
		for _, p := range res.Problems {
			if p.Rule == RuleDuplicateKey {
				got = p.Fixes
			}
		}
		if len(got) != 1 || got[0].Safety != tc.want {
			t.Errorf("%s: fixes %+v, want one of safety %v", tc.name, got, tc.want)
		}
	}
}
