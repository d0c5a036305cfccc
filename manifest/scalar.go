package manifest

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// kubectl decodes manifests with sigs.k8s.io/yaml, which parses YAML 1.1
// (go.yaml.in/yaml/v2) before converting to JSON. podlint parses once with
// the yaml.v3 node API for positions, so plain scalars must be re-resolved
// with the YAML 1.1 rules yaml.v2 applies, or `on`, `y`, `0644` and `1_000`
// would decode differently from what the API server receives.

type scalarKind int

const (
	scalarString scalarKind = iota
	scalarNull
	scalarBool
	scalarInt   // fits int64
	scalarUint  // above MaxInt64
	scalarFloat // includes ±Inf and NaN
)

type scalarValue struct {
	kind scalarKind
	s    string // the string value (for strings, timestamps, binary)
	b    bool
	i    int64
	u    uint64
	f    float64
}

var yaml11Bools = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true,
	"true": true, "True": true, "TRUE": true,
	"on": true, "On": true, "ON": true,
	"n": false, "N": false, "no": false, "No": false, "NO": false,
	"false": false, "False": false, "FALSE": false,
	"off": false, "Off": false, "OFF": false,
}

var yaml11Floats = map[string]float64{
	".nan": math.NaN(), ".NaN": math.NaN(), ".NAN": math.NaN(),
	".inf": math.Inf(1), ".Inf": math.Inf(1), ".INF": math.Inf(1),
	"+.inf": math.Inf(1), "+.Inf": math.Inf(1), "+.INF": math.Inf(1),
	"-.inf": math.Inf(-1), "-.Inf": math.Inf(-1), "-.INF": math.Inf(-1),
}

var yaml11Float = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
})

const (
	tagStr       = "!!str"
	tagBinary    = "!!binary"
	tagBool      = "!!bool"
	tagInt       = "!!int"
	tagFloat     = "!!float"
	tagNull      = "!!null"
	tagTimestamp = "!!timestamp"
	tagMerge     = "!!merge"
)

// explicitTag returns the tag written in the source, or "" for none.
func explicitTag(n *yaml.Node) string {
	if n.Style&yaml.TaggedStyle == 0 {
		return ""
	}
	t := n.Tag
	if strings.HasPrefix(t, "tag:yaml.org,2002:") {
		t = "!!" + t[len("tag:yaml.org,2002:"):]
	}
	return t
}

func isQuoted(n *yaml.Node) bool {
	return n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0
}

// resolveScalar gives the value yaml.v2 would decode n into an interface{}.
func resolveScalar(n *yaml.Node) (scalarValue, error) {
	tag := explicitTag(n)
	in := n.Value
	if tag == "" && isQuoted(n) {
		return scalarValue{kind: scalarString, s: in}, nil
	}
	switch tag {
	case "", tagStr, tagBool, tagInt, tagFloat, tagNull, tagTimestamp:
	case tagBinary:
		data, err := base64.StdEncoding.DecodeString(in)
		if err != nil {
			return scalarValue{}, errors.New("!!binary value contains invalid base64 data")
		}
		return scalarValue{kind: scalarString, s: string(data)}, nil
	default:
		// yaml.v2 keeps scalars with unknown tags (`!foo 1`) as strings.
		return scalarValue{kind: scalarString, s: in}, nil
	}
	if tag == tagStr {
		return scalarValue{kind: scalarString, s: in}, nil
	}
	v, rtag := resolvePlain(in, tag)
	if tag == "" || tag == rtag {
		return v, nil
	}
	if tag == tagFloat && rtag == tagInt {
		if v.kind == scalarInt {
			return scalarValue{kind: scalarFloat, f: float64(v.i)}, nil
		}
	}
	return scalarValue{}, fmt.Errorf("cannot decode %s `%s` as a %s", rtag, in, tag)
}

// resolvePlain applies yaml.v2's implicit resolution to an untagged (or
// resolvable-tagged) scalar and returns the value and its resolved tag.
func resolvePlain(in, tag string) (scalarValue, string) {
	if in == "" || in == "~" || in == "null" || in == "Null" || in == "NULL" {
		return scalarValue{kind: scalarNull}, tagNull
	}
	c := in[0]
	// yaml.v2 only tries a non-string reading when the first byte hints at
	// one; everything else is a string without looking further.
	switch {
	case c == '+' || c == '-' || (c >= '0' && c <= '9'):
		if f, ok := yaml11Floats[in]; ok {
			return scalarValue{kind: scalarFloat, f: f}, tagFloat
		}
		if tag == "" || tag == tagTimestamp {
			if isTimestamp(in) {
				return scalarValue{kind: scalarString, s: in}, tagTimestamp
			}
		}
		plain := strings.ReplaceAll(in, "_", "")
		if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return scalarValue{kind: scalarInt, i: i}, tagInt
		}
		if u, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return scalarValue{kind: scalarUint, u: u}, tagInt
		}
		if yaml11Float().MatchString(plain) {
			if f, err := strconv.ParseFloat(plain, 64); err == nil {
				return scalarValue{kind: scalarFloat, f: f}, tagFloat
			}
		}
		if strings.HasPrefix(plain, "0b") {
			if i, err := strconv.ParseInt(plain[2:], 2, 64); err == nil {
				return scalarValue{kind: scalarInt, i: i}, tagInt
			}
			if u, err := strconv.ParseUint(plain[2:], 2, 64); err == nil {
				return scalarValue{kind: scalarUint, u: u}, tagInt
			}
		} else if strings.HasPrefix(plain, "-0b") {
			if i, err := strconv.ParseInt("-"+plain[3:], 2, 64); err == nil {
				return scalarValue{kind: scalarInt, i: i}, tagInt
			}
		}
	case c == '.':
		if f, ok := yaml11Floats[in]; ok {
			return scalarValue{kind: scalarFloat, f: f}, tagFloat
		}
		if f, err := strconv.ParseFloat(in, 64); err == nil {
			return scalarValue{kind: scalarFloat, f: f}, tagFloat
		}
	case isHintLetter(c):
		if b, ok := yaml11Bools[in]; ok {
			return scalarValue{kind: scalarBool, b: b}, tagBool
		}
	}
	return scalarValue{kind: scalarString, s: in}, tagStr
}

// isHintLetter reports whether yaml.v2's resolve table marks c as a possible
// start of a bool or null ("yYnNtTfFoO"; "~" is handled with the nulls).
func isHintLetter(c byte) bool {
	switch c {
	case 'y', 'Y', 'n', 'N', 't', 'T', 'f', 'F', 'o', 'O':
		return true
	}
	return false
}

var timestampLayouts = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

func isTimestamp(s string) bool {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			break
		}
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, layout := range timestampLayouts {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}
