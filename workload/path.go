package workload

import (
	"strconv"
	"strings"
)

// Path is a field path naming a place in a document the way kubectl explain
// and API errors do: "spec.template.spec.containers[0].livenessProbe.periodSeconds".
// A map key that contains '.', '[' or '"' is written ["key"], as in
// `metadata.annotations["ignore-check.podlint.dev/PL101"]`. The empty path
// is the object itself.
//
// Every package builds paths with these methods and nothing else: the
// loader for object and template paths, the timeline for the fields a span
// depends on, rules for the fields they report at, the analyzer and
// manifest.Document to resolve them to positions.
type Path string

// Field appends a key, quoting it when it needs quoting.
func (p Path) Field(key string) Path {
	if key == "" || strings.ContainsAny(key, `.[]"`) {
		return p + "[" + Path(strconv.Quote(key)) + "]"
	}
	if p == "" {
		return Path(key)
	}
	return p + "." + Path(key)
}

// Index appends a sequence index.
func (p Path) Index(i int) Path {
	return p + "[" + Path(strconv.Itoa(i)) + "]"
}

// Join appends rel, a relative path already written in path syntax
// ("lifecycle.preStop.sleep.seconds", "[2].name").
func (p Path) Join(rel string) Path {
	switch {
	case p == "":
		return Path(rel)
	case rel == "":
		return p
	case rel[0] == '[':
		return p + Path(rel)
	}
	return p + "." + Path(rel)
}

func (p Path) String() string { return string(p) }

// Segment is one step of a path: a map key, or a sequence index when Index
// is not negative.
type Segment struct {
	Key   string
	Index int // -1 for a key segment
}

// Segments splits the path into its steps. A malformed index segment gets
// an Index that matches no sequence item.
func (p Path) Segments() []Segment {
	var segs []Segment
	for i := 0; i < len(p); {
		switch p[i] {
		case '.':
			i++
		case '[':
			end := i + 1
			if end < len(p) && p[end] == '"' {
				// Quoted key: find the closing quote that ends the literal.
				j := end + 1
				for j < len(p) && p[j] != '"' {
					if p[j] == '\\' {
						j++
					}
					j++
				}
				key, err := strconv.Unquote(string(p[end:min(j+1, len(p))]))
				if err != nil {
					key = string(p[end+1 : min(j, len(p))])
				}
				segs = append(segs, Segment{Key: key, Index: -1})
				i = j + 2 // past `"]`
				continue
			}
			for end < len(p) && p[end] != ']' {
				end++
			}
			n, err := strconv.Atoi(string(p[i+1 : end]))
			if err != nil {
				n = -2 // never matches
			}
			segs = append(segs, Segment{Index: n})
			i = end + 1
		default:
			end := i
			for end < len(p) && p[end] != '.' && p[end] != '[' {
				end++
			}
			segs = append(segs, Segment{Key: string(p[i:end]), Index: -1})
			i = end
		}
	}
	return segs
}
