package main

import (
	"fmt"
	"sort"
	"strings"
)

// A check pairs a quantity of podlint's JSON for the scenario's target
// object with the same quantity read off a recording.
type check struct {
	quantity string
	field    string // podlint JSON path; the prediction unless predict is set
	predict  func(*prediction) (interval, error)
	observe  func(*recording) (float64, error)
	// tol widens the interval on both sides: the watch's delivery and the
	// harness's own requests (default 0.25 s).
	tol  float64
	note string
	// ifOutside: the reason the row gives when it is outside (a term
	// that is the kubelet's, not the controller's).
	ifOutside string
	// afterState reads the prediction from the scenario's after manifest.
	afterState bool
}

const defaultTolerance = 0.25

// Verdicts. An unbounded prediction is not checked, whatever was
// observed: any value is inside [lo, ∞) once it is above lo, and counting
// that as agreement would let a model that bounds nothing pass.
const (
	inside     = "inside"
	outside    = "outside"
	notChecked = "not checked (unbounded)"
	notSeen    = "not observed"
)

// row is one check of one scenario over every run.
type row struct {
	scenario, quantity, field, note, ifOutside string
	pred                                       interval
	predErr                                    error
	tol                                        float64
	obs                                        []float64 // per run
	errs                                       []error   // per run: not observed
}

func (r row) verdict() string {
	if r.predErr != nil {
		return notSeen
	}
	v := inside
	for i := range r.obs {
		switch {
		case r.errs[i] != nil:
			return notSeen
		case r.pred.unbounded():
			v = notChecked
		case r.obs[i] < r.pred.lo-r.tol || r.obs[i] > r.pred.hi+r.tol:
			if v != notChecked {
				v = outside
			}
		}
	}
	return v
}

// evaluate computes every check of every recording against the
// scenario's prediction, one row per check with the runs side by side.
func evaluate(scs []*scenario, preds map[string]*prediction, recs []*recording) []row {
	var rows []row
	for _, sc := range scs {
		var mine []*recording
		for _, r := range recs {
			if r.Scenario == sc.name {
				mine = append(mine, r)
			}
		}
		sort.Slice(mine, func(i, j int) bool { return mine[i].Run < mine[j].Run })
		for _, ck := range sc.checks {
			rw := row{scenario: sc.name, quantity: ck.quantity, field: ck.field, note: ck.note, ifOutside: ck.ifOutside, tol: ck.tol}
			if rw.tol == 0 {
				rw.tol = defaultTolerance
			}
			p := preds[sc.name]
			if ck.afterState {
				p = preds[sc.name+"/after"]
			}
			switch {
			case p == nil:
				rw.predErr = fmt.Errorf("no prediction")
			case ck.predict != nil:
				rw.pred, rw.predErr = ck.predict(p)
			default:
				rw.pred, rw.predErr = p.iv(ck.field)
			}
			for _, r := range mine {
				v, err := ck.observe(r)
				rw.obs = append(rw.obs, v)
				rw.errs = append(rw.errs, err)
			}
			rows = append(rows, rw)
		}
	}
	return rows
}

// counts tallies the rows by verdict.
func counts(rows []row) map[string]int {
	n := map[string]int{}
	for _, r := range rows {
		n[r.verdict()]++
	}
	return n
}

func (r row) observed() string {
	var parts []string
	for i, v := range r.obs {
		if r.errs[i] != nil {
			parts = append(parts, "— ("+r.errs[i].Error()+")")
			continue
		}
		parts = append(parts, num(v))
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, ", ")
}
