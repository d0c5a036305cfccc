package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// JSON. kubectl reads a .json manifest with a JSON decoder, and so do the
// tools around it, so an edit that leaves valid YAML but not valid JSON
// (an unquoted key, a comment) breaks the file for everyone but podlint.

// IsJSON reports whether the file at path with data is JSON: its name ends
// in .json, or its text is one or more JSON values one after the other.
func IsJSON(path string, data []byte) bool {
	if strings.EqualFold(filepath.Ext(path), ".json") {
		return true
	}
	t := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF")), " \t\r\n")
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		return false
	}
	return ValidJSON(data) == nil
}

// ValidJSON returns why data (after an optional byte order mark) is not a
// stream of JSON values, or nil.
func ValidJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))))
	n := 0
	for {
		var v json.RawMessage
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			if n == 0 {
				return errors.New("no JSON value")
			}
			return nil
		}
		if err != nil {
			return err
		}
		n++
	}
}

// jsonStyle reports whether mapping m is written as JSON: in flow style
// with its keys double-quoted. Keys and values inserted there are written
// as JSON too.
func jsonStyle(m *yaml.Node) bool {
	return m != nil && m.Kind == yaml.MappingNode && isFlow(m) && len(m.Content) >= 2 && m.Content[0].Style == yaml.DoubleQuotedStyle
}

// jsonScalar writes value as the JSON value YAML would read the plain
// scalar as: numbers, booleans and null as they are, anything else as a
// string.
func jsonScalar(value string) (string, error) {
	if _, err := scalarText(value, 0); err != nil {
		return "", err
	}
	var n yaml.Node
	if yaml.Unmarshal([]byte(value), &n) == nil && len(n.Content) == 1 && n.Content[0].Kind == yaml.ScalarNode {
		switch n.Content[0].Tag {
		case "!!int", "!!float", "!!bool", "!!null":
			if json.Valid([]byte(value)) {
				return value, nil
			}
		}
	}
	b, err := json.Marshal(value)
	return string(b), err
}
