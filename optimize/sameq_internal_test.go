package optimize

import (
	"math"
	"strings"
	"testing"
)

// TestEqualPercentileNotSlower pins the why-not list calling no hedging
// "slower than the pick's 4.85s" at a p95 of 4.85s, the pick's own: the
// pick was ahead only on the unanswered share (rl-fatal: a copy after
// 10.6s rescues the 0.2% a rate-limited primary leaves unanswered). Such
// a candidate is behind on the unanswered share, and says so, both where
// the verdict rule moved the pick (the objective's 4s fails the rule's
// 10% minimum) and where the trade-off walk chose it. At 200 000 requests
// a share of 0.2% against 0 is significant.
func TestEqualPercentileNotSlower(t *testing.T) {
	rule := DefaultSettings().Rule
	o := DefaultSettings().Search.Objective
	for _, tc := range []struct {
		name   string
		cs     []Candidate
		prefix string
	}{
		{"rule moved the pick", []Candidate{
			altCand("none", 4.85, 100, 0, 0.998),
			altCand("10.6s", 4.85, 101, 0.01, 1),
			altCand("4s", 4.5, 102, 0.1, 0.998), // −7.2 %: below the rule's 10 %
		}, "the same p95"},
		{"trade-off walk", []Candidate{
			altCand("none", 4.85, 100, 0, 0.998),
			altCand("10.6s", 4.85, 101, 0.01, 1),
		}, "cheaper, at the same p95"},
	} {
		cr := ClassReport{Class: "c", Objective: o, Candidates: tc.cs}
		decide(&cr, rule, 0.95)
		if cr.Candidates[cr.Pick].Label != "10.6s" {
			t.Fatalf("%s: pick %s; want 10.6s", tc.name, cr.Candidates[cr.Pick].Label)
		}
		none := &cr.Candidates[0]
		r := reasonOf(none, ReasonMoreUnanswered)
		if reasonOf(none, ReasonSlower) != nil || r == nil || math.Abs(r.Value-0.002) > 1e-12 || r.Limit != 0 ||
			!strings.HasPrefix(r.Text, tc.prefix+" as the pick's (4.85s), with more requests unanswered (0.2% vs 0.0%)") {
			t.Errorf("%s: none %s %+v; want more_unanswered_than_pick, not slower", tc.name, none.Status, none.Reasons)
		}
	}
}
