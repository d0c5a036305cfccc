package crossobject

import (
	"fmt"
	"testing"

	"github.com/podlint/podlint/finding"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func wl(ns, name string, labels map[string]string) *Workload {
	return &Workload{Object: Object{Ref: finding.ObjectRef{Kind: "Deployment", Namespace: ns, Name: name}}, Labels: labels, Scaled: true, Replicas: 1}
}

func TestSelection(t *testing.T) {
	web := wl("", "web", map[string]string{"app": "web", "tier": "front"})
	api := wl("", "api", map[string]string{"app": "api", "tier": "back"})
	other := wl("prod", "web", map[string]string{"app": "web", "tier": "front"})
	exprs := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"front", "edge"}}}}
	notIn := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}, MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"back"}}}}
	v := Build([]*Part{{
		Workloads: []*Workload{web, api, other},
		Services: []*Service{
			{Object: Object{Ref: finding.ObjectRef{Name: "web"}}, Selector: map[string]string{"app": "web"}},
			{Object: Object{Ref: finding.ObjectRef{Name: "none"}}},
		},
		PDBs: []*PDB{
			{Object: Object{Ref: finding.ObjectRef{Name: "front"}}, Selector: PDBSelector(exprs, false)},
			{Object: Object{Ref: finding.ObjectRef{Name: "never"}}, Selector: PDBSelector(notIn, false)},
			{Object: Object{Ref: finding.ObjectRef{Name: "all"}}, Selector: PDBSelector(&metav1.LabelSelector{}, false)},
			{Object: Object{Ref: finding.ObjectRef{Name: "beta-empty"}}, Selector: PDBSelector(&metav1.LabelSelector{}, true)},
			{Object: Object{Ref: finding.ObjectRef{Name: "null"}}, Selector: PDBSelector(nil, false)},
		},
	}})
	ns := v.Namespace("")
	names := func(ws []*Workload) string {
		s := ""
		for _, w := range ws {
			s += w.Ref.Namespace + "/" + w.Ref.Name + " "
		}
		return s
	}
	for _, c := range []struct {
		got  []*Workload
		want string
	}{
		{ns.SelectedByService(ns.Services[0]), "/web "},
		{ns.SelectedByService(ns.Services[1]), ""}, // a Service without selector selects nothing
		{ns.SelectedByPDB(ns.PDBs[0]), "/web "},    // matchExpressions In
		{ns.SelectedByPDB(ns.PDBs[1]), ""},         // matchLabels and NotIn together
		{ns.SelectedByPDB(ns.PDBs[2]), "/web /api "},
		{ns.SelectedByPDB(ns.PDBs[3]), ""}, // policy/v1beta1: empty selects nothing
		{ns.SelectedByPDB(ns.PDBs[4]), ""}, // null selects nothing
	} {
		if g := names(c.got); g != c.want {
			t.Errorf("selected %q, want %q", g, c.want)
		}
	}
	// The workload in namespace prod is never selected from namespace "".
	if got := ns.ServicesSelecting(other); len(got) != 0 {
		t.Errorf("a Service selected a workload of another namespace: %v", got)
	}
	if got := ns.PDBsCovering(web); len(got) != 2 {
		t.Errorf("PDBs covering web = %d, want 2 (front, all)", len(got))
	}
}

// TestIndex: a selector with matchLabels looks only at the workloads that
// carry its rarest label, so selecting for every Service is linear.
func TestIndex(t *testing.T) {
	p := &Part{}
	for i := range 1000 {
		p.Workloads = append(p.Workloads, wl("", fmt.Sprint("w", i), map[string]string{"app": fmt.Sprint("a", i), "team": "t"}))
	}
	ns := Build([]*Part{p}).Namespace("")
	if c := ns.candidates(map[string]string{"app": "a7", "team": "t"}); len(c) != 1 {
		t.Errorf("candidates = %d, want 1", len(c))
	}
	if c := ns.candidates(nil); len(c) != 1000 {
		t.Errorf("candidates without pairs = %d, want all", len(c))
	}
	if c := ns.candidates(map[string]string{"app": "missing"}); len(c) != 0 {
		t.Errorf("candidates of a missing label = %d", len(c))
	}
}

// TestSameObjectTwice: a Service defined in two files of a run is one
// object; the first definition is kept.
func TestSameObjectTwice(t *testing.T) {
	svc := func(file string) *Service {
		return &Service{Object: Object{Ref: finding.ObjectRef{Kind: "Service", Name: "web"}, File: file}, Selector: map[string]string{"app": "web"}}
	}
	v := Build([]*Part{{Services: []*Service{svc("a.yaml")}}, {Services: []*Service{svc("b.yaml")}}})
	if got := v.Namespace("").Services; len(got) != 1 || got[0].File != "a.yaml" {
		t.Errorf("services = %+v", got)
	}
}
