package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/podlint/podlint/internal/textsafe"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/timeline"
	yaml "go.yaml.in/yaml/v3"
)

// ConfigFileName is looked up from the working directory upwards.
const ConfigFileName = ".podlint.yaml"

// Config is the .podlint.yaml file. Every key has a command-line flag of the
// same name; flags win.
type Config struct {
	FailOn      string            `yaml:"fail-on"`
	KubeVersion string            `yaml:"kube-version"`
	Enable      []string          `yaml:"enable"`
	Disable     []string          `yaml:"disable"`
	Rules       map[string]string `yaml:"rules"` // ID or name → error|warning|info|off
	Exclude     []string          `yaml:"exclude"`
	// Container-name glob → duration ("90s", "2m").
	ExpectedStartup  yaml.Node `yaml:"expected-startup"`
	ExpectedShutdown yaml.Node `yaml:"expected-shutdown"`

	path string
	// dir is the folder of the config file; exclude patterns are relative
	// to it.
	dir string
}

// findConfig looks for the configuration file from dir upwards, within a
// boundary: a .podlint.yaml in any parent (a shared /tmp, the home folder
// of a CI runner) once silently applied to every run below it, and
// `exclude: ["**"]` there turned linting off. Inside a Git repository (a
// folder holding .git, found without going above the user's home) the
// search goes from dir up to the repository root; outside one only dir
// itself is read.
func findConfig(dir string) string {
	home, _ := os.UserHomeDir()
	top := dir // outside a repository: dir only
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			top = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d || (home != "" && parent == home) {
			break
		}
		d = parent
	}
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, ConfigFileName)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
		if d == top || filepath.Dir(d) == d {
			return ""
		}
	}
}

// maxConfigSize bounds a configuration file, like --max-file-size bounds
// manifests; real ones are a few hundred bytes.
const maxConfigSize = 1 << 20

func loadConfig(path string) (*Config, error) {
	data, tooBig, err := manifest.ReadSource(path, maxConfigSize)
	if err != nil {
		return nil, fmt.Errorf("config %v", err)
	}
	if tooBig {
		return nil, fmt.Errorf("config %s: larger than %d bytes; this is not a podlint configuration", textsafe.Quote(path), maxConfigSize)
	}
	c := &Config{path: path, dir: filepath.Dir(path)}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("config %s: %v", path, err)
	}
	// One document only: with several, which one applies would be a
	// guess, and a second one could hide below an innocent first.
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("config %s: holds more than one YAML document; a configuration is one mapping", path)
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
		out = append(out, timeline.Expectation{Pattern: k.Value, Seconds: secs})
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
