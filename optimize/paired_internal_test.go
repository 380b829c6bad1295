package optimize

import (
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestPairedDecisionUnderAQueue: on an M/M/1 queue at ρ = 0.9 (λ = 0.9/s,
// μ = 1/s) the candidates of a class are batched; no hedging against
// itself — the same requests — is a paired difference of exactly 0, "~"
// and not a significant fall, while the paired interval of two runs whose
// p95s truly differ (copies sent after 20 s to a second, idle provider
// lower the p95 by about a third) excludes 0 and is narrower than the
// baseline's own interval.
func TestPairedDecisionUnderAQueue(t *testing.T) {
	cfg := &sim.Config{
		Name: "queue", Seed: 3, Requests: 100_000,
		Arrivals:  sim.Arrivals{Process: sim.Poisson, Rate: 0.9},
		Models:    []sim.Model{{Name: "m", Provider: "p", Latency: dist.Exponential{Rate: 1}}, {Name: "m2", Provider: "p2", Latency: dist.Exponential{Rate: 1}}},
		Providers: []sim.Provider{{Name: "p", Concurrency: 1}, {Name: "p2", Concurrency: 1}},
		Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
			Policy: sim.Policy{Targets: []int{1}, Copies: 1, Delays: []time.Duration{20 * time.Second}}}},
	}
	cand := func(c *sim.Config) *Candidate {
		res, err := sim.Run(c)
		if err != nil {
			t.Fatal(err)
		}
		var x Candidate
		summarize(&x, &res.Classes[0], 0.95, 0)
		if x.batches(0.95) == nil {
			t.Fatal("a queue's candidate has no batches")
		}
		return &x
	}
	base, pick := cand(sim.WithoutHedging(cfg)), cand(cfg)
	if sig, paired := fallsSignificantly(base, base, 0.95, 0.95); sig || !paired || !likePick(base, base, 0.95, 0.95) {
		t.Errorf("no hedging against itself: significant %v (paired %v), like %v; want a paired 0 that is not significant", sig, paired, likePick(base, base, 0.95, 0.95))
	}
	d, ok := pairedDiff(base, pick, 0.95, 0.95)
	if !ok || !(d.CI[1] < 0) {
		t.Fatalf("hedging to an idle replica: paired difference %+v, want an interval below 0", d)
	}
	if sig, paired := fallsSignificantly(base, pick, 0.95, 0.95); !sig || !paired {
		t.Errorf("the fall is significant %v, paired %v; want both", sig, paired)
	}
	t.Logf("p95 %.2f → %.2f s; paired difference %.2f [%.2f, %.2f]; own half-widths %.2f, %.2f s", base.Q(0.95), pick.Q(0.95), d.Diff, d.CI[0], d.CI[1],
		(base.CI(0.95)[1]-base.CI(0.95)[0])/2, (pick.CI(0.95)[1]-pick.CI(0.95)[0])/2)
	if math.IsNaN(d.HalfWidth()) || d.HalfWidth() >= (base.CI(0.95)[1]-base.CI(0.95)[0])/2 {
		t.Errorf("paired half-width %.3f s is not below the baseline's own %.3f s", d.HalfWidth(), (base.CI(0.95)[1]-base.CI(0.95)[0])/2)
	}
}

// TestNotSignificantSuggestsAPrecision: a fall of 4 % not significant at
// 200000 requests suggests a half-width of half of it, 2 %; 7 % suggests
// 2 % too (3.5 % rounded down to 1, 2 or 5 times a power of ten).
func TestNotSignificantSuggestsAPrecision(t *testing.T) {
	for _, tc := range []struct {
		gain float64
		want string
	}{
		{4, "the paired difference's interval includes 0; not significant at 200000 requests: rerun with --precision 0.02"},
		{7, "the paired difference's interval includes 0; not significant at 200000 requests: rerun with --precision 0.02"},
		{12, "the paired difference's interval includes 0; not significant at 200000 requests: rerun with --precision 0.05"},
	} {
		if got := notSignificantWhy(true, 200000, tc.gain); got != tc.want {
			t.Errorf("gain %v: %q, want %q", tc.gain, got, tc.want)
		}
	}
}

// batched returns a candidate whose p95 is q with 30 batch p95s spread
// ±0.01 s around it (+Inf batches for a miss), an interval of ±0.05 s.
func batched(label string, q float64) Candidate {
	per := make([]float64, 30)
	for j := range per {
		per[j] = q + 0.01*float64(j%3-1)
	}
	return Candidate{
		Label: label, Hedging: label != "none", Requests: 20000,
		Latency: latencyAt(q), P95CIOK: true, P99CIOK: true,
		batchQ: [2][]float64{per, per},
	}
}

func latencyAt(q float64) (l sim.Latency) {
	l.P95, l.P99 = q, q
	l.P95CI95 = [2]float64{q - 0.05, q + 0.05}
	l.P99CI95 = l.P95CI95
	if math.IsInf(q, 1) {
		l.P95CI95 = [2]float64{q, q}
		l.P99CI95 = l.P95CI95
	}
	return l
}

// TestLikePickMiss: a p95 that is a miss is never "not significantly
// different" from a pick whose p95 is an answer (slow-replica-pool showed
// "~ none miss [miss, miss]" against a pick at 2.79 s: the paired
// difference of a miss has the unbounded interval (−Inf, +Inf), which
// holds 0); two misses are alike; two answers whose paired difference's
// interval holds 0 stay alike.
func TestLikePickMiss(t *testing.T) {
	pick := batched("2.79s", 2.79)
	none := batched("none", math.Inf(1))
	if likePick(&none, &pick, 0.95, 0.95) || likePick(&pick, &none, 0.95, 0.95) {
		t.Errorf("a miss is like an answer at 2.79s")
	}
	other := batched("3s", math.Inf(1))
	if !likePick(&none, &other, 0.95, 0.95) {
		t.Errorf("two misses are not alike")
	}
	near := batched("2.8s", 2.79)
	if !likePick(&near, &pick, 0.95, 0.95) {
		t.Errorf("the same batches are not alike")
	}
}

// TestLikePickAnsweredObjective: under objective answered, "~" compares
// the objective's own figure, the share answered within the target, by
// its Wilson intervals — not the p95, a miss for every candidate here
// (guard-check's shape: 50 % answered within 3 s without hedging, 87.6 %
// with the pick). At 20 000 requests a share's 95 % interval is about
// ±0.5 pt: 87.0 % vs 87.6 % overlap, 50.1 % and 85.0 % do not.
func TestLikePickAnsweredObjective(t *testing.T) {
	mk := func(label string, within float64) Candidate {
		c := batched(label, math.Inf(1))
		c.AnsweredWithinShare, c.AnsweredShare = within, within
		return c
	}
	cr := &ClassReport{
		Objective:  Objective{Goal: MostAnswered, Percentile: 0.95, Target: 3 * time.Second},
		Candidates: []Candidate{mk("none", 0.5011), mk("1.37s", 0.8504), mk("1s", 0.870), mk("792ms", 0.8756)},
		Pick:       3,
	}
	finishPick(cr, 0.95)
	want := []bool{false, false, true, false}
	for i, c := range cr.Candidates {
		if c.LikePick != want[i] {
			t.Errorf("%s (answered within 3s %.2f%% vs the pick's 87.56%%): like the pick %v; want %v", c.Label, 100*c.AnsweredWithinShare, c.LikePick, want[i])
		}
	}
}
