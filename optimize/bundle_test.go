package optimize_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// TestPipelineBundleNotRecommended: a pick recommended instead of the
// objective's (past the trade-off's end) must have every hedged step earn
// its own cost. On testdata/bundled-turn.toml (support-turn, 8000 turns),
// the trade-off pick cuts p95 by 6.9%, short of the 10% minimum, and the
// search used to recommend guard-in 0s, answer 1.96s, guard-out 0s instead
// (−10.1% for +9.3% cost), whose answer step buys p95 7.30s → 6.99s for
// +7.9% cost, 0.5% per 1%, below the rule's 1%: it cleared the rule only
// bundled with guard copies that cost almost nothing. No candidate whose
// steps all earn their cost passes the rule, so the verdict is "don't
// hedge", and the bundle is rejected with its step named. The checks read
// the report's own figures (a decision on the simulated draws, fixed by
// the seed): no tolerance is involved.
func TestPipelineBundleNotRecommended(t *testing.T) {
	sc, err := scenario.Load("testdata/bundled-turn.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 8000, 0
	s.Only = []string{"support-turn"}
	rep, err := optimize.Run(&sc.Config, s, optimize.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	cr := &rep.Classes[0]
	base, pick := cr.Baseline(), cr.Picked()
	rate := s.Rule.MinGainPerCost
	if pick.Hedging && cr.Pick != cr.ObjectivePick {
		// Recommended instead: each hedged step, against the same pick
		// without it, buys at least the rule's minimum per 1% of cost.
		for _, st := range cr.Steps {
			if !st.Hedging || st.AddedCostPct <= 0 || st.ObjectiveChangeS == nil {
				continue
			}
			if gain := -100 * *st.ObjectiveChangeS / base.Latency.P95; gain < rate*st.AddedCostPct {
				t.Errorf("pick %s recommended instead of the objective's pick: its step %s buys %.2f%% of p95 for %+.1f%% cost, %.2f%% per 1%%, less than the rule's %g%%",
					pick.Label, st.Step, gain, st.AddedCostPct, gain/st.AddedCostPct, rate)
			}
		}
	}
	const bundle = "guard-in 0s, answer 1.96s, guard-out 0s"
	i := slices.IndexFunc(cr.Candidates, func(c optimize.Candidate) bool { return c.Label == bundle })
	if i < 0 {
		t.Fatalf("%s was not simulated: the test checks too little", bundle)
	}
	c := &cr.Candidates[i]
	if c.Pick {
		t.Fatalf("%s is picked: %s", bundle, cr.Verdict.Reason)
	}
	if !slices.ContainsFunc(c.Reasons, func(r optimize.Reason) bool {
		return r.Code == optimize.ReasonBundled && r.Name == "answer" && r.Value < r.Limit
	}) {
		t.Errorf("%s: reasons %+v, want %s naming step answer", bundle, c.Reasons, optimize.ReasonBundled)
	}
	if cr.Verdict.Hedge || pick.Hedging {
		t.Errorf("verdict %+v, pick %s: want don't hedge", cr.Verdict, pick.Label)
	}
	// Text and JSON say the same.
	var text, js bytes.Buffer
	if err := rep.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string]string{"text": text.String(), "json": js.String()} {
		if !strings.Contains(b, bundle+" passes the rule only as a bundle, not recommended: its step answer") {
			t.Errorf("%s report does not say why %s is not recommended", name, bundle)
		}
	}
}
