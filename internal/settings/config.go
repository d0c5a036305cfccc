package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/podlint/podlint/internal/safefile"
	"github.com/podlint/podlint/internal/textsafe"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/policy"
	"github.com/podlint/podlint/rules"
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
	// A profile of podlint observe, relative to the file's folder.
	Observed string `yaml:"observed"`
	// Rendering of Helm charts and kustomizations.
	Render string                 `yaml:"render"` // auto | never
	Charts map[string]ChartConfig `yaml:"charts"` // chart folder → Helm options
	// Limits of the process that renders each chart or kustomization.
	RenderCPU       string `yaml:"render-cpu"`        // duration
	RenderMemory    string `yaml:"render-memory"`     // size
	RenderTimeout   string `yaml:"render-timeout"`    // duration
	RenderMaxOutput string `yaml:"render-max-output"` // size
	// CPU time of all the renders of a run together (duration).
	RenderBudget string `yaml:"render-budget"`
	// What podlint fix may do.
	Fix FixConfig `yaml:"fix"`
	// Lifecycle requirements (package policy), added to those of the
	// files --policy names; read by policySetup.
	Policies yaml.Node `yaml:"policies"`

	path string
	// dir is the folder of the config file; exclude patterns are relative
	// to it.
	dir string
	// root is the file's top-level mapping, for the lines of its keys.
	root *yaml.Node
}

// FixConfig is the fix section of .podlint.yaml.
type FixConfig struct {
	// Never lists the rules (ID or name) whose findings podlint fix never
	// fixes, whatever --select says. A repository's configuration can
	// only take fixes away with it, never add one.
	Never []string `yaml:"never"`
}

// checkKeys reports the first key of mapping n that struct type t (or, for
// a map of structs, its element) has no yaml tag for. what says what the
// file at path is ("config", or "--policy" for a policy file), prefix is
// the path of n for the message ("charts.shop.").
func checkKeys(what, path string, n *yaml.Node, t reflect.Type, prefix string) error {
	if n.Kind != yaml.MappingNode || t.Kind() != reflect.Struct {
		return nil
	}
	fields := map[string]reflect.Type{}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		fields[name] = f.Type
		names = append(names, name)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		ft, ok := fields[k.Value]
		if !ok {
			in := path
			if what != "config" {
				in = what + " " + path
			}
			return fmt.Errorf("unknown key %s in %s:%d%s", textsafe.Quote(prefix+k.Value), in, k.Line, DidYouMean(k.Value, names))
		}
		if err := checkType(what, path, prefix+k.Value, k.Line, v, ft); err != nil {
			return err
		}
		if ft.Kind() == reflect.Struct && ft != reflect.TypeFor[yaml.Node]() {
			if err := checkKeys(what, path, v, ft, prefix+k.Value+"."); err != nil {
				return err
			}
		}
		if ft.Kind() == reflect.Map && ft.Elem().Kind() == reflect.Struct && v.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(v.Content); j += 2 {
				if err := checkKeys(what, path, v.Content[j+1], ft.Elem(), prefix+k.Value+"."+v.Content[j].Value+"."); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// configExamples shows each key of .podlint.yaml with a value of its type,
// for the message that reports a value of another type. A key of a chart
// (charts.DIR.KEY) is found by its last part.
var configExamples = map[string]string{
	"fail-on":           "fail-on: warning",
	"kube-version":      `kube-version: "1.30"`,
	"enable":            "enable: [" + rules.MissingLivenessProbe.ID + "]",
	"disable":           "disable: [" + rules.MissingReadinessProbe.ID + ", " + rules.DuplicateContainerName.Name + "]",
	"rules":             "rules: {" + rules.ProbeInvalidSuccessThreshold.ID + ": warning}",
	"exclude":           `exclude: [vendor/**, "**/testdata/**"]`,
	"nodes":             "nodes: 3",
	"expected-startup":  `expected-startup: {"*": 90s}`,
	"expected-shutdown": "expected-shutdown: {app: 25s}",
	"render":            "render: never",
	"charts":            "charts: {deploy/chart: {values: [ci/prod-values.yaml]}}",
	"render-cpu":        "render-cpu: 10s",
	"render-memory":     "render-memory: 1GiB",
	"render-timeout":    "render-timeout: 1m",
	"render-max-output": "render-max-output: 64MiB",
	"render-budget":     "render-budget: 1m",
	"fix":               "fix: {never: [" + rules.ProbeTimeoutExceedsPeriod.ID + "]}",
	"never":             "never: [" + rules.ProbeTimeoutExceedsPeriod.ID + "]",
	"values":            "values: [ci/prod-values.yaml]",
	"set":               "set: [replicaCount=2]",
	"release-name":      "release-name: shop",
	"namespace":         "namespace: web",
}

// checkType reports a value of key whose YAML kind cannot decode into t:
// the key, its line, the type wanted and an example, where yaml.v3 would
// say "cannot unmarshal !!seq into string".
func checkType(what, path, key string, line int, v *yaml.Node, t reflect.Type) error {
	if v.Kind == yaml.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	if t == reflect.TypeFor[yaml.Node]() || (v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
		return nil // read by its own code (expectations), or left unset
	}
	var want string
	ok := true
	switch t.Kind() {
	case reflect.String:
		want, ok = "a string", v.Kind == yaml.ScalarNode
	case reflect.Int:
		want, ok = "a whole number", v.Kind == yaml.ScalarNode && v.Tag == "!!int"
	case reflect.Slice:
		want, ok = "a list of strings", v.Kind == yaml.SequenceNode
		for _, item := range v.Content {
			ok = ok && item.Kind == yaml.ScalarNode
		}
	case reflect.Struct:
		want, ok = "a mapping", v.Kind == yaml.MappingNode
	case reflect.Map:
		want, ok = "a mapping", v.Kind == yaml.MappingNode
		if ok && t.Elem().Kind() == reflect.String {
			for i := 0; i+1 < len(v.Content); i += 2 {
				if err := checkType(what, path, key+"."+v.Content[i].Value, v.Content[i].Line, v.Content[i+1], t.Elem()); err != nil {
					return err
				}
			}
		}
	}
	if ok {
		return nil
	}
	example := ""
	if e, found := configExamples[key[strings.LastIndex(key, ".")+1:]]; found {
		example = ", e.g. " + e
	} else if e, found := policy.Examples[key[strings.LastIndex(key, ".")+1:]]; found {
		example = ", e.g. " + e
	} else if parent, _, cut := strings.Cut(key, "."); cut && parent == "rules" {
		want, example = "a severity", ": error, warning, info or off, e.g. "+configExamples["rules"]
	}
	return fmt.Errorf("%s %s:%d: %s is %s; want %s%s", what, textsafe.Escape(path), line, textsafe.Quote(key), kindName(v), want, example)
}

// kindName says what a YAML value is, as a user reads it.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	switch n.Tag {
	case "!!int", "!!float":
		return "the number " + n.Value
	case "!!bool":
		return "the boolean " + n.Value
	}
	v := n.Value
	// A configuration holds at most 1 MB; the message quotes the start of
	// a long value, not all of it.
	if r := []rune(v); len(r) > 60 {
		v = string(r[:60]) + "…"
	}
	return "the string " + textsafe.Quote(v)
}

// setting names where the value of key came from: the flag when it was
// given, otherwise the config file and the key's line.
func (c *Config) setting(flagSet bool, key string) string {
	if flagSet || c == nil || c.root == nil {
		return "--" + key
	}
	for i := 0; i+1 < len(c.root.Content); i += 2 {
		if c.root.Content[i].Value == key {
			return fmt.Sprintf("%s in %s:%d", key, c.path, c.root.Content[i].Line)
		}
	}
	return key + " in " + c.path
}

// findConfig walks up from dir to stop (inclusive) and returns the first
// .podlint.yaml or .podlint.yml. Both in one folder is an error: which one
// wins would be a guess. Callers bound the walk with repoRoot.
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

// maxConfigSize bounds a configuration file, like --max-file-size bounds
// manifests; real ones are a few hundred bytes.
const maxConfigSize = 1 << 20

// repoRoot is where the search for a configuration file stops: the
// nearest folder at or above dir that holds .git, found without going
// above the user's home, or dir itself when there is none. Without this
// boundary a .podlint.yaml in any parent (a shared /tmp, the home folder
// of a CI runner) silently applied to every run below it, and
// `exclude: ["**"]` there turned linting off.
func repoRoot(dir string) string {
	home, _ := os.UserHomeDir()
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d || (home != "" && parent == home) {
			return dir
		}
		d = parent
	}
}

// discoverConfig finds the configuration of a run: with one linted path
// inside the working directory's repository, the nearest config file
// from that path's folder up to the repository root (so `podlint check
// services/api` from the root uses services/api/.podlint.yaml); otherwise,
// or when there is none there, the nearest from the working directory up
// to the repository root (outside a repository, the working directory's
// own only).
func discoverConfig(wd string, paths []string) (string, error) {
	root := repoRoot(wd)
	if len(paths) == 1 && paths[0] != "-" {
		abs, err := filepath.Abs(paths[0])
		if fi, serr := os.Stat(abs); err == nil && serr == nil {
			dir := abs
			if !fi.IsDir() {
				dir = filepath.Dir(abs)
			}
			// Compared and walked with symbolic links resolved: a linted
			// folder that is a link out of the repository (to /tmp) must
			// not bring a configuration from there.
			rroot, err1 := filepath.EvalSymlinks(root)
			rdir, err2 := filepath.EvalSymlinks(dir)
			if rel, err := filepath.Rel(rroot, rdir); err1 == nil && err2 == nil && err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				p, err := findConfig(rdir, rroot)
				if err != nil {
					return "", err
				}
				if p != "" {
					// Shown relative to the working directory as given.
					if r, rerr := filepath.Rel(rroot, p); rerr == nil {
						p = filepath.Join(root, r)
					}
					return p, nil
				}
			}
		}
	}
	return findConfig(wd, root)
}

// loadConfig reads the configuration named with --config, as given.
func loadConfig(path string) (*Config, error) {
	data, tooBig, err := manifest.ReadSource(path, maxConfigSize)
	if err != nil {
		return nil, fmt.Errorf("config %v", err)
	}
	if tooBig {
		return nil, fmt.Errorf("config %s: larger than %d bytes; this is not a podlint configuration", textsafe.Quote(path), maxConfigSize)
	}
	return parseConfig(path, data)
}

// loadFoundConfig reads a configuration podlint found itself, which comes
// with the repository (maybe the pull request) being checked: only as a
// regular file inside that repository. A .podlint.yaml linked to a file
// elsewhere had its parse error quote that file.
func loadFoundConfig(path string) (*Config, error) {
	data, err := readConfined("config", "configuration", path, "replace it with the file itself, or name the file with --config")
	if err != nil {
		return nil, err
	}
	return parseConfig(path, data)
}

// readConfined reads a configuration or policy file as podlint reads the
// files it derives (safefile): a regular file of at most maxConfigSize
// bytes inside the repository that holds it (its folder outside one), not
// through a symbolic link out of it, not a device, FIFO, kernel file, VCS
// metadata or credential. what starts an error ("config", "--policy"),
// noun names what the file should be; outsideHint says what to do about
// a link out.
func readConfined(what, noun, path, outsideHint string) ([]byte, error) {
	root, err := safefile.Open("", filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v", what, textsafe.Quote(path), UnwrapPathErr(err))
	}
	defer root.Close()
	data, err := root.ReadFileUntracked(path, maxConfigSize)
	switch {
	case errors.Is(err, safefile.ErrOutside):
		return nil, fmt.Errorf("%s %s: a symbolic link out of the repository, which podlint does not read; %s", what, textsafe.Quote(path), outsideHint)
	case errors.Is(err, safefile.ErrTooBig):
		return nil, fmt.Errorf("%s %s: larger than %d bytes; this is not a podlint %s", what, textsafe.Quote(path), maxConfigSize, noun)
	case err != nil:
		return nil, fmt.Errorf("%s %s: %v", what, textsafe.Quote(path), UnwrapPathErr(err))
	}
	return data, nil
}

func parseConfig(path string, data []byte) (*Config, error) {
	c := &Config{path: path, dir: filepath.Dir(path)}
	// Keys are checked on the node first, so that a misspelled key is
	// reported as the flags report one (with the file, the line and the
	// closest key) rather than as yaml.v3's "field failOn not found in
	// type settings.Config".
	var root yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&root); err == nil && len(root.Content) == 1 {
		if err := checkKeys("config", path, root.Content[0], reflect.TypeFor[Config](), ""); err != nil {
			return nil, err
		}
		c.root = root.Content[0]
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		// What checkType did not catch (a value inside a chart's list,
		// say), on one line: yaml.v3 lists its errors on several.
		var te *yaml.TypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("config %s: %s", textsafe.Quote(path), strings.Join(te.Errors, "; "))
		}
		return nil, fmt.Errorf("config %s: %v", textsafe.Quote(path), err)
	}
	// One document only: with several, which one applies would be a
	// guess, and a second one could hide below an innocent first.
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("config %s: holds more than one YAML document; a configuration is one mapping", path)
	}
	return c, nil
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
