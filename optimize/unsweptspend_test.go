package optimize_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// TestUnsweptConfiguredSpendKnownFigures: at 6000 requests pool3's class
// is undecided (TestTooFewAdviceCountsTheCut), so its configured policy,
// a 2 s delay the sweep's grid does not hold, rolls out unswept. Its
// spend row was all n/a: the class's rate (8 req/s) and no hedging's
// spend are known and shown, only the configured policy's spend is not
// (JSON null). The rollout check's predicted figures for it, printed
// "-", were 0 in JSON: they are null.
func TestUnsweptConfiguredSpendKnownFigures(t *testing.T) {
	t.Parallel()
	sc, err := scenario.Parse("s.toml", []byte(pool3))
	if err != nil {
		t.Fatal(err)
	}
	s := optimize.DefaultSettings()
	s.Requests = 6000
	s.CheckRequests = 6000
	rep, err := optimize.Run(&sc.Config, s, optimize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cr := rep.Classes[0]
	if !cr.Verdict.Undecided || cr.RolledOut() != nil {
		t.Fatalf("verdict %+v: want undecided, its configured policy unswept", cr.Verdict)
	}
	sp := cr.Spend
	// 8 req/s × $0.001 × 86400 s = $691.20 a day without hedging.
	if sp.RequestsPerSecond != 8 || sp.NoHedgingPerDay < 691.19 || sp.NoHedgingPerDay > 691.21 {
		t.Errorf("spend %+v: want 8 req/s, no hedging $691.20 a day", sp)
	}
	js, err := json.Marshal(sp)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"per_day":null`) || !strings.Contains(string(js), `"per_month":null`) || !strings.Contains(string(js), `"requests_per_s":8`) {
		t.Errorf("spend JSON %s: want the rate, and the configured policy's figures null", js)
	}
	if rep.Rollout == nil || len(rep.Rollout.Classes) != 1 {
		t.Fatalf("rollout check %+v: want one class", rep.Rollout)
	}
	js, err = json.Marshal(rep.Rollout.Classes[0])
	if err != nil {
		t.Fatal(err)
	}
	var rc struct {
		Answered  *float64 `json:"predicted_answered_share"`
		AddedCost *float64 `json:"predicted_added_cost_pct"`
		Latency   struct {
			P95 *float64 `json:"p95"`
		} `json:"predicted_latency_s"`
	}
	if err := json.Unmarshal(js, &rc); err != nil {
		t.Fatal(err)
	}
	if rc.Answered != nil || rc.AddedCost != nil || rc.Latency.P95 != nil {
		t.Errorf("rollout check %s: want the predicted figures null (nothing predicted)", js)
	}
}
