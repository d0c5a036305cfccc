package engine

import (
	"regexp"
	"testing"
)

// TestLazyRegexpsCompile compiles every regexp that is compiled on first use,
// so that a bad pattern fails here rather than in a user's first render.
func TestLazyRegexpsCompile(t *testing.T) {
	for _, re := range []func() *regexp.Regexp{helmErrAt, helmErrTpl, startedAt} {
		first, again := re(), re()
		if first == nil || first != again {
			t.Errorf("a lazy regexp is nil or compiled twice")
		}
	}
}

func TestExternalRef(t *testing.T) {
	for schema, want := range map[string]string{
		`{"$ref": "#/$defs/a", "$defs": {"a": {"type": "string"}}}`:             "",
		`{"$schema": "https://json-schema.org/draft/2020-12/schema"}`:           "",
		`{"$schema": "http://json-schema.org/draft-07/schema#"}`:                "",
		`{"$schema": "http://json-schema.org/schema#"}`:                         "", // the latest draft's alias
		`{"$schema": "https://json-schema.org/schema"}`:                         "",
		`{"items": [{"$ref": "other.json"}]}`:                                   "other.json",
		`{"properties": {"x": {"$dynamicRef": "https://example.com/s"}}}`:       "https://example.com/s",
		`{"$schema": "https://example.com/meta", "$ref": "file:///etc/passwd"}`: "file:///etc/passwd",
		`not json`: "",
		`{"$id": "http://example.com/root.json", "properties": {"$ref": "#/x"}}`: "",
	} {
		if got := externalRef([]byte(schema)); got != want {
			t.Errorf("externalRef(%s) = %q, want %q", schema, got, want)
		}
	}
}
