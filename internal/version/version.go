// Package version says which podlint a binary is. A release build gets its
// version, commit and date from goreleaser's -ldflags -X; any other build
// falls back to what the Go toolchain recorded in the binary
// (runtime/debug.ReadBuildInfo): `go install …/cmd/podlint@v1.2.3` records
// the module version v1.2.3, and `go build` in a git checkout records the
// commit and its time.
package version

import (
	"runtime/debug"
	"strings"
)

// Set at build time, for example
//
//	-ldflags "-X github.com/podlint/podlint/internal/version.Version=v1.2.3
//	          -X github.com/podlint/podlint/internal/version.Commit=0123abc…
//	          -X github.com/podlint/podlint/internal/version.Date=2026-01-02T03:04:05Z"
var (
	Version = ""
	Commit  = ""
	Date    = ""
)

// Info is a build's identity. Empty fields are unknown.
type Info struct {
	Version  string // "v1.2.3", or "devel" when nothing says better
	Commit   string // full VCS revision
	Date     string // commit or build time, RFC 3339
	Modified bool   // built from a working tree with uncommitted changes
}

// Get returns this binary's Info.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return resolve(Version, Commit, Date, bi)
}

// resolve prefers the injected values and fills the gaps from the build
// info (nil when the binary has none).
func resolve(version, commit, date string, bi *debug.BuildInfo) Info {
	info := Info{Version: version, Commit: commit, Date: date}
	if bi != nil {
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if info.Commit == "" {
					info.Commit = s.Value
				}
			case "vcs.time":
				if info.Date == "" {
					info.Date = s.Value
				}
			case "vcs.modified":
				// Only meaningful for the revision the build info names.
				info.Modified = s.Value == "true" && commit == ""
			}
		}
	}
	if info.Version == "" {
		info.Version = "devel"
	}
	return info
}

// String is what `podlint version` and `podlint --version` print:
//
//	podlint v1.2.3 (commit 0123456789ab, 2026-01-02T03:04:05Z)
func (i Info) String() string {
	var b strings.Builder
	b.WriteString("podlint ")
	b.WriteString(i.Version)
	var details []string
	if i.Commit != "" {
		c := i.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if i.Modified {
			c += "-dirty"
		}
		details = append(details, "commit "+c)
	}
	if i.Date != "" {
		details = append(details, i.Date)
	}
	if len(details) > 0 {
		b.WriteString(" (" + strings.Join(details, ", ") + ")")
	}
	return b.String()
}
