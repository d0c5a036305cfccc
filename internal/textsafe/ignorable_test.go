package textsafe

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

const ucdExtract = "testdata/DerivedCoreProperties-Default_Ignorable_Code_Point.txt"

// propertyLines returns the "XXXX..YYYY ; Default_Ignorable_Code_Point"
// lines of a DerivedCoreProperties file, and its first line (the version).
func propertyLines(t *testing.T, path string) (first string, lines []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if first == "" {
			first = sc.Text()
		}
		if before, _, _ := strings.Cut(sc.Text(), "#"); strings.Contains(before, "; Default_Ignorable_Code_Point") {
			lines = append(lines, sc.Text())
		}
	}
	return first, lines
}

// TestDefaultIgnorableTableIsTheUnicodeData: the generated table holds
// exactly the code points the committed Unicode data lists (so a table
// edited by hand, or not regenerated, fails), contains Go's own
// Other_Default_Ignorable_Code_Point, and the committed data is the
// system's DerivedCoreProperties.txt of the same version where one is
// installed (Debian's unicode-data package; skipped otherwise).
func TestDefaultIgnorableTableIsTheUnicodeData(t *testing.T) {
	version, lines := propertyLines(t, ucdExtract)
	listed := map[rune]bool{}
	for _, l := range lines {
		cps, _, _ := strings.Cut(l, ";")
		lo, hi, ok := strings.Cut(strings.TrimSpace(cps), "..")
		if !ok {
			hi = lo
		}
		a, err1 := strconv.ParseInt(lo, 16, 32)
		z, err2 := strconv.ParseInt(hi, 16, 32)
		if err1 != nil || err2 != nil || a > z {
			t.Fatalf("bad line %q", l)
		}
		for r := rune(a); r <= rune(z); r++ {
			listed[r] = true
		}
	}
	if len(listed) != 4174 && strings.Contains(version, "15.0.0") {
		t.Errorf("%d code points listed, Unicode 15.0.0 has 4174", len(listed))
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if in := unicode.Is(defaultIgnorable, r); in != listed[r] {
			t.Errorf("U+%04X: in the table %v, in %s %v (run go generate ./internal/textsafe)", r, in, ucdExtract, listed[r])
		}
	}
	for _, rng := range unicode.Other_Default_Ignorable_Code_Point.R16 {
		for r := rune(rng.Lo); r <= rune(rng.Hi); r += rune(rng.Stride) {
			if !listed[r] {
				t.Errorf("U+%04X is Other_Default_Ignorable_Code_Point in Go's unicode but not in the table", r)
			}
		}
	}

	const system = "/usr/share/unicode/DerivedCoreProperties.txt"
	if _, err := os.Stat(system); err != nil {
		t.Skip("no", system, "(Debian's unicode-data) to compare the committed data with")
	}
	sysVersion, sysLines := propertyLines(t, system)
	if sysVersion != version {
		t.Skipf("%s is %q, the committed data %q", system, sysVersion, version)
	}
	if strings.Join(sysLines, "\n") != strings.Join(lines, "\n") {
		t.Errorf("%s differs from %s in its Default_Ignorable_Code_Point lines", ucdExtract, system)
	}
}

// TestEscapeDefaultIgnorable: every default-ignorable code point is
// escaped, among them the five that passed before (Hangul fillers U+3164,
// U+115F and U+FFA0, the combining grapheme joiner U+034F and the
// variation selector U+FE0F: printable to Go, invisible on screen).
func TestEscapeDefaultIgnorable(t *testing.T) {
	for in, want := range map[string]string{
		"a\u3164b":           `a\u3164b`,
		"\u115fx":            `\u115fx`,
		"x\uffa0":            `x\uffa0`,
		"e\u034f":            `e\u034f`,
		"\u2764\ufe0f":       `❤\ufe0f`,
		"tag\U000e0041":      `tag\U000e0041`,
		"plain café 名前 ❤ ok": "plain café 名前 ❤ ok",
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
	for _, rng := range defaultIgnorable.R16 {
		for r := rune(rng.Lo); r <= rune(rng.Hi); r++ {
			if s := string(r); Safe(s) || Strip(s) != "" {
				t.Errorf("U+%04X is not escaped", r)
			}
		}
	}
	for _, rng := range defaultIgnorable.R32 {
		for r := rune(rng.Lo); r <= rune(rng.Hi); r++ {
			if s := string(r); Safe(s) || Strip(s) != "" {
				t.Errorf("U+%04X is not escaped", r)
			}
		}
	}
}
