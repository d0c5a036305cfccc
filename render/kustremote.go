package render

import "strings"

// kustomizeClones reports whether kustomize reads a resources (or bases,
// components) entry as a git repository to clone before it looks for a
// folder of that name: its loader tries the entry as a repository URL
// first (api/internal/loader/fileloader.go, FileLoader.New), and a URL
// without a scheme counts when it starts with github.com, with git::, or
// is an scp-style user@host:path (api/internal/git/repospec.go).
func kustomizeClones(entry string) bool {
	e := strings.ToLower(entry)
	if strings.HasPrefix(e, "git::") || strings.HasPrefix(e, "github.com/") || strings.HasPrefix(e, "github.com:") {
		return true
	}
	for _, scheme := range []string{"https://", "http://", "ssh://", "file://"} {
		if strings.HasPrefix(e, scheme) {
			return true
		}
	}
	user, rest, ok := strings.Cut(e, "@")
	return ok && user != "" && !strings.Contains(user, "/") && strings.Contains(rest, ":")
}
