package fix

import (
	"slices"
	"testing"

	"github.com/podlint/podlint/finding"
)

// TestOtherChanges: the fields a fix changes beyond its own, in its object
// or any other, are named by object and path; none when it changes only its
// paths; a change in the number of documents is an error.
func TestOtherChanges(t *testing.T) {
	const before = "kind: Deployment\nmetadata: {name: a}\nspec: {x: 3, y: 3}\n---\nkind: Service\nmetadata: {name: a}\nspec: {x: 3}\n"
	obj := &finding.ObjectRef{Kind: "Deployment", Name: "a"}
	for _, c := range []struct {
		after string
		want  []string
	}{
		{"kind: Deployment\nmetadata: {name: a}\nspec: {x: 1, y: 3}\n---\nkind: Service\nmetadata: {name: a}\nspec: {x: 3}\n", nil},
		{"kind: Deployment\nmetadata: {name: a}\nspec: {x: 1, y: 1}\n---\nkind: Service\nmetadata: {name: a}\nspec: {x: 1}\n",
			[]string{"Deployment a spec.y", "Service a spec.x"}},
	} {
		got, err := otherChanges([]byte(before), []byte(c.after), obj, []string{"spec.x"})
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("otherChanges = %q, %v; want %q", got, err, c.want)
		}
	}
	if _, err := otherChanges([]byte(before), []byte("kind: Deployment\nmetadata: {name: a}\nspec: {x: 1, y: 3}\n"), obj, []string{"spec.x"}); err == nil {
		t.Error("a document less was not an error")
	}
}
