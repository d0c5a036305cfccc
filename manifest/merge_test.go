package manifest

import (
	"testing"

	"github.com/podlint/podlint/workload"
	yaml "go.yaml.in/yaml/v3"
)

// TestMergeLookupAgreesWithConversion: for every key of a mapping with
// merge keys, the pair a lookup finds is the pair the converter keeps.
func TestMergeLookupAgreesWithConversion(t *testing.T) {
	docs := []string{
		"a: &a {x: 1, q: 1}\nb: &b {q: 2, z: 2}\nm: {<<: [*a, *b], z: 3}\n",
		"a: &a {x: 1}\nb: &b {<<: *a, x: 2, w: 2}\nm: {x: 0, <<: *b}\n",
		"a: &a {k: 1}\nm: {<<: [*a, *a, {k: 2, j: 2}], j: 3}\n",
		"a: &a {k: 1}\nb: &b {<<: *a}\nc: &c {<<: *b}\nm: {<<: [*c, *b], l: 0}\n",
	}
	for _, src := range docs {
		var root yaml.Node
		if err := yaml.Unmarshal([]byte(src), &root); err != nil {
			t.Fatal(err)
		}
		m := childAt(&root, "m", DefaultLimits.MaxDepth)
		c := &converter{maxDepth: DefaultLimits.MaxDepth, budget: DefaultLimits.MaxNodes}
		var set entrySet
		c.entries(m, &set, 0)
		if len(c.errors) > 0 || len(set.list) == 0 {
			t.Fatalf("%q: conversion failed: %v", src, c.errors)
		}
		for _, e := range set.list {
			k, v := lookupKey(m, e.key, DefaultLimits.MaxDepth)
			if k == nil {
				t.Errorf("%q: key %s: lookup finds nothing", src, e.key)
				continue
			}
			if k != e.keyN || v != e.value {
				t.Errorf("%q: key %s: lookup finds %v at line %d, the converter keeps %v at line %d", src, e.key, v.Value, v.Line, e.value.Value, e.value.Line)
			}
		}
	}
}

// TestMergeDepthIsOneLimit: merge keys nested deeper than Limits.MaxDepth
// fail the conversion and are not followed by lookups either.
func TestMergeDepthIsOneLimit(t *testing.T) {
	src := "a: &a {k: 1}\nb: &b {<<: *a}\nc: &c {<<: *b}\nm: {<<: *c}\n" // k is 3 merges deep
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(src), &root); err != nil {
		t.Fatal(err)
	}
	m := childAt(&root, "m", 10)
	for _, limit := range []int{2, 3} {
		c := &converter{maxDepth: limit, budget: DefaultLimits.MaxNodes}
		var set entrySet
		c.entries(m, &set, 0)
		k, _ := lookupKey(m, "k", limit)
		if converted, found := len(c.errors) == 0, k != nil; converted != found || converted != (limit >= 3) {
			t.Errorf("limit %d: conversion ok %v, lookup found k %v; want both %v", limit, converted, found, limit >= 3)
		}
	}
}

// TestIsSet: a field is set when the document writes it with a non-null
// scalar, directly, through an alias or through a merge key.
func TestIsSet(t *testing.T) {
	doc := `apiVersion: v1
kind: Pod
spec:
  terminationGracePeriodSeconds: 0
  activeDeadlineSeconds: ~
  hostname: null
  containers:
    - name: app
      image: &img nginx
      livenessProbe: &probe
        periodSeconds: 0
    - <<: {name: b, image: *img, readinessProbe: {timeoutSeconds: 1}}
      livenessProbe: {}
`
	res := Parse("p.yaml", []byte(doc), DefaultLimits)
	if len(res.Objects) != 1 || len(res.Problems) != 0 {
		t.Fatalf("parse: %d objects, problems %v", len(res.Objects), res.Problems)
	}
	d := res.Objects[0].Doc
	for path, want := range map[workload.Path]bool{
		"spec.terminationGracePeriodSeconds":                   true,
		"spec.activeDeadlineSeconds":                           false,
		"spec.hostname":                                        false,
		"spec.restartPolicy":                                   false,
		"spec.containers[0].livenessProbe.periodSeconds":       true,
		"spec.containers[0].livenessProbe.timeoutSeconds":      false,
		"spec.containers[0].livenessProbe":                     false, // a mapping, not a value
		"spec.containers[1].image":                             true,  // merged, an alias
		"spec.containers[1].readinessProbe.timeoutSeconds":     true,
		"spec.containers[1].livenessProbe.periodSeconds":       false,
		"spec.containers[2].name":                              false,
		`metadata.annotations["podlint.dev/expected-startup"]`: false,
	} {
		if got := d.IsSet(path); got != want {
			t.Errorf("IsSet(%s) = %v, want %v", path, got, want)
		}
	}
}

// lookupExact reads a mapping without merge keys in place; it must find
// what the walk finds, duplicates, aliases, case and all.
func TestLookupInPlaceIsTheWalk(t *testing.T) {
	src := "a: 1\nb: 2\na: 3\nB: 4\n? !!str c\n: 5\n'd': 6\nx: &k key\n*k : 7\n\"e\": {f: 1}\n"
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(src), &root); err != nil {
		t.Fatal(err)
	}
	m := root.Content[0]
	for _, key := range []string{"a", "b", "B", "c", "d", "key", "e", "f", "x", "<<", ""} {
		for _, fold := range []bool{false, true} {
			k, v := lookupExact(m, key, fold, DefaultLimits.MaxDepth)
			wk, wv := lookupWalk(m, key, fold, DefaultLimits.MaxDepth)
			if k != wk || v != wv {
				t.Errorf("key %q fold %v: in place (%v, %v), walk (%v, %v)", key, fold, k, v, wk, wv)
			}
		}
	}
	if k, v := lookupExact(m, "a", false, DefaultLimits.MaxDepth); k == nil || v.Value != "3" {
		t.Errorf("the last a should win, got %v", v)
	}
}
