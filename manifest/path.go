package manifest

import (
	"strconv"
	"strings"
)

// Field paths name a place in a document the way kubectl explain and API
// errors do: "spec.template.spec.containers[0].livenessProbe.periodSeconds".
// A map key that contains '.', '[' or '"' is written ["key"], as in
// `metadata.annotations["ignore-check.podlint.dev/PL101"]`.

type segment struct {
	key   string
	index int // -1 for a key segment
}

// Field appends a key to a path, quoting it when it needs quoting.
func Field(base, key string) string {
	if key == "" || strings.ContainsAny(key, `.[]"`) {
		return base + "[" + strconv.Quote(key) + "]"
	}
	if base == "" {
		return key
	}
	return base + "." + key
}

// Index appends a sequence index to a path.
func Index(base string, i int) string {
	return base + "[" + strconv.Itoa(i) + "]"
}

func parsePath(p string) []segment {
	var segs []segment
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
				key, err := strconv.Unquote(p[end:min(j+1, len(p))])
				if err != nil {
					key = p[end+1 : min(j, len(p))]
				}
				segs = append(segs, segment{key: key, index: -1})
				i = j + 2 // past `"]`
				continue
			}
			for end < len(p) && p[end] != ']' {
				end++
			}
			n, err := strconv.Atoi(p[i+1 : end])
			if err != nil {
				n = -2 // never matches
			}
			segs = append(segs, segment{index: n})
			i = end + 1
		default:
			end := i
			for end < len(p) && p[end] != '.' && p[end] != '[' {
				end++
			}
			segs = append(segs, segment{key: p[i:end], index: -1})
			i = end
		}
	}
	return segs
}
