package textsafe

import (
	"log"
	"strings"
	"testing"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, café 名前 a\u00a0b":    "plain text, café 名前 a\u00a0b",
		"a\n::error::x":                   `a\n::error::x`,
		"\x1b]0;title\a\x1b[2J":           `\x1b]0;title\x07\x1b[2J`,
		"\u202eabc\u2066\u2069\u200b":     `\u202eabc\u2066\u2069\u200b`,
		"tab\tcr\rdel\x7f c1\u0085\u009b": `tab\tcr\rdel\x7f c1\u0085\u009b`,
		"bad \xff\xfe utf8":               `bad \xff\xfe utf8`,
		"ls\u2028ps\u2029bom\ufeff":       `ls\u2028ps\u2029bom\ufeff`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Quote("a b\n"); got != `"a b\n"` {
		t.Errorf("Quote = %s", got)
	}
	if got := Strip("a\x1b[2Jb\n\tc\u202e\xff"); got != "a[2Jb\n\tc" {
		t.Errorf("Strip = %q", got)
	}
	if got := Text("\x1b[1mbold\x1b[0m\n\x1b]0;t\a\n", true); got != "\x1b[1mbold\x1b[0m\n\\x1b]0;t\\x07\n" {
		t.Errorf("Text keeping color = %q", got)
	}
	if got := Text("\x1b[1mb\x1b[0m\n", false); got != `\x1b[1mb\x1b[0m`+"\n" {
		t.Errorf("Text without color = %q", got)
	}
	s := "nothing to escape here"
	if n := testing.AllocsPerRun(10, func() { Escape(s) }); n != 0 {
		t.Errorf("Escape of safe text allocates %v times", n)
	}
}

func TestWriter(t *testing.T) {
	var b strings.Builder
	w := Writer{W: &b}
	in := "usage:\tx\n\x1b[2J\u202e\n"
	if n, err := w.Write([]byte(in)); err != nil || n != len(in) {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if got := b.String(); got != "usage:\tx\n\\x1b[2J\\u202e\n" {
		t.Errorf("wrote %q", got)
	}
}

func TestLogWriterKeepsARecordOnOneLine(t *testing.T) {
	var b strings.Builder
	l := log.New(LogWriter{W: &b, Prefix: "podlint: "}, "", 0)
	l.Printf("warning: key %s", "a\n::error::x\x1b[2J")
	l.Print("second")
	if want := "podlint: warning: key a\\n::error::x\\x1b[2J\npodlint: second\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
