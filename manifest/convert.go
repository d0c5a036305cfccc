package manifest

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
	kjson "sigs.k8s.io/json"
)

// converter turns one yaml.v3 node tree into the JSON that sigs.k8s.io/yaml
// (and so kubectl) would produce from the same text, guided by the Go type it
// will be decoded into. While it walks the tree it notes unknown fields,
// duplicate keys and type mismatches with their exact positions, which the
// JSON decoder alone could not give.
type converter struct {
	buf   []byte
	stack []entry   // pairs of the mappings being converted
	es    *entrySet // the pairs of the mapping whose entries are being collected
	// bad is set when a value could not be stored directly; the JSON is
	// then decoded with encoding/json instead.
	bad      bool
	budget   int // node visits left; YAML aliases can make a tree exponential
	maxDepth int
	lineOff  int // added to node lines: documents are parsed one at a time
	problems []Problem
	// customResource is set while a custom resource's pod template is
	// decoded: its unknown fields are not reported (see unknownField).
	customResource bool
	// noJSON is set when nothing reads the JSON of what convert stores
	// itself: the JSON is then written only for the subtrees encoding/json
	// decodes. Writing all of it cost about 3 % of a run.
	noJSON bool
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
		p := Problem{Rule: rule, Line: n.Line + c.lineOff, Column: n.Column, Message: fmt.Sprintf(format, args...)}
		if rule == RuleInvalidManifest && n.Kind == yaml.ScalarNode && shellPlaceholder.MatchString(n.Value) {
			p.placeholder = n.Value
		}
		c.errors = append(c.errors, p)
	}
}

// shellPlaceholder is a whole value that envsubst, a shell or a CI step
// fills in before the file is applied: ${REPLICAS}, ${PORT:-8080}.
var shellPlaceholder = regexp.MustCompile(`^\$\{[A-Za-z_][A-Za-z0-9_]*(:?[-=+?][^}]*)?\}$`)

// foldPlaceholders reports the type errors of one object whose values are
// shell placeholders as one problem, at the first: the object is a
// template that a tool fills in before kubectl sees it, so ten
// placeholders are one fact for the user, not ten. Other problems are kept
// as they are.
func foldPlaceholders(ps []Problem, kind string) []Problem {
	if !slices.ContainsFunc(ps, func(p Problem) bool { return p.placeholder != "" }) {
		return ps
	}
	first := -1
	var more []string
	out := ps[:0:0]
	// The converter meets fields in the order of the Go types; the
	// message lists them as the file has them.
	ps = slices.Clone(ps)
	slices.SortStableFunc(ps, func(a, b Problem) int { return a.Line - b.Line })
	for _, p := range ps {
		if p.placeholder == "" {
			out = append(out, p)
			continue
		}
		if first < 0 {
			first = len(out)
			out = append(out, p)
			continue
		}
		more = append(more, fmt.Sprintf("%s (line %d)", p.placeholder, p.Line))
	}
	p := &out[first]
	ph := p.placeholder
	if r := []rune(ph); len(r) > 30 {
		ph = string(r[:29]) + "…"
	}
	detail := fmt.Sprintf("Line %d: %s.", p.Line, p.Message)
	if len(more) > 0 {
		listed := more
		if len(listed) > 10 {
			listed = append(listed[:10:10], fmt.Sprintf("%d more", len(more)-10))
		}
		detail += fmt.Sprintf(" The %s holds %d more: %s.", kind, len(more), strings.Join(listed, ", "))
	}
	p.Message = fmt.Sprintf("shell placeholder %s in a typed field: this %s is a template", ph, kind)
	if len(more) > 0 {
		p.Message += fmt.Sprintf(" (%d placeholders)", len(more)+1)
	}
	p.Detail = detail + " The file is a template that envsubst or a CI step fills in: kubectl rejects it as written, and podlint cannot decode the object, so none of its settings are linted. Lint what is applied: substitute first (envsubst < FILE | podlint check -)."
	return out
}

func (c *converter) report(n *yaml.Node, rule, format string, args ...any) {
	c.problems = append(c.problems, Problem{Rule: rule, Line: n.Line + c.lineOff, Column: n.Column, Message: fmt.Sprintf(format, args...)})
}

// convert writes n as JSON into c.buf, as sigs.k8s.io/yaml.YAMLToJSON does
// for kubectl before the API server decodes it strictly. typ is the Go type
// the JSON will be decoded into (nil when unknown); it is used only to find
// unknown fields and type errors, never to change a value: kubectl sends
// `value: 42` as a number, and the API server rejects it for a string field.
//
// When dst is valid (a settable value of type typ), convert also stores the
// value there exactly as encoding/json would store the JSON it writes, which
// spares decoding the JSON again. What it does not store itself (types with
// their own JSON decoding, interfaces, floats, arrays, []byte) it hands to
// encoding/json with the JSON of that subtree; anything unexpected sets
// c.bad, and the caller then decodes the whole JSON with encoding/json.
func (c *converter) convert(n *yaml.Node, typ reflect.Type, depth int, dst reflect.Value) {
	if len(c.errors) >= maxErrors {
		return
	}
	c.budget--
	if c.budget < 0 {
		panic(errBudget{})
	}
	if depth > c.maxDepth {
		c.fail(n, RuleLimitExceeded, "object is nested more than %d levels deep and was not linted (limit: --max-depth)", c.maxDepth)
		return
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			c.write("null")
			if dst.IsValid() {
				storeNull(dst)
			}
			return
		}
		c.convert(n.Content[0], typ, depth, dst)
		return
	case yaml.AliasNode:
		if n.Alias == nil {
			c.fail(n, RuleInvalidYAML, "unknown anchor %q referenced", n.Value)
			return
		}
		c.convert(n.Alias, typ, depth+1, dst)
		return
	}
	var custom reflect.Type // a type with its own JSON decoding
	if typ != nil {
		ti := typeInfoOf(typ)
		typ, custom = ti.typ, ti.custom
	}
	viaJSON := reflect.Value{} // where encoding/json stores the subtree
	if dst.IsValid() && (custom != nil || !directKind(typ, n)) {
		viaJSON, dst = dst, reflect.Value{}
	}
	start, errs := len(c.buf), len(c.errors)
	noJSON := c.noJSON
	if custom != nil || viaJSON.IsValid() {
		c.noJSON = false // encoding/json reads this subtree's JSON
	}
	switch n.Kind {
	case yaml.MappingNode:
		c.mapping(n, typ, depth, dst)
	case yaml.SequenceNode:
		c.sequence(n, typ, depth, dst)
	case yaml.ScalarNode:
		c.scalar(n, typ, dst)
	default:
		c.fail(n, RuleInvalidYAML, "unexpected YAML node")
	}
	c.noJSON = noJSON
	if len(c.errors) != errs {
		return
	}
	switch {
	case custom != nil:
		// Decode the subtree on its own so that a bad quantity or time gets
		// the position of its value, not of the whole document.
		target := viaJSON
		if !target.IsValid() {
			target = reflect.New(custom).Elem()
		}
		if err := kjson.UnmarshalCaseSensitivePreserveInts(c.buf[start:], target.Addr().Interface()); err != nil {
			c.fail(n, RuleInvalidManifest, "%s", cleanJSONError(err, custom))
		}
	case viaJSON.IsValid():
		if err := kjson.UnmarshalCaseSensitivePreserveInts(c.buf[start:], viaJSON.Addr().Interface()); err != nil {
			c.bad = true // the full decoding reports it
		}
	}
	if noJSON {
		c.buf = c.buf[:start]
	}
}

// write appends JSON text that someone reads (see noJSON).
func (c *converter) write(s string) {
	if !c.noJSON {
		c.buf = append(c.buf, s...)
	}
}

// directKind reports whether convert stores a value of type t (pointers
// removed) for node n itself.
func directKind(t reflect.Type, n *yaml.Node) bool {
	if t == nil {
		return false // an interface
	}
	switch t.Kind() {
	case reflect.Struct, reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	case reflect.Map:
		return t.Key().Kind() == reflect.String
	case reflect.Slice:
		// []byte is base64 text in JSON, unless written as a list.
		return t.Elem().Kind() != reflect.Uint8 || n.Kind == yaml.SequenceNode
	}
	return false
}

// storeNull does what encoding/json does with null: pointers, maps, slices
// and interfaces become nil, everything else is left alone.
func storeNull(dst reflect.Value) {
	switch dst.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		dst.SetZero()
	}
}

// derefValue follows pointers in dst, allocating nil ones as encoding/json
// does.
func derefValue(dst reflect.Value) reflect.Value {
	for dst.Kind() == reflect.Pointer {
		if dst.IsNil() {
			dst.Set(reflect.New(dst.Type().Elem()))
		}
		dst = dst.Elem()
	}
	return dst
}

// typeInfo is what convert needs to know about a Go type, worked out once
// per type: reflect's Implements is far too slow to ask on every node.
type typeInfo struct {
	typ    reflect.Type // pointers removed; nil for interfaces and custom types
	custom reflect.Type // set when the type decodes its own JSON
}

var typeInfos sync.Map // reflect.Type → *typeInfo

func typeInfoOf(t reflect.Type) *typeInfo {
	if ti, ok := typeInfos.Load(t); ok {
		return ti.(*typeInfo)
	}
	base := t
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	ti := &typeInfo{typ: base}
	if reflect.PointerTo(base).Implements(jsonUnmarshalerType) || reflect.PointerTo(base).Implements(textUnmarshalerType) ||
		base.Implements(jsonUnmarshalerType) || base.Implements(textUnmarshalerType) {
		ti.custom, ti.typ = base, nil
	} else if base.Kind() == reflect.Interface {
		ti.typ = nil
	}
	v, _ := typeInfos.LoadOrStore(t, ti)
	return v.(*typeInfo)
}

type entry struct {
	key   string
	keyN  *yaml.Node
	value *yaml.Node
	// direct is set when the key is written in the mapping itself rather
	// than merged in, for reporting duplicates.
	direct bool
}

// entrySet is the effective pairs of one mapping under construction. Most
// mappings have a handful of keys, for which a linear search beats a map;
// the map is built only for big ones.
type entrySet struct {
	list  []entry
	start int // list[start:] belongs to this mapping
	index map[string]int
}

const entryIndexFrom = 16

func (s *entrySet) find(key string) int {
	if s.index != nil {
		if j, ok := s.index[key]; ok {
			return j
		}
		return -1
	}
	for j := s.start; j < len(s.list); j++ {
		if s.list[j].key == key {
			return j
		}
	}
	return -1
}

func (s *entrySet) add(e entry) {
	s.list = append(s.list, e)
	if s.index == nil && len(s.list)-s.start >= entryIndexFrom {
		s.index = make(map[string]int, 2*entryIndexFrom)
		for j := s.start; j < len(s.list); j++ {
			s.index[s.list[j].key] = j
		}
	} else if s.index != nil {
		s.index[e.key] = len(s.list) - 1
	}
}

// entries adds the effective key/value pairs of a mapping to es, as
// walkPairs resolves them (merge keys included). Merged pairs are not
// direct: their duplicates are not the author's.
func (c *converter) entries(m *yaml.Node, es *entrySet, depth int) {
	prev := c.es
	c.es = es
	walkPairs(m, true, depth, c.maxDepth, c)
	c.es = prev
}

// The converter is the pairVisitor of its own mappings.

func (c *converter) step() {
	c.budget--
	if c.budget < 0 {
		panic(errBudget{})
	}
}

func (c *converter) pair(k, v *yaml.Node, direct bool) bool {
	key, ok := c.keyString(k)
	if !ok {
		return false
	}
	es := c.es
	if j := es.find(key); j >= 0 {
		e := &es.list[j]
		if direct && e.direct {
			c.report(k, RuleDuplicateKey, "key %q is defined more than once in this mapping; only the last value is used, and kubectl with --validate=strict rejects the file; remove one of them", key)
			c.problems[len(c.problems)-1].dup = &duplicate{key: e.keyN, value: e.value, equal: sameValue(e.value, v)}
		}
		e.value, e.keyN = v, k
		e.direct = e.direct || direct
		return true
	}
	es.add(entry{key: key, keyN: k, value: v, direct: direct})
	return true
}

func (c *converter) enter(*yaml.Node) bool { return true }
func (c *converter) leave(*yaml.Node)      {}

func (c *converter) tooDeep(m *yaml.Node) {
	c.fail(m, RuleLimitExceeded, "merge keys are nested more than %d levels deep; the object was not linted (limit: --max-depth)", c.maxDepth)
}

func (c *converter) badMerge(v *yaml.Node) {
	c.fail(v, RuleInvalidYAML, "map merge requires map or sequence of maps as the value")
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

func (c *converter) mapping(n *yaml.Node, typ reflect.Type, depth int, dst reflect.Value) {
	errs := len(c.errors)
	// The pairs of nested mappings are collected on one stack shared by
	// the whole conversion, so a mapping costs no allocation of its own.
	set := entrySet{list: c.stack, start: len(c.stack)}
	c.entries(n, &set, depth)
	c.stack = set.list
	es := set.list[set.start:]
	defer func() { c.stack = c.stack[:set.start] }()
	if len(c.errors) > errs {
		return // a key could not be converted; the document is refused already
	}
	// json.Marshal writes map keys sorted, and so does the converter, so
	// that its JSON is byte for byte what sigs.k8s.io/yaml produces.
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
	var mapElem reflect.Value // reused for every pair, as encoding/json does
	if dst.IsValid() {
		dst = derefValue(dst)
		if elem != nil {
			if dst.IsNil() {
				dst.Set(reflect.MakeMapWithSize(typ, len(es)))
			}
			mapElem = reflect.New(elem).Elem()
		}
	}
	c.write("{")
	for i, e := range es {
		if !c.noJSON {
			if i > 0 {
				c.buf = append(c.buf, ',')
			}
			c.buf = appendJSONString(c.buf, e.key)
			c.buf = append(c.buf, ':')
		}
		switch {
		case fields != nil:
			f := fields.lookup(e.key)
			if f == nil && isPatchDirective(e.key) {
				// A strategic-merge-patch directive ($patch: delete,
				// $setElementOrder/…): the document is a kustomize patch,
				// and kubectl patch understands the key.
				c.convert(e.value, nil, depth+1, reflect.Value{})
				continue
			}
			if f == nil {
				c.unknownField(e, typ, fields)
				c.convert(e.value, nil, depth+1, reflect.Value{})
				continue
			}
			var fv reflect.Value
			if dst.IsValid() {
				if f.viaPointer {
					c.bad = true // an embedded pointer encoding/json would allocate
				} else {
					fv = dst.FieldByIndex(f.index)
				}
			}
			c.convert(e.value, f.typ, depth+1, fv)
		case elem != nil:
			if !mapElem.IsValid() {
				c.convert(e.value, elem, depth+1, reflect.Value{})
				continue
			}
			mapElem.SetZero()
			c.convert(e.value, elem, depth+1, mapElem)
			dst.SetMapIndex(reflect.ValueOf(e.key).Convert(typ.Key()), mapElem)
		default:
			c.convert(e.value, nil, depth+1, reflect.Value{})
		}
	}
	c.write("}")
}

func (c *converter) sequence(n *yaml.Node, typ reflect.Type, depth int, dst reflect.Value) {
	var elem reflect.Type
	if typ != nil {
		if typ.Kind() != reflect.Slice && typ.Kind() != reflect.Array {
			c.fail(n, RuleInvalidManifest, "expected %s, found a list", describeType(typ))
			return
		}
		elem = typ.Elem()
	}
	if dst.IsValid() {
		dst = derefValue(dst)
		if dst.Kind() != reflect.Slice {
			c.bad = true
			dst = reflect.Value{}
		} else if dst.Cap() < len(n.Content) {
			dst.Grow(len(n.Content) - dst.Len())
		}
	}
	c.write("[")
	for i, item := range n.Content {
		if i > 0 {
			c.write(",")
		}
		var iv reflect.Value
		if dst.IsValid() {
			// Like encoding/json: fill the slice in place, growing its
			// length as items come.
			if i >= dst.Len() {
				dst.SetLen(i + 1)
			}
			iv = dst.Index(i)
		}
		c.convert(item, elem, depth+1, iv)
	}
	c.write("]")
	if dst.IsValid() {
		if len(n.Content) < dst.Len() {
			dst.SetLen(len(n.Content))
		}
		if len(n.Content) == 0 {
			dst.Set(reflect.MakeSlice(dst.Type(), 0, 0)) // [] is an empty slice, not nil
		}
	}
}

func (c *converter) scalar(n *yaml.Node, typ reflect.Type, dst reflect.Value) {
	v, err := resolveScalar(n)
	if err != nil {
		c.fail(n, RuleInvalidYAML, "%v", err)
		return
	}
	if v.kind == scalarNull {
		c.write("null")
		if dst.IsValid() {
			storeNull(dst)
		}
		return
	}
	if typ != nil {
		if msg := mismatch(v, n, typ); msg != "" {
			c.fail(n, RuleInvalidManifest, "%s", msg)
			return
		}
	}
	if v.kind == scalarFloat && (math.IsInf(v.f, 0) || math.IsNaN(v.f)) {
		c.fail(n, RuleInvalidManifest, "%s cannot be represented in JSON, so kubectl rejects the document", n.Value)
		return
	}
	if !c.noJSON {
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
			c.buf = appendJSONFloat(c.buf, v.f)
		}
	}
	if dst.IsValid() {
		c.store(derefValue(dst), v)
	}
}

// store puts a scalar that mismatch accepted into dst as encoding/json
// would decode its JSON: integral floats reach integer fields exactly, and
// strings are what JSON escaping round-trips (valid UTF-8).
func (c *converter) store(dst reflect.Value, v scalarValue) {
	switch dst.Kind() {
	case reflect.String:
		if v.kind != scalarString || !utf8.ValidString(v.s) {
			c.bad = true
			return
		}
		dst.SetString(v.s)
	case reflect.Bool:
		dst.SetBool(v.b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		switch v.kind {
		case scalarInt:
			dst.SetInt(v.i)
		case scalarFloat:
			dst.SetInt(int64(v.f))
		default:
			c.bad = true
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		switch v.kind {
		case scalarInt:
			dst.SetUint(uint64(v.i))
		case scalarUint:
			dst.SetUint(v.u)
		case scalarFloat:
			dst.SetUint(uint64(v.f))
		default:
			c.bad = true
		}
	default:
		c.bad = true
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
		return intMismatch(v, n, typ, want, what)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return uintMismatch(v, n, typ, want, what)
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

// intMismatch is mismatch for a signed integer field (want describes it,
// what the scalar found).
func intMismatch(v scalarValue, n *yaml.Node, typ reflect.Type, want, what string) string {
	switch v.kind {
	case scalarInt:
		if reflect.Zero(typ).OverflowInt(v.i) {
			return fmt.Sprintf("%s does not fit in %s (%d to %d)", n.Value, want, minInt(typ), maxInt(typ))
		}
	case scalarUint:
		return fmt.Sprintf("%s does not fit in %s", n.Value, want)
	case scalarFloat:
		if v.f != math.Trunc(v.f) || math.Abs(v.f) >= 1e21 {
			return fmt.Sprintf("expected %s, found %s; use a whole number", want, n.Value)
		}
		// Converting an out-of-range float to int64 is undefined, so
		// check the range as a float first.
		if v.f < -(1<<63) || v.f >= 1<<63 || reflect.Zero(typ).OverflowInt(int64(v.f)) {
			return fmt.Sprintf("%s does not fit in %s (%d to %d)", n.Value, want, minInt(typ), maxInt(typ))
		}
	default:
		if v.kind == scalarString && isQuoted(n) {
			if _, err := strconv.ParseInt(v.s, 10, 64); err == nil {
				return fmt.Sprintf("expected %s, found the string %q; remove the quotes", want, v.s)
			}
		}
		return fmt.Sprintf("expected %s, found %s (%q)", want, what, n.Value)
	}
	return ""
}

// uintMismatch is mismatch for an unsigned integer field.
func uintMismatch(v scalarValue, n *yaml.Node, typ reflect.Type, want, what string) string {
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
		if v.f >= 1<<64 || reflect.Zero(typ).OverflowUint(uint64(v.f)) {
			return fmt.Sprintf("%s does not fit in %s", n.Value, want)
		}
	default:
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
	name  string
	typ   reflect.Type
	index []int // for reflect.Value.FieldByIndex
	depth int   // of embedding
	// viaPointer is set when the field is promoted through an embedded
	// pointer, which FieldByIndex cannot allocate.
	viaPointer bool
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
	collectFieldsAt(t, sf, nil, false)
}

func collectFieldsAt(t reflect.Type, sf *structFields, index []int, viaPointer bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		idx := append(index[:len(index):len(index)], i)
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			ptr := ft.Kind() == reflect.Pointer
			if ptr {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				collectFieldsAt(ft, sf, idx, viaPointer || ptr)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fi := &fieldInfo{name: name, typ: f.Type, index: idx, depth: len(index), viaPointer: viaPointer}
		if old, dup := sf.byName[name]; dup {
			if old.depth <= fi.depth {
				continue // the shallower field wins, as in encoding/json
			}
			*old = *fi
			continue
		}
		sf.byName[name] = fi
		sf.list = append(sf.list, fi)
	}
}

// lookup finds the field the API server's decoder fills for key. Field
// names are case-sensitive there (sigs.k8s.io/json), unlike encoding/json:
// `ReadinessProbe:` is an unknown field and its value is dropped.
func (sf *structFields) lookup(key string) *fieldInfo {
	return sf.byName[key]
}

// unknownField reports a key that names no field of typ. A key that
// differs from a field only in case gets its own message: the value looks
// set, but the API server drops it.
func (c *converter) unknownField(e entry, typ reflect.Type, fields *structFields) {
	if c.customResource {
		// A custom resource's schema is not the Pod's: Knative adds
		// containerConcurrency and timeoutSeconds, and an unknown field is
		// pruned or refused by the CRD, never by the Pod API.
		return
	}
	for _, f := range fields.list {
		if strings.EqualFold(f.name, e.key) {
			c.report(e.keyN, RuleUnknownField, "unknown field %q in %s (did you mean %q?); field names are case-sensitive: kubectl rejects the object, or with validation off the API server drops the value", e.key, describeType(typ), f.name)
			return
		}
	}
	c.report(e.keyN, RuleUnknownField, "unknown field %q in %s%s; kubectl rejects the object, or the API server drops the field without validation, so the setting has no effect", e.key, describeType(typ), suggest(e.key, fields.names))
}

// suggest returns ` (did you mean "x"?)` for the closest known name.
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
				return fmt.Sprintf(" (did you mean %q?)", n)
			}
		}
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
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
