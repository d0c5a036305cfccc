package crossobject

import (
	"reflect"
	"testing"

	"github.com/podlint/podlint/finding"
)

func part(file string, names ...string) *Part {
	p := &Part{File: file}
	for _, n := range names {
		p.IDs = append(p.IDs, identity(finding.ObjectRef{Kind: "Deployment", Name: n}))
	}
	return p
}

func files(envs [][]*Part) [][]string {
	var out [][]string
	for _, env := range envs {
		var fs []string
		for _, p := range env {
			fs = append(fs, p.File)
		}
		out = append(out, fs)
	}
	return out
}

func TestPartition(t *testing.T) {
	for _, tc := range []struct {
		name  string
		parts []*Part
		want  [][]string
	}{
		{"no clash: one environment", []*Part{part("a/web.yaml", "web"), part("b/api.yaml", "api"), part("top.yaml", "top")},
			[][]string{{"a/web.yaml", "b/api.yaml", "top.yaml"}}},
		{"dev and prod clash: each folder whole, with its subfolders",
			[]*Part{part("envs/dev/app/web.yaml", "web"), part("envs/dev/svc.yaml", "svc"), part("envs/prod/app/web.yaml", "web"), part("envs/prod/svc.yaml", "svc"), part("envs/README.yaml")},
			[][]string{{"envs/dev/app/web.yaml", "envs/dev/svc.yaml"}, {"envs/prod/app/web.yaml", "envs/prod/svc.yaml"}, {"envs/README.yaml"}}},
		{"alternatives in one folder: each file alone", []*Part{part("x/install.yaml", "web", "api"), part("x/ns-install.yaml", "web"), part("x/svc.yaml", "svc")},
			[][]string{{"x/install.yaml"}, {"x/ns-install.yaml"}, {"x/svc.yaml"}}},
		{"a file defining an object twice is not a clash", []*Part{part("one.yaml", "web", "web"), part("two.yaml", "api")},
			[][]string{{"one.yaml", "two.yaml"}}},
		{"batches of one file stay together", []*Part{part("/abs/big.yaml", "a"), part("/abs/big.yaml", "b"), part("/abs/other/big.yaml", "a")},
			[][]string{{"/abs/big.yaml", "/abs/big.yaml"}, {"/abs/other/big.yaml"}}},
		{"files right in a folder that is not whole and share nothing are together",
			[]*Part{part("deploy.yaml", "web"), part("a/x.yaml", "db"), part("b/x.yaml", "db"), part("svc.yaml", "svc")},
			[][]string{{"deploy.yaml", "svc.yaml"}, {"a/x.yaml"}, {"b/x.yaml"}}},
		{"deep clash splits only the folders above it", []*Part{part("r/a/x/1.yaml", "web"), part("r/a/y/2.yaml", "web"), part("r/b/3.yaml", "db"), part("r/b/c/4.yaml", "svc")},
			[][]string{{"r/a/x/1.yaml"}, {"r/a/y/2.yaml"}, {"r/b/3.yaml", "r/b/c/4.yaml"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := files(Partition(tc.parts)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Partition = %q, want %q", got, tc.want)
			}
		})
	}
}
