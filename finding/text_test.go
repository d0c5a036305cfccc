package finding

import "testing"

func TestSentence(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"with two", "With two."},
		{"ends here.", "Ends here."},
		{"is it?", "Is it?"},
		{"über", "Über."},
		{"Already", "Already."},
		{"3 pods", "3 pods."},
	} {
		if got := Sentence(tc.in); got != tc.want {
			t.Errorf("Sentence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Capitalize("éclair"); got != "Éclair" {
		t.Errorf("Capitalize: got %q", got)
	}
	if got := Capitalize(""); got != "" {
		t.Errorf("Capitalize of empty: got %q", got)
	}
}
