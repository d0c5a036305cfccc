package rules

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/workload"
)

// Fixes. A rule may attach fixes to a diagnostic: operations on field
// paths of the document (set a scalar, insert a key, delete a key or a
// list item), which the analyzer resolves to byte-range edits of the file
// (manifest.Document.Edit) and package fix verifies before anything
// offers them. A fix is Safe when it has one right answer and keeps the
// manifest's behaviour or only removes a failure, Unsafe when it changes
// behaviour or is one of several answers; the first fix of a diagnostic is
// the default. A fix never invents an endpoint, a command or a port the
// manifest does not already name.

// Fix is one way to resolve a diagnostic.
type Fix struct {
	Title  string // imperative, no final period: "Set successThreshold to 1"
	Safety finding.FixSafety
	Ops    []manifest.Op
}

// FixDoc describes a rule's fixes for its docs and `podlint rules`.
type FixDoc struct {
	Safety finding.FixSafety // of the default fix
	Text   string            // one or two sentences: what the fix changes
}

// setOp sets the scalar at path to value.
func setOp(path workload.Path, value string) manifest.Op {
	return manifest.Op{Kind: manifest.OpSet, Path: path, Value: value}
}

// deleteOp deletes the key or item at path.
func deleteOp(path workload.Path) manifest.Op {
	return manifest.Op{Kind: manifest.OpDelete, Path: path}
}

// insertOp adds the scalar field path (whose parent mapping exists) after
// the sibling key after ("" for the last one).
func insertOp(path workload.Path, after, value string) manifest.Op {
	return manifest.Op{Kind: manifest.OpInsert, Path: path, After: after, Value: value}
}

// setOrInsert sets the field at path when the document writes it, and
// inserts it after the last key of its parent otherwise.
func (p *Pass) setOrInsert(path workload.Path, value string) manifest.Op {
	if p.Object != nil && p.Object.Doc != nil && p.Object.Doc.IsSet(path) {
		return setOp(path, value)
	}
	return insertOp(path, "", value)
}

// flowYAML writes v (a k8s.io/api value) as a one-line YAML flow value,
// through its JSON form: {path: /healthz, port: 8080}. Strings that would
// read as another type or need quoting are quoted.
func flowYAML(v any) (string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var plain any
	if err := json.Unmarshal(data, &plain); err != nil {
		return "", err
	}
	var b strings.Builder
	writeFlow(&b, plain)
	return b.String(), nil
}

var flowPlain = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z/_.][A-Za-z0-9/_.-]*$`) })

func writeFlow(b *strings.Builder, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeFlow(b, k)
			b.WriteString(": ")
			writeFlow(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeFlow(b, e)
		}
		b.WriteByte(']')
	case string:
		switch strings.ToLower(x) {
		case "true", "false", "null", "yes", "no", "on", "off", "y", "n", "~":
			b.WriteString(strconv.Quote(x))
			return
		}
		if flowPlain().MatchString(x) {
			b.WriteString(x)
		} else {
			b.WriteString(strconv.Quote(x))
		}
	case float64:
		b.WriteString(strconv.FormatFloat(x, 'f', -1, 64))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case nil:
		b.WriteString("null")
	}
}
