package main

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// The observer the end-to-end test of podlint observe runs as is bound to
// exactly the ClusterRole docs/observe.md gives users, so that the test
// proves that role is enough and writes nothing.
func TestObserverRoleIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/observe.md")
	if err != nil {
		t.Fatal(err)
	}
	var documented *rbacv1.ClusterRole
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(doc, -1) {
		if !strings.Contains(string(m[1]), "kind: ClusterRole") {
			continue
		}
		documented = &rbacv1.ClusterRole{}
		if err := yaml.UnmarshalStrict(m[1], documented); err != nil {
			t.Fatalf("docs/observe.md's ClusterRole: %v", err)
		}
	}
	if documented == nil {
		t.Fatal("docs/observe.md has no ClusterRole")
	}
	if !reflect.DeepEqual(documented.Rules, observerRules) {
		t.Errorf("the harness's observer role differs from docs/observe.md's:\n%+v\n%+v", observerRules, documented.Rules)
	}
}

// The manifest the test applies is the one podlint checks: it decodes,
// and its workloads are the ones the checks name.
func TestObserveManifest(t *testing.T) {
	objs, err := decode(observeManifest)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 5 {
		t.Fatalf("%d objects, want 5", len(objs))
	}
	for _, o := range objs {
		if err := creatable(o); err != nil {
			t.Error(err)
		}
	}
}
