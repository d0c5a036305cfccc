package version

import (
	"runtime/debug"
	"testing"
)

func TestResolve(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, c := range []struct {
		name                  string
		version, commit, date string
		bi                    *debug.BuildInfo
		want                  Info
		wantString            string
	}{
		{
			name:    "goreleaser injects all three",
			version: "v1.2.3", commit: rev, date: "2026-01-02T03:04:05Z",
			bi:         &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", "ffff", "vcs.modified", "true")},
			want:       Info{Version: "v1.2.3", Commit: rev, Date: "2026-01-02T03:04:05Z"},
			wantString: "podlint v1.2.3 (commit 0123456789ab, 2026-01-02T03:04:05Z)",
		},
		{
			name:       "go install …@v1.2.3 (module zip: no VCS settings)",
			bi:         &debug.BuildInfo{Main: debug.Module{Path: "github.com/podlint/podlint", Version: "v1.2.3"}},
			want:       Info{Version: "v1.2.3"},
			wantString: "podlint v1.2.3",
		},
		{
			name: "go build in a modified checkout",
			bi: &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260102030405-0123456789ab+dirty"},
				Settings: vcs("vcs.revision", rev, "vcs.time", "2026-01-02T03:04:05Z", "vcs.modified", "true")},
			want:       Info{Version: "v0.0.0-20260102030405-0123456789ab+dirty", Commit: rev, Date: "2026-01-02T03:04:05Z", Modified: true},
			wantString: "podlint v0.0.0-20260102030405-0123456789ab+dirty (commit 0123456789ab-dirty, 2026-01-02T03:04:05Z)",
		},
		{
			name:       "go build outside version control",
			bi:         &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			want:       Info{Version: "devel"},
			wantString: "podlint devel",
		},
		{
			name:       "no build info at all",
			want:       Info{Version: "devel"},
			wantString: "podlint devel",
		},
		{
			name:       "the action injects only the ref",
			version:    "main",
			bi:         &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			want:       Info{Version: "main"},
			wantString: "podlint main",
		},
	} {
		got := resolve(c.version, c.commit, c.date, c.bi)
		if got != c.want {
			t.Errorf("%s: resolve = %+v, want %+v", c.name, got, c.want)
		}
		if s := got.String(); s != c.wantString {
			t.Errorf("%s: String = %q, want %q", c.name, s, c.wantString)
		}
	}
}
