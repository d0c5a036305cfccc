package shellread

import (
	"strings"
	"testing"
)

// The loop and command tables were rules/command_script_test.go's, over
// the hand tokenizer this package replaced; they pass unchanged.

func TestShellLoops(t *testing.T) {
	for _, tc := range []struct {
		script                           string
		head                             string // "" when no loop is found
		waits, infinite, leaves, givesUp bool
	}{
		{`until nslookup mydb; do echo waiting for mydb; sleep 2; done;`, "until nslookup mydb", true, false, false, false},
		{"while ! nc -z db 5432; do\n  sleep 1\ndone\nexec app", "while ! nc -z db 5432", true, false, false, false},
		{`while true; do if nc -z db 5432; then break; fi; sleep 1; done`, "while true", true, true, true, false},
		{`while true; do sleep 3600; done`, "while true", true, true, false, false},
		{`i=0; until nslookup db || [ $i -ge 30 ]; do i=$((i+1)); sleep 2; done`, "until nslookup db || [ $i -ge 30 ]", true, false, false, true},
		{`for i in $(seq 1 30); do nc -z db 5432 && exit 0; sleep 2; done; exit 1`, "", false, false, false, false},
		{`while read line; do echo "$line"; done < /etc/hosts`, "while read line", false, false, false, false},
		{`until pg_isready -h db; do sleep 1; if [ -f /stop ]; then exit 1; fi; done`, "until pg_isready -h db", true, false, true, true},
		{`echo "until done; do nothing"`, "", false, false, false, false},
		{"# until x; do y; done\necho hi", "", false, false, false, false},
	} {
		loops := Parse(tc.script, 0).Loops()
		if tc.head == "" {
			if len(loops) != 0 {
				t.Errorf("%q: found loop %q, want none", tc.script, loops[0].Head)
			}
			continue
		}
		if len(loops) == 0 {
			t.Errorf("%q: no loop found", tc.script)
			continue
		}
		l := loops[0]
		if l.Head != tc.head || l.Waits() != tc.waits || l.Infinite() != tc.infinite || l.Leaves() != tc.leaves || l.GivesUp() != tc.givesUp {
			t.Errorf("%q: got head %q waits %v infinite %v leaves %v givesUp %v, want %q %v %v %v %v", tc.script,
				l.Head, l.Waits(), l.Infinite(), l.Leaves(), l.GivesUp(), tc.head, tc.waits, tc.infinite, tc.leaves, tc.givesUp)
		}
	}
}

func TestShellCommandsFailure(t *testing.T) {
	for _, tc := range []struct {
		script  string
		errexit bool
		fatal   string // names of commands whose failure fails the script, space-separated
	}{
		{`wget -O /x http://a`, false, "wget"},
		{`wget -O /x http://a; chmod +x /x`, false, "chmod"},
		{`wget -O /x http://a && chmod +x /x`, false, "wget chmod"},
		{`wget -O /x http://a; chmod +x /x`, true, "wget chmod"},
		{`wget -O /x http://a || true`, false, "true"},
		{`curl -s http://a | tar x`, false, "tar"},
		{"set -e\ncurl -fsS http://a -o /x\necho done\n", true, "set curl echo"},
		{`until nslookup db; do sleep 1; done; echo ok`, false, "echo"},
		{`if nslookup db; then echo ok; fi`, false, ""},
		{`nslookup db &`, true, ""},
	} {
		var got []string
		for _, c := range Parse(tc.script, 0).Commands() {
			if c.FailureFails(tc.errexit) {
				got = append(got, c.Name)
			}
		}
		if strings.Join(got, " ") != tc.fatal {
			t.Errorf("%q (errexit %v): fatal commands %q, want %q", tc.script, tc.errexit, strings.Join(got, " "), tc.fatal)
		}
	}
}
