package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/podlint/podlint/timeline"
	yaml "go.yaml.in/yaml/v3"
)

// ConfigFileName is looked up from the working directory upwards;
// ConfigFileAltName is accepted too (both in one folder is an error).
const (
	ConfigFileName    = ".podlint.yaml"
	ConfigFileAltName = ".podlint.yml"
)

// Config is the .podlint.yaml file. Every key except rules has a
// command-line flag of the same name (TestConfigKeysHaveFlags); flags win.
type Config struct {
	FailOn      string            `yaml:"fail-on"`
	KubeVersion string            `yaml:"kube-version"`
	Enable      []string          `yaml:"enable"`
	Disable     []string          `yaml:"disable"`
	Rules       map[string]string `yaml:"rules"` // ID or name → error|warning|info|off
	Exclude     []string          `yaml:"exclude"`
	Nodes       int               `yaml:"nodes"` // schedulable nodes; 0 unknown
	// Container-name glob → duration ("90s", "2m").
	ExpectedStartup  yaml.Node `yaml:"expected-startup"`
	ExpectedShutdown yaml.Node `yaml:"expected-shutdown"`
	// Rendering of Helm charts and kustomizations.
	Render string                 `yaml:"render"` // auto | never
	Charts map[string]ChartConfig `yaml:"charts"` // chart folder → Helm options

	path string
	// dir is the folder of the config file; exclude patterns are relative
	// to it.
	dir string
}

// findConfig walks up from dir to stop (inclusive; "" means the file
// system root) and returns the first .podlint.yaml or .podlint.yml. Both
// in one folder is an error: which one wins would be a guess.
func findConfig(dir, stop string) (string, error) {
	for {
		var found []string
		for _, name := range []string{ConfigFileName, ConfigFileAltName} {
			p := filepath.Join(dir, name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				found = append(found, p)
			}
		}
		switch len(found) {
		case 1:
			return found[0], nil
		case 2:
			return "", fmt.Errorf("both %s and %s exist in %s; keep one", ConfigFileName, ConfigFileAltName, dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir || dir == stop {
			return "", nil
		}
		dir = parent
	}
}

// repoRoot is the nearest folder at or above dir that holds .git, or dir
// itself when there is none.
func repoRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// discoverConfig finds the configuration of a run: with one linted path
// inside the working directory's repository, the nearest config file
// from that path's folder up to the repository root (so `podlint check
// services/api` from the root uses services/api/.podlint.yaml); otherwise,
// or when there is none there, the nearest from the working directory up.
func discoverConfig(wd string, paths []string) (string, error) {
	if len(paths) == 1 && paths[0] != "-" {
		abs, err := filepath.Abs(paths[0])
		if fi, serr := os.Stat(abs); err == nil && serr == nil {
			dir := abs
			if !fi.IsDir() {
				dir = filepath.Dir(abs)
			}
			root := repoRoot(wd)
			if rel, err := filepath.Rel(root, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				if p, err := findConfig(dir, root); p != "" || err != nil {
					return p, err
				}
			}
		}
	}
	return findConfig(wd, "")
}

func loadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config %s: %v", path, unwrapPathErr(err))
	}
	c := &Config{path: path, dir: filepath.Dir(path)}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("config %s: %v", path, err)
	}
	return c, nil
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// expectations reads a "glob: duration" mapping, keeping the file's order
// (the first matching pattern wins).
func (c *Config) expectations(n *yaml.Node, key string) ([]timeline.Expectation, error) {
	if n.Kind == 0 {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("config %s:%d: %s must map container-name patterns to durations, e.g. {app: 90s}", c.path, n.Line, key)
	}
	var out []timeline.Expectation
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		secs, err := timeline.ParseSeconds(v.Value)
		if err != nil {
			return nil, fmt.Errorf("config %s:%d: %s: %q: %v", c.path, v.Line, key, v.Value, err)
		}
		if _, err := filepath.Match(k.Value, ""); err != nil {
			return nil, fmt.Errorf("config %s:%d: %s: bad pattern %q", c.path, k.Line, key, k.Value)
		}
		out = append(out, timeline.Expectation{Pattern: k.Value, Seconds: secs, Text: v.Value})
	}
	return out, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// flagExpectations reads --expected-startup and --expected-shutdown, which
// take the annotation's syntax ("90s", "app=90s,*-proxy=5s"). The list is
// ordered exact names, then globs, then the unnamed default, because the
// configuration's lists are matched first entry first while the
// annotation's syntax means the most specific entry wins.
func flagExpectations(v string) ([]timeline.Expectation, error) {
	list, err := timeline.ParseExpectations(v)
	if err != nil {
		return nil, err
	}
	rank := func(e timeline.Expectation) int {
		switch {
		case e.Pattern == "*":
			return 2
		case strings.ContainsAny(e.Pattern, "*?["):
			return 1
		}
		return 0
	}
	sort.SliceStable(list, func(i, j int) bool { return rank(list[i]) < rank(list[j]) })
	return list, nil
}
