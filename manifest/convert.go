package manifest

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// converter turns one yaml.v3 node tree into the JSON that sigs.k8s.io/yaml
// (and so kubectl) would produce from the same text, guided by the Go type it
// will be decoded into. While it walks the tree it notes unknown fields,
// duplicate keys and type mismatches with their exact positions, which the
// JSON decoder alone could not give.
type converter struct {
	buf      []byte
	budget   int // node visits left; YAML aliases can make a tree exponential
	maxDepth int
	lineOff  int // added to node lines: documents are parsed one at a time
	problems []Problem
	// errors make the document undecodable, as kubectl would refuse it.
	// Conversion goes on after one so that every bad value is reported.
	errors []Problem
}

// maxErrors bounds the errors reported for one document.
const maxErrors = 20

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

type errBudget struct{}

func (c *converter) fail(n *yaml.Node, rule, format string, args ...any) {
	if len(c.errors) < maxErrors {
		c.errors = append(c.errors, Problem{Rule: rule, Line: n.Line + c.lineOff, Column: n.Column, Message: fmt.Sprintf(format, args...)})
	}
}

func (c *converter) report(n *yaml.Node, rule, format string, args ...any) {
	c.problems = append(c.problems, Problem{Rule: rule, Line: n.Line + c.lineOff, Column: n.Column, Message: fmt.Sprintf(format, args...)})
}

// convert writes n as JSON into c.buf, as sigs.k8s.io/yaml.YAMLToJSON does
// for kubectl before the API server decodes it strictly. typ is the Go type
// the JSON will be decoded into (nil when unknown); it is used only to find
// unknown fields and type errors, never to change a value: kubectl sends
// `value: 42` as a number, and the API server rejects it for a string field.
func (c *converter) convert(n *yaml.Node, typ reflect.Type, depth int) {
	if len(c.errors) >= maxErrors {
		return
	}
	c.budget--
	if c.budget < 0 {
		panic(errBudget{})
	}
	if depth > c.maxDepth {
		c.fail(n, RuleInvalidYAML, "document is nested more than %d levels deep; raise --max-depth if this is intended", c.maxDepth)
		return
	}
	for typ != nil && typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	var custom reflect.Type // a type with its own JSON decoding
	if typ != nil && (reflect.PointerTo(typ).Implements(jsonUnmarshalerType) || reflect.PointerTo(typ).Implements(textUnmarshalerType) ||
		typ.Implements(jsonUnmarshalerType) || typ.Implements(textUnmarshalerType)) {
		custom, typ = typ, nil
	}
	if typ != nil && typ.Kind() == reflect.Interface {
		typ = nil
	}
	start, errs := len(c.buf), len(c.errors)
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			c.buf = append(c.buf, "null"...)
			return
		}
		c.convert(n.Content[0], typ, depth)
		return
	case yaml.AliasNode:
		if n.Alias == nil {
			c.fail(n, RuleInvalidYAML, "unknown anchor %q referenced", n.Value)
			return
		}
		c.convert(n.Alias, typ, depth+1)
		return
	case yaml.MappingNode:
		c.mapping(n, typ, depth)
	case yaml.SequenceNode:
		c.sequence(n, typ, depth)
	case yaml.ScalarNode:
		c.scalar(n, typ)
	default:
		c.fail(n, RuleInvalidYAML, "unexpected YAML node")
		return
	}
	if custom != nil && len(c.errors) == errs {
		// Decode the subtree on its own so that a bad quantity or time gets
		// the position of its value, not of the whole document.
		v := reflect.New(custom)
		if err := json.Unmarshal(c.buf[start:], v.Interface()); err != nil {
			c.fail(n, RuleInvalidManifest, "%s", cleanJSONError(err, custom))
		}
	}
}

type entry struct {
	key   string
	keyN  *yaml.Node
	value *yaml.Node
}

func isMergeKey(k *yaml.Node) bool {
	if k.Kind != yaml.ScalarNode || k.Value != "<<" {
		return false
	}
	if t := explicitTag(k); t != "" {
		return t == tagMerge
	}
	return !isQuoted(k)
}

// entries lists the effective key/value pairs of a mapping as yaml.v2 sees
// them: in order, later keys overriding earlier ones, merge keys (`<<`)
// inserting the merged mapping's pairs where they stand.
func (c *converter) entries(m *yaml.Node, out []entry, index map[string]int, direct map[string]bool, depth int) []entry {
	if depth > c.maxDepth {
		c.fail(m, RuleInvalidYAML, "merge keys nested more than %d levels deep", c.maxDepth)
		return out
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		c.budget--
		if c.budget < 0 {
			panic(errBudget{})
		}
		if isMergeKey(k) {
			out = c.merge(v, out, index, depth+1)
			continue
		}
		key, ok := c.keyString(k)
		if !ok {
			return out
		}
		if direct != nil {
			if direct[key] {
				c.report(k, RuleDuplicateKey, "key %q is defined more than once in this mapping; only the last value is used, and kubectl with --validate=strict rejects the file; remove one of them", key)
			}
			direct[key] = true
		}
		if j, seen := index[key]; seen {
			out[j].value, out[j].keyN = v, k
			continue
		}
		index[key] = len(out)
		out = append(out, entry{key: key, keyN: k, value: v})
	}
	return out
}

func (c *converter) merge(v *yaml.Node, out []entry, index map[string]int, depth int) []entry {
	target := v
	for target.Kind == yaml.AliasNode && target.Alias != nil {
		target = target.Alias
	}
	switch target.Kind {
	case yaml.MappingNode:
		return c.entries(target, out, index, nil, depth)
	case yaml.SequenceNode:
		// Earlier mappings in a merge list take precedence, so apply them last.
		for i := len(target.Content) - 1; i >= 0; i-- {
			item := target.Content[i]
			for item.Kind == yaml.AliasNode && item.Alias != nil {
				item = item.Alias
			}
			if item.Kind != yaml.MappingNode {
				c.fail(v, RuleInvalidYAML, "map merge requires map or sequence of maps as the value")
				return out
			}
			out = c.entries(item, out, index, nil, depth)
		}
		return out
	}
	c.fail(v, RuleInvalidYAML, "map merge requires map or sequence of maps as the value")
	return out
}

// keyString converts a mapping key the way sigs.k8s.io/yaml does: YAML 1.1
// ints, floats and booleans become their string forms.
func (c *converter) keyString(k *yaml.Node) (string, bool) {
	for k.Kind == yaml.AliasNode && k.Alias != nil {
		k = k.Alias
	}
	if k.Kind != yaml.ScalarNode {
		c.fail(k, RuleInvalidYAML, "invalid map key: a mapping or sequence cannot be a key")
		return "", false
	}
	v, err := resolveScalar(k)
	if err != nil {
		c.fail(k, RuleInvalidYAML, "%v", err)
		return "", false
	}
	switch v.kind {
	case scalarString:
		return v.s, true
	case scalarInt:
		return strconv.FormatInt(v.i, 10), true
	case scalarFloat:
		return formatFloat32(v.f), true
	case scalarBool:
		return strconv.FormatBool(v.b), true
	case scalarNull:
		c.fail(k, RuleInvalidManifest, "a null key (%q) cannot be converted to JSON; quote it", k.Value)
	case scalarUint:
		c.fail(k, RuleInvalidManifest, "key %s is too large to be converted to JSON; quote it", k.Value)
	}
	return "", false
}

func formatFloat32(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 32)
	switch s {
	case "+Inf":
		return ".inf"
	case "-Inf":
		return "-.inf"
	case "NaN":
		return ".nan"
	}
	return s
}

func (c *converter) mapping(n *yaml.Node, typ reflect.Type, depth int) {
	errs := len(c.errors)
	es := c.entries(n, make([]entry, 0, len(n.Content)/2), make(map[string]int, len(n.Content)/2), make(map[string]bool, len(n.Content)/2), depth)
	if len(c.errors) > errs {
		return // a key could not be converted; the document is refused already
	}
	// json.Marshal writes map keys sorted; with case-insensitive field
	// matching the order decides which of two spellings wins.
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.key, b.key) })

	var fields *structFields
	var elem reflect.Type
	if typ != nil {
		switch typ.Kind() {
		case reflect.Struct:
			fields = cachedFields(typ)
		case reflect.Map:
			elem = typ.Elem()
		default:
			c.fail(n, RuleInvalidManifest, "expected %s, found a mapping", describeType(typ))
			return
		}
	}
	c.buf = append(c.buf, '{')
	for i, e := range es {
		if i > 0 {
			c.buf = append(c.buf, ',')
		}
		c.buf = appendJSONString(c.buf, e.key)
		c.buf = append(c.buf, ':')
		switch {
		case fields != nil:
			f, exact := fields.lookup(e.key)
			if f == nil && isPatchDirective(e.key) {
				// A strategic-merge-patch directive ($patch: delete,
				// $setElementOrder/…): the document is a kustomize patch,
				// and kubectl patch understands the key.
				c.convert(e.value, nil, depth+1)
				continue
			}
			if f == nil {
				c.report(e.keyN, RuleUnknownField, "unknown field %q in %s: kubectl rejects the object, or the API server drops the field without validation, so the setting has no effect%s", e.key, describeType(typ), suggest(e.key, fields.names))
				c.convert(e.value, nil, depth+1)
				continue
			}
			if !exact {
				c.report(e.keyN, RuleUnknownField, "unknown field %q in %s: field names are case-sensitive; did you mean %q?", e.key, describeType(typ), f.name)
			}
			c.convert(e.value, f.typ, depth+1)
		case elem != nil:
			c.convert(e.value, elem, depth+1)
		default:
			c.convert(e.value, nil, depth+1)
		}
	}
	c.buf = append(c.buf, '}')
}

func (c *converter) sequence(n *yaml.Node, typ reflect.Type, depth int) {
	var elem reflect.Type
	if typ != nil {
		if typ.Kind() != reflect.Slice && typ.Kind() != reflect.Array {
			c.fail(n, RuleInvalidManifest, "expected %s, found a list", describeType(typ))
			return
		}
		elem = typ.Elem()
	}
	c.buf = append(c.buf, '[')
	for i, item := range n.Content {
		if i > 0 {
			c.buf = append(c.buf, ',')
		}
		c.convert(item, elem, depth+1)
	}
	c.buf = append(c.buf, ']')
}

func (c *converter) scalar(n *yaml.Node, typ reflect.Type) {
	v, err := resolveScalar(n)
	if err != nil {
		c.fail(n, RuleInvalidYAML, "%v", err)
		return
	}
	if v.kind == scalarNull {
		c.buf = append(c.buf, "null"...)
		return
	}
	if typ != nil {
		if msg := mismatch(v, n, typ); msg != "" {
			c.fail(n, RuleInvalidManifest, "%s", msg)
			return
		}
	}
	switch v.kind {
	case scalarString:
		c.buf = appendJSONString(c.buf, v.s)
	case scalarBool:
		c.buf = strconv.AppendBool(c.buf, v.b)
	case scalarInt:
		c.buf = strconv.AppendInt(c.buf, v.i, 10)
	case scalarUint:
		c.buf = strconv.AppendUint(c.buf, v.u, 10)
	case scalarFloat:
		if math.IsInf(v.f, 0) || math.IsNaN(v.f) {
			c.fail(n, RuleInvalidManifest, "%s cannot be represented in JSON, so kubectl rejects the document", n.Value)
			return
		}
		c.buf = appendJSONFloat(c.buf, v.f)
	}
}

// mismatch explains why encoding/json would refuse v for typ, or returns "".
func mismatch(v scalarValue, n *yaml.Node, typ reflect.Type) string {
	what := map[scalarKind]string{scalarString: "a string", scalarBool: "a boolean", scalarInt: "a number", scalarUint: "a number", scalarFloat: "a number"}[v.kind]
	want := describeType(typ)
	switch typ.Kind() {
	case reflect.String:
		if v.kind != scalarString {
			return fmt.Sprintf("expected %s, found %s (%s); quote the value", want, what, n.Value)
		}
	case reflect.Bool:
		if v.kind != scalarBool {
			return fmt.Sprintf("expected %s (true or false), found %s (%q)", want, what, n.Value)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		switch v.kind {
		case scalarInt:
			if reflect.Zero(typ).OverflowInt(v.i) {
				return fmt.Sprintf("%s does not fit in %s (%d to %d)", n.Value, want, minInt(typ), maxInt(typ))
			}
		case scalarUint:
			return fmt.Sprintf("%s does not fit in %s", n.Value, want)
		case scalarFloat:
			if v.f != math.Trunc(v.f) || math.Abs(v.f) >= 1e21 || reflect.Zero(typ).OverflowInt(int64(v.f)) {
				return fmt.Sprintf("expected %s, found %s; use a whole number", want, n.Value)
			}
		default:
			if v.kind == scalarString && isQuoted(n) {
				if _, err := strconv.ParseInt(v.s, 10, 64); err == nil {
					return fmt.Sprintf("expected %s, found the string %q; remove the quotes", want, v.s)
				}
			}
			return fmt.Sprintf("expected %s, found %s (%q)", want, what, n.Value)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		switch v.kind {
		case scalarInt:
			if v.i < 0 || reflect.Zero(typ).OverflowUint(uint64(v.i)) {
				return fmt.Sprintf("%s does not fit in %s", n.Value, want)
			}
		case scalarUint:
			if reflect.Zero(typ).OverflowUint(v.u) {
				return fmt.Sprintf("%s does not fit in %s", n.Value, want)
			}
		case scalarFloat:
			if v.f != math.Trunc(v.f) || v.f < 0 || v.f >= 1e21 {
				return fmt.Sprintf("expected %s, found %s", want, n.Value)
			}
		default:
			return fmt.Sprintf("expected %s, found %s (%q)", want, what, n.Value)
		}
	case reflect.Float32, reflect.Float64:
		if v.kind == scalarString || v.kind == scalarBool {
			return fmt.Sprintf("expected %s, found %s (%q)", want, what, n.Value)
		}
	case reflect.Slice:
		if typ.Elem().Kind() == reflect.Uint8 && v.kind == scalarString {
			return "" // []byte is base64 text
		}
		return fmt.Sprintf("expected %s, found %s (%q)", want, what, n.Value)
	case reflect.Struct, reflect.Map, reflect.Array:
		return fmt.Sprintf("expected %s, found %s (%q)", want, what, n.Value)
	}
	return ""
}

func minInt(t reflect.Type) int64 { return -1 << (t.Bits() - 1) }
func maxInt(t reflect.Type) int64 { return 1<<(t.Bits()-1) - 1 }

// describeType names a Go type the way a manifest author thinks of it.
func describeType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int64, reflect.Uint64:
		return "a 64-bit integer"
	case reflect.Int32, reflect.Uint32:
		return "a 32-bit integer"
	case reflect.Int8, reflect.Int16, reflect.Uint8, reflect.Uint16:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map:
		return "a mapping"
	case reflect.Struct:
		if t.Name() != "" {
			return t.Name()
		}
		return "a mapping"
	}
	return t.String()
}

func cleanJSONError(err error, t reflect.Type) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "json: ")
	return fmt.Sprintf("invalid %s: %s", t.Name(), msg)
}

// appendJSONFloat formats like encoding/json, so that integral floats such as
// 1e3 reach integer fields exactly as they do through kubectl.
func appendJSONFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	return strconv.AppendFloat(b, f, format, -1, 64)
}

func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, s[start:i]...)
				b = append(b, `\ufffd`...)
				i += size
				start = i
				continue
			}
			i += size
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			b = append(b, `\u00`...)
			b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// structFields is the JSON view of a struct type, as encoding/json and
// sigs.k8s.io/yaml see it.
type structFields struct {
	byName map[string]*fieldInfo
	list   []*fieldInfo
	names  []string
}

type fieldInfo struct {
	name string
	typ  reflect.Type
}

var fieldCache sync.Map // reflect.Type → *structFields

func cachedFields(t reflect.Type) *structFields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*structFields)
	}
	sf := &structFields{byName: map[string]*fieldInfo{}}
	collectFields(t, sf)
	for _, f := range sf.list {
		sf.names = append(sf.names, f.name)
	}
	f, _ := fieldCache.LoadOrStore(t, sf)
	return f.(*structFields)
}

func collectFields(t reflect.Type, sf *structFields) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				collectFields(ft, sf)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := sf.byName[name]; dup {
			continue // the shallower field wins, as in encoding/json
		}
		fi := &fieldInfo{name: name, typ: f.Type}
		sf.byName[name] = fi
		sf.list = append(sf.list, fi)
	}
}

// lookup finds the field encoding/json would fill for key: an exact match,
// else a case-insensitive one.
func (sf *structFields) lookup(key string) (f *fieldInfo, exact bool) {
	if f, ok := sf.byName[key]; ok {
		return f, true
	}
	for _, f := range sf.list {
		if strings.EqualFold(f.name, key) {
			return f, false
		}
	}
	return nil, false
}

// suggest returns `; did you mean "x"?` for the closest known name.
func suggest(key string, names []string) string {
	best, bestD := "", 3
	lk := strings.ToLower(key)
	for _, n := range names {
		d := editDistance(lk, strings.ToLower(n))
		if d < bestD || (d == bestD && best != "" && n < best) {
			best, bestD = n, d
		}
	}
	if best == "" {
		for _, n := range names {
			ln := strings.ToLower(n)
			if len(lk) >= 4 && (strings.HasPrefix(ln, lk) || strings.HasPrefix(lk, ln)) {
				return fmt.Sprintf("; did you mean %q?", n)
			}
		}
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// isPatchDirective reports whether key is a strategic merge patch directive.
func isPatchDirective(key string) bool {
	return key == "$patch" || key == "$retainKeys" ||
		strings.HasPrefix(key, "$setElementOrder/") || strings.HasPrefix(key, "$deleteFromPrimitiveList/")
}
