package finding

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Capitalize starts a sentence: "with …" becomes "With …".
func Capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// Sentence makes text a sentence of a finding's Detail: a capital first
// letter and a final period (unless it ends with one or a question mark).
// The empty text stays empty. The loader, the renderer and the rules all
// turn clauses into details with it.
func Sentence(s string) string {
	if s == "" {
		return s
	}
	s = Capitalize(s)
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") {
		s += "."
	}
	return s
}
