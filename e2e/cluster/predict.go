package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"strconv"
	"strings"
)

// prediction is podlint's timeline of one object of a scenario's
// manifest (`podlint timeline -f json --nodes 1`).
type prediction struct {
	obj map[string]any
}

// predict runs podlint on the manifest and picks the object kind/name.
func predict(podlint string, manifest []byte, target string) (*prediction, error) {
	cmd := exec.Command(podlint, "timeline", "-f", "json", "--no-config", "--nodes", "1", "-")
	cmd.Stdin = bytes.NewReader(manifest)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("podlint timeline: %v: %s", err, stderr.String())
	}
	return pickObject(out, target)
}

func pickObject(out []byte, target string) (*prediction, error) {
	var doc struct {
		Objects []map[string]any `json:"objects"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return nil, err
	}
	for _, o := range doc.Objects {
		if fmt.Sprint(o["kind"], "/", o["name"]) == target {
			return &prediction{obj: o}, nil
		}
	}
	return nil, fmt.Errorf("podlint timeline has no %s", target)
}

// get walks a dotted path; a number picks an array element.
func (p *prediction) get(path string) (any, error) {
	var cur any = p.obj
	parts := strings.Split(path, ".")
	for i, k := range parts {
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[k]
			if !ok {
				return nil, fmt.Errorf("podlint's JSON has no %s", strings.Join(parts[:i+1], "."))
			}
			cur = next
		case []any:
			n, err := strconv.Atoi(k)
			if err != nil || n < 0 || n >= len(v) {
				return nil, fmt.Errorf("podlint's JSON has no %s", strings.Join(parts[:i+1], "."))
			}
			cur = v[n]
		default:
			return nil, fmt.Errorf("podlint's JSON has no %s", strings.Join(parts[:i+1], "."))
		}
	}
	return cur, nil
}

// interval is [lo, hi]; hi is +Inf when podlint gives no bound.
type interval struct{ lo, hi float64 }

// iv reads an interval, or a number as an exact one.
func (p *prediction) iv(path string) (interval, error) {
	v, err := p.get(path)
	if err != nil {
		return interval{}, err
	}
	switch x := v.(type) {
	case float64:
		return interval{x, x}, nil
	case []any:
		if len(x) == 2 {
			if lo, ok := x[0].(float64); ok {
				if x[1] == nil {
					return interval{lo, math.Inf(1)}, nil
				}
				if hi, ok := x[1].(float64); ok {
					return interval{lo, hi}, nil
				}
			}
		}
	}
	return interval{}, fmt.Errorf("%s is not an interval: %v", path, v)
}

func (a interval) unbounded() bool { return math.IsInf(a.hi, 1) }

func (a interval) width() string {
	if a.unbounded() {
		return "∞"
	}
	return num(a.hi - a.lo)
}

func (a interval) String() string {
	if a.lo == a.hi {
		return num(a.lo)
	}
	if a.unbounded() {
		return "[" + num(a.lo) + ", ∞)"
	}
	return "[" + num(a.lo) + ", " + num(a.hi) + "]"
}

func num(x float64) string {
	s := strconv.FormatFloat(x, 'f', 2, 64)
	return strings.TrimRight(strings.TrimRight(s, "0"), ".")
}

// printPredictions prints what podlint predicts for every check, without
// a cluster: a scenario's expectation can be compared with it before a run.
func printPredictions(podlint string) error {
	for _, sc := range scenarios() {
		for _, ck := range sc.checks {
			m := sc.manifest
			if ck.afterState {
				m = sc.after
			}
			p, err := predict(podlint, []byte(strings.ReplaceAll(m, "@NS@", "podlint-e2e")), sc.target)
			var iv interval
			if err == nil {
				if ck.predict != nil {
					iv, err = ck.predict(p)
				} else {
					iv, err = p.iv(ck.field)
				}
			}
			if err != nil {
				fmt.Printf("%-20s %-70s error: %v\n", sc.name, ck.quantity, err)
				continue
			}
			fmt.Printf("%-20s %-70s %s\n", sc.name, ck.quantity, iv)
		}
	}
	return nil
}
