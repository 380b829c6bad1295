package optimize_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// independentCopyAfter1s is a class of independent requests whose
// latency is exponential at 1/s and whose loser is billed its input only,
// half a request's cost (100 input tokens at $1/MTok, 50 output tokens at
// $2/MTok): a copy after 1 s is sent with probability e⁻¹ and adds half a
// request's cost, so the added cost is exactly 50·e⁻¹ = 18.394 %.
func independentCopyAfter1s(n int, seed uint64) *sim.Config {
	return &sim.Config{
		Name: "test", Seed: seed, Requests: n,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 50},
		Models:   []sim.Model{{Name: "m", Provider: "p", Latency: dist.Exponential{Rate: 1}, PriceInputPerMTok: 1, PriceOutputPerMTok: 2}},
		Classes: []sim.Class{{
			Name: "c", Share: 1,
			InputTokens:  dist.Constant{Value: 100},
			OutputTokens: dist.Constant{Value: 50},
			Policy:       sim.Policy{Copies: 1, Delays: []time.Duration{time.Second}, CancelBilling: sim.BillInput},
		}},
	}
}

// TestCandidateAddedCostIntervalIndependent: a candidate of independent
// requests gets the added cost's paired interval over arrival sections,
// as run gives it. At a copy after 1 s the interval covers 50·e⁻¹ in
// ≥ 36 of 40 seeds (a 95 % interval covers in 38 on average; 36 is two
// binomial standard errors, √(40·0.05·0.95) = 1.38, below), with 4000
// requests a candidate; it reads back through a measurement's JSON.
func TestCandidateAddedCostIntervalIndependent(t *testing.T) {
	t.Parallel()
	want := 50 / math.E
	s := optimize.DefaultSettings()
	s.Requests, s.CheckRequests = 4000, 0
	s.Search.Delays = []time.Duration{time.Second}
	covered, half := 0, 0.0
	for seed := range uint64(40) {
		rep, err := optimize.Run(independentCopyAfter1s(s.Requests, seed+1), s, optimize.Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		cr := rep.Classes[0]
		var c *optimize.Candidate
		for i := range cr.Candidates {
			if cr.Candidates[i].Hedging && cr.Candidates[i].DelaySeconds == 1 {
				c = &cr.Candidates[i]
			}
		}
		if c == nil {
			t.Fatalf("seed %d: no candidate at 1 s among %d", seed+1, len(cr.Candidates))
		}
		ci := c.AddedCostPctCI95
		if ci == nil || ci[0] == nil || ci[1] == nil || c.AddedCostPctCIMethod != sim.CIMethodAddedCostPaired || c.CIMethod != optimize.CIMethodWilson {
			t.Fatalf("seed %d: added cost %.3f%%, interval %v, method %q, %q", seed+1, c.AddedCostPct, ci, c.AddedCostPctCIMethod, c.CIMethod)
		}
		if *ci[0] > c.AddedCostPct || *ci[1] < c.AddedCostPct {
			t.Errorf("seed %d: interval [%v, %v] leaves out its estimate %v", seed+1, *ci[0], *ci[1], c.AddedCostPct)
		}
		if *ci[0] <= want && want <= *ci[1] {
			covered++
		}
		half += (*ci[1] - *ci[0]) / 2 / 40
		if b := cr.Baseline(); b.AddedCostPctCI95 == nil || *b.AddedCostPctCI95[0] != 0 || *b.AddedCostPctCI95[1] != 0 {
			t.Errorf("seed %d: no hedging's added cost interval %v, want [0, 0]", seed+1, b.AddedCostPctCI95)
		}
	}
	t.Logf("added cost %.3f%% covered in %d/40 seeds, mean half-width %.3f points", want, covered, half)
	if covered < 36 {
		t.Errorf("the added cost's interval covers %.3f%% in %d/40 seeds, want ≥ 36", want, covered)
	}
}

// TestSectionCostsThroughShards: a sharded sweep's measurements carry no
// hedging's section costs and each candidate's added cost's standard
// error over them, so the assembled report has the same added cost's
// interval as Run's; a measurement with the wrong number of sections, a
// negative cost, section costs on a hedged run or a standard error
// without its sections is refused, naming the field, and one without them
// (an older shard) reads back with none.
func TestSectionCostsThroughShards(t *testing.T) {
	t.Parallel()
	s := optimize.DefaultSettings()
	s.Requests, s.CheckRequests = 2000, 0
	s.Search.Delays = []time.Duration{time.Second}
	cfg := independentCopyAfter1s(s.Requests, 3)
	want, err := optimize.Run(cfg, s, optimize.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := optimize.RunShard(cfg, s, optimize.Shard{Index: 0, Count: 2}, nil, optimize.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	ms1, err := optimize.RunShard(cfg, s, optimize.Shard{Index: 1, Count: 2}, nil, optimize.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ms, err = optimize.Union(ms, ms1); err != nil {
		t.Fatal(err)
	}
	got, _, err := optimize.Assemble(cfg, s, ms, optimize.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	w, g := want.Classes[0].Candidates[1], got.Classes[0].Candidates[1]
	if w.AddedCostPctCI95 == nil || g.AddedCostPctCI95 == nil || *w.AddedCostPctCI95[0] != *g.AddedCostPctCI95[0] || *w.AddedCostPctCI95[1] != *g.AddedCostPctCI95[1] {
		t.Errorf("added cost interval %v assembled, %v run", g.AddedCostPctCI95, w.AddedCostPctCI95)
	}
	var withSections, hedged *optimize.Measurement
	for i := range ms {
		switch {
		case len(ms[i].SectionCosts) == 1000 && strings.HasSuffix(ms[i].Key, ": none"):
			withSections = &ms[i]
		case ms[i].SectionCosts != nil:
			t.Errorf("%s: hedged, yet %d section costs", ms[i].Key, len(ms[i].SectionCosts))
		case ms[i].CostSections == 1000 && ms[i].CostSE > 0:
			hedged = &ms[i]
		}
	}
	if withSections == nil || hedged == nil {
		t.Fatalf("no measurement of no hedging with 1000 section costs (%v), or none hedged with a standard error over 1000 (%v)", withSections != nil, hedged != nil)
	}
	hdata, err := json.Marshal(hedged)
	if err != nil {
		t.Fatal(err)
	}
	var hback optimize.Measurement
	if err := json.Unmarshal(hdata, &hback); err != nil || hback.CostSE != hedged.CostSE || hback.CostSections != 1000 {
		t.Fatalf("hedged measurement after JSON: %v, se %v, sections %d", err, hback.CostSE, hback.CostSections)
	}
	for _, c := range []struct{ from, to, field string }{
		{`"added_cost_sections":1000`, `"added_cost_sections":1`, "added_cost_sections"},
		{`"added_cost_sections":1000`, `"added_cost_sections":0`, "added_cost_se_pct"},
		{`"added_cost_se_pct":`, `"added_cost_se_pct":-`, "added_cost_se_pct"},
		{`"added_cost_sections":1000`, `"added_cost_sections":1000,"section_cost_usd":[` + strings.Repeat("0,", 999) + `0]`, "section_cost_usd"},
	} {
		bad := strings.Replace(string(hdata), c.from, c.to, 1)
		if bad == string(hdata) {
			t.Fatalf("no %s in %s", c.from, hdata)
		}
		if err := json.Unmarshal([]byte(bad), &hback); err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s → %s: error %v, want one naming %s", c.from, c.to, err, c.field)
		}
	}
	data, err := json.Marshal(withSections)
	if err != nil {
		t.Fatal(err)
	}
	var back optimize.Measurement
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	for k, x := range back.SectionCosts {
		if x != withSections.SectionCosts[k] {
			t.Fatalf("section %d: %v after JSON, %v before", k, x, withSections.SectionCosts[k])
		}
	}
	i := strings.Index(string(data), `"section_cost_usd":[`)
	if i < 0 {
		t.Fatalf("no section_cost_usd in %s", data)
	}
	at := i + len(`"section_cost_usd":[`)
	for _, bad := range []string{
		string(data[:at]) + "1," + string(data[at:]), // 1001 sections
		string(data[:at]) + "-1," + string(data[at+strings.Index(string(data[at:]), ",")+1:]),
	} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil || !strings.Contains(err.Error(), "section_cost_usd") {
			t.Errorf("bad section costs: error %v, want one naming section_cost_usd", err)
		}
	}
	// Parts of an older build, without section costs, still assemble:
	// without the added cost's interval.
	stripped := make([]optimize.Measurement, len(ms))
	for i, m := range ms {
		m.SectionCosts, m.CostSE, m.CostSections = nil, 0, 0
		stripped[i] = m
	}
	old, _, err := optimize.Assemble(cfg, s, stripped, optimize.Options{Workers: 1})
	if err != nil {
		t.Fatalf("parts without section costs: %v", err)
	}
	if c := old.Classes[0].Candidates[1]; c.AddedCostPctCI95 != nil || c.AddedCostPctCIMethod != "" || c.AddedCostPct != w.AddedCostPct {
		t.Errorf("parts without section costs: added cost %v, interval %v, method %q", c.AddedCostPct, c.AddedCostPctCI95, c.AddedCostPctCIMethod)
	}
	end := at + strings.Index(string(data[at:]), "]")
	without := string(data[:i-1]) + string(data[end+1:]) // without the field and its comma
	if err := json.Unmarshal([]byte(without), &back); err != nil || back.SectionCosts != nil {
		t.Errorf("a measurement without section costs: error %v, sections %d", err, len(back.SectionCosts))
	}
}
