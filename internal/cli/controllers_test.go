package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestControllerCases runs `podlint timeline -f json` on each case of
// testdata/controllers and checks the values its comments state, which were
// worked out from the Kubernetes source cited there (docs/semantics.md
// §Controllers):
//
//	# args: --kube-version 1.34 --nodes 4     flags before the file
//	# expect: controller.jobRetries = [40, 42]
//
// A path is dotted keys and [i] indexes into the file's first object
// (objects[N]. at the start picks another); the value is JSON, or absent
// for a key that must not be there.
func TestControllerCases(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "controllers", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"podlint", "timeline", "--no-config", "-f", "json"}
			if m := argsLine.FindSubmatch(data); m != nil {
				args = append(args, strings.Fields(string(m[1]))...)
			}
			var out, errb bytes.Buffer
			if code := Run(append(args, file), strings.NewReader(""), &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			var doc any
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			expects := expectLine.FindAllSubmatch(data, -1)
			if len(expects) == 0 {
				t.Fatal("no # expect: line")
			}
			for _, m := range expects {
				path, wantText := string(m[1]), string(m[2])
				if !strings.HasPrefix(path, "objects[") {
					path = "objects[0]." + path
				}
				got, err := jsonAt(doc, path)
				if wantText == "absent" {
					if err == nil {
						g, _ := json.Marshal(got)
						t.Errorf("%s = %s, want it absent", path, g)
					}
					continue
				}
				var want any
				if err := json.Unmarshal([]byte(wantText), &want); err != nil {
					t.Fatalf("# expect: %s = %s: %v", path, wantText, err)
				}
				if err != nil {
					t.Errorf("%s: %v", path, err)
					continue
				}
				if !reflect.DeepEqual(got, want) {
					g, _ := json.Marshal(got)
					t.Errorf("%s = %s, want %s", path, g, wantText)
				}
			}
		})
	}
}

var (
	argsLine   = regexp.MustCompile(`(?m)^# args: (.+)$`)
	expectLine = regexp.MustCompile(`(?m)^# expect: (\S+) = (.+)$`)
	pathStep   = regexp.MustCompile(`^([A-Za-z]+)?((?:\[\d+\])*)$`)
	indexStep  = regexp.MustCompile(`\[(\d+)\]`)
)

// jsonAt follows a path such as objects[0].rollout.cases[1].waves[0].start.
func jsonAt(v any, path string) (any, error) {
	for _, step := range strings.Split(path, ".") {
		m := pathStep.FindStringSubmatch(step)
		if m == nil {
			return nil, &pathError{step, "bad step"}
		}
		if m[1] != "" {
			obj, ok := v.(map[string]any)
			if !ok {
				return nil, &pathError{step, "not an object"}
			}
			if v, ok = obj[m[1]]; !ok {
				return nil, &pathError{step, "no such key"}
			}
		}
		for _, ix := range indexStep.FindAllStringSubmatch(m[2], -1) {
			i, _ := strconv.Atoi(ix[1])
			arr, ok := v.([]any)
			if !ok || i >= len(arr) {
				return nil, &pathError{step, "no such element"}
			}
			v = arr[i]
		}
	}
	return v, nil
}

type pathError struct{ step, why string }

func (e *pathError) Error() string { return e.step + ": " + e.why }
