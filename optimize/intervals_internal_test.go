package optimize

import (
	"math"
	"strings"
	"testing"
)

// near reports whether an interval on the wire is [lo, hi] within 1e-9.
func near(ci *[2]*float64, lo, hi float64) bool {
	return ci != nil && ci[0] != nil && ci[1] != nil && math.Abs(*ci[0]-lo) < 1e-9 && math.Abs(*ci[1]-hi) < 1e-9
}

// TestCandidateIntervals checks setIntervals against closed forms. For
// independent requests: 90 of 100 answered has the Wilson 95 % interval
// [0.825634, 0.944771] (Wilson 1927, z = 1.959964), and without section
// costs there is no added cost's interval. Batched, with 4 batches: shares 0.88, 0.92, 0.89, 0.91
// around 0.9 give 0.9 ± t₀.₉₇₅,₃ · s/√4 = 0.9 ± 3.182446 · 0.0182574/2 =
// [0.870948, 0.929052]; costs 10 % above no hedging's in every batch give
// an added cost's interval of exactly [10 %, 10 %] around the pooled +10 %.
func TestCandidateIntervals(t *testing.T) {
	base := &Candidate{Requests: 100, AnsweredShare: 0.9, AnsweredWithinShare: 0.9}
	c := *base
	setIntervals(&c, base, CostUSD, 0.95, true)
	if !near(c.AnsweredShareCI95, 0.8256343384950865, 0.9447708629393249) || !near(c.AnsweredWithinShareCI95, 0.8256343384950865, 0.9447708629393249) {
		t.Errorf("Wilson: answered %v, within %v", c.AnsweredShareCI95, c.AnsweredWithinShareCI95)
	}
	if c.AddedCostPctCI95 != nil || c.CIMethod != CIMethodWilson {
		t.Errorf("independent requests: added cost interval %v, method %q", c.AddedCostPctCI95, c.CIMethod)
	}
	// Met 90 of 100, rescued and harmed 90 of 100 too (for the closed
	// form; a real run's would be small).
	r := 0.9
	c = *base
	c.MetShare, c.RescuedShare, c.HarmedShare = 0.9, &r, &r
	setIntervals(&c, base, CostUSD, 0.95, false)
	for name, ci := range map[string]*[2]*float64{"met": c.MetShareCI95, "rescued": c.RescuedShareCI95, "harmed": c.HarmedShareCI95} {
		if !near(ci, 0.8256343384950865, 0.9447708629393249) {
			t.Errorf("Wilson: %s %v", name, ci)
		}
	}
	if c.AnsweredWithinShareCI95 != nil {
		t.Errorf("no target, yet an interval of the share within it: %v", c.AnsweredWithinShareCI95)
	}

	shares := []float64{0.88, 0.92, 0.89, 0.91}
	base = &Candidate{Requests: 4000, AnsweredShare: 0.9, batchS: [3][]float64{shares, shares, {1, 2, 3, 4}}}
	c = Candidate{Requests: 4000, AnsweredShare: 0.9, AnsweredWithinShare: 0.9, AddedCostPct: 10, batchS: [3][]float64{shares, shares, {1.1, 2.2, 3.3, 4.4}}}
	setIntervals(&c, base, CostUSD, 0.95, true)
	if !near(c.AnsweredShareCI95, 0.8709483728424473, 0.9290516271575527) || !near(c.AnsweredWithinShareCI95, 0.8709483728424473, 0.9290516271575527) {
		t.Errorf("batched: answered %v, within %v", c.AnsweredShareCI95, c.AnsweredWithinShareCI95)
	}
	if !near(c.AddedCostPctCI95, 10, 10) || c.CIMethod != CIMethodGrid || c.AddedCostPctCIMethod != CIMethodAddedCostGrid {
		t.Errorf("batched: added cost %v, method %q", c.AddedCostPctCI95, c.CIMethod)
	}
	if c.MetShareCI95 != nil || c.RescuedShareCI95 != nil {
		t.Errorf("batched: Wilson intervals of met %v, rescued %v", c.MetShareCI95, c.RescuedShareCI95)
	}
	// On the calls basis the run keeps no batch figures: no interval.
	c.AddedCostPctCI95 = nil
	setIntervals(&c, base, CostCalls, 0.95, false)
	if c.AddedCostPctCI95 != nil || c.AnsweredWithinShareCI95 == nil {
		t.Errorf("calls basis: added cost %v; within (kept from before) %v", c.AddedCostPctCI95, c.AnsweredWithinShareCI95)
	}
}

// TestLikePickWithinPaired: under load, "~" under objective answered is
// the paired difference's test. Shares within the target of 0.90 and
// 0.91 over 100 requests have overlapping Wilson intervals ("~"); with
// batches whose differences are 0.01 ± 0.001 the paired interval, 0.01 ±
// 3.182446 · 0.0011547/2, excludes 0: not "~". Batches that differ by
// +0.01 and −0.01 in turn hold 0: "~".
func TestLikePickWithinPaired(t *testing.T) {
	pick := &Candidate{Requests: 100, AnsweredWithinShare: 0.90}
	c := &Candidate{Requests: 100, AnsweredWithinShare: 0.91}
	if !likePickWithin(c, pick, 0.95) {
		t.Fatal("overlapping Wilson intervals not marked ~")
	}
	pick.batchS[1] = []float64{0.90, 0.90, 0.90, 0.90}
	c.batchS[1] = []float64{0.911, 0.909, 0.911, 0.909}
	if likePickWithin(c, pick, 0.95) {
		t.Error("a paired difference of 0.01 ± 0.001 marked ~")
	}
	c.batchS[1] = []float64{0.91, 0.89, 0.91, 0.89}
	if !likePickWithin(c, pick, 0.95) {
		t.Error("a paired difference of 0 ± 0.01 not marked ~")
	}
	c.batchS[1] = []float64{0.91, math.NaN(), 0.91, 0.89} // an empty batch: Wilson's test
	if !likePickWithin(c, pick, 0.95) {
		t.Error("with an empty batch, the Wilson test's ~ was not kept")
	}
}

// TestPrecisionIncludesRival: optimize --precision measures the pick
// against no hedging and against its nearest rival. Four batches; per
// batch differences ±a around their mean have the 95 % half-width
// t₀.₉₇₅,₃ · (a·√(4/3))/√4 = 1.837386·a. No hedging's p95 is 10 s in
// every batch, the pick's 9 ± 0.1 s (half-width 0.183739 s), the nearest
// rival's (9.05 s) differs from the pick's by 0.05 ± 0.3 s (0.551216 s);
// relative to no hedging's 10 s: 0.0551216. A farther candidate (5 s,
// ±3 s) is not the rival; with no feasible rival the figure is the
// pick's against no hedging alone, 0.0183739. Under objective answered
// the shares within the target take the percentiles' place: no hedging
// answers 0.8 within it in every batch (0.2 not), the pick 0.9 ± 0.01,
// the rival 0.9 ± 0.02 apart from the pick: 1.837386 · 0.02 / 0.2.
func TestPrecisionIncludesRival(t *testing.T) {
	const k = 1.837386231037399 // t₀.₉₇₅,₃ · √(4/3) / 2
	cand := func(q float64, batches []float64, feasible bool) Candidate {
		c := Candidate{Requests: 40_000, P95CIOK: true, Feasible: feasible, batchQ: [2][]float64{batches, batches}}
		c.Latency.P95, c.Latency.P99 = q, q
		return c
	}
	cr := &ClassReport{Objective: Objective{Percentile: 0.95}, Pick: 1, Candidates: []Candidate{
		cand(10, []float64{10, 10, 10, 10}, true),
		cand(9, []float64{9.1, 8.9, 9.1, 8.9}, true),
		cand(9.05, []float64{9.45, 8.65, 9.45, 8.65}, true),
		cand(5, []float64{8, 2, 8, 2}, true),
	}}
	if r := cr.NearestRival(); r != &cr.Candidates[2] {
		t.Fatalf("nearest rival %+v, want candidate 2", r)
	}
	if got, want := cr.RelativeHalfWidth(0.95), k*0.3/10; math.Abs(got-want) > 1e-9 {
		t.Errorf("with the rival: %v, want %v", got, want)
	}
	cr.Candidates[2].Feasible, cr.Candidates[3].Feasible = false, false
	if got, want := cr.RelativeHalfWidth(0.95), k*0.1/10; math.Abs(got-want) > 1e-9 {
		t.Errorf("without a rival: %v, want %v", got, want)
	}

	cr.Objective = Objective{Percentile: 0.95, Goal: MostAnswered, Target: 3e9}
	within := func(c *Candidate, share float64, batches []float64, feasible bool) {
		c.AnsweredWithinShare, c.batchS[1], c.Feasible = share, batches, feasible
	}
	within(&cr.Candidates[0], 0.8, []float64{0.8, 0.8, 0.8, 0.8}, true)
	within(&cr.Candidates[1], 0.9, []float64{0.91, 0.89, 0.91, 0.89}, true)
	within(&cr.Candidates[2], 0.9, []float64{0.93, 0.87, 0.93, 0.87}, true)
	within(&cr.Candidates[3], 0.5, []float64{0.5, 0.5, 0.5, 0.5}, true)
	if got, want := cr.RelativeHalfWidth(0.95), k*0.02/0.2; math.Abs(got-want) > 1e-9 {
		t.Errorf("objective answered: %v, want %v", got, want)
	}
	if why := cr.PrecisionUndefined(); why != "" {
		t.Errorf("objective answered: undefined: %s", why)
	}
	cr.Candidates[0].AnsweredWithinShare = 1
	if why := cr.PrecisionUndefined(); !strings.Contains(why, "every request without hedging is answered within 3.00s") {
		t.Errorf("no hedging answers all within the target: %q", why)
	}
}

// TestJudgeWithinPaired: under objective answered the verdict's
// significance is the paired test when the requests interact. No hedging
// answers 0.80 within the target, the pick 0.82, over 10⁶ requests each:
// Wilson's intervals (±0.0008) are disjoint, but batches whose
// differences are 0.02 ± 0.05 give a paired interval, 0.02 ± 1.837386 ·
// 0.05, that holds 0: not significant. Differences of 0.02 ± 0.001 are.
func TestJudgeWithinPaired(t *testing.T) {
	rule := Rule{RequireSignificant: true}
	base := &Candidate{Requests: 1_000_000, AnsweredShare: 1, AnsweredWithinShare: 0.80}
	pick := &Candidate{Requests: 1_000_000, AnsweredShare: 1, AnsweredWithinShare: 0.82, Hedging: true}
	if v := JudgeWithin(base, pick, 3e9, 0.95, rule, CostCalls); !v.Significant || !v.Hedge {
		t.Fatalf("independent requests: %+v; want a significant hedge", v)
	}
	base.batchS[1] = []float64{0.80, 0.80, 0.80, 0.80}
	pick.batchS[1] = []float64{0.87, 0.77, 0.87, 0.77}
	if v := JudgeWithin(base, pick, 3e9, 0.95, rule, CostCalls); v.Significant || v.Hedge {
		t.Errorf("paired 0.02 ± 0.05: %+v; want not significant", v)
	}
	pick.batchS[1] = []float64{0.821, 0.819, 0.821, 0.819}
	if v := JudgeWithin(base, pick, 3e9, 0.95, rule, CostCalls); !v.Significant || !v.Hedge {
		t.Errorf("paired 0.02 ± 0.001: %+v; want a significant hedge", v)
	}
}

// TestPrecisionUndefinedMiss: a percentile that is a miss makes the
// precision undefined only when the share answered is clearly below the
// percentile's level — its interval's upper bound under 0.95 for p95,
// under 0.99 for p99. A miss whose share's interval reaches the level, or
// that has no interval, is one only by noise: more requests can make it an
// answer, and the precision stays to be reached.
func TestPrecisionUndefinedMiss(t *testing.T) {
	ci := func(lo, hi float64) *[2]*float64 { return &[2]*float64{&lo, &hi} }
	inf := math.Inf(1)
	cr := ClassReport{Class: "fatal", Objective: Objective{Percentile: 0.95}, Pick: 1, Candidates: []Candidate{{}, {}}}
	for _, c := range []struct {
		q     [2]float64 // p95 without hedging, with the pick
		share *[2]*float64
		p     float64
		want  string // "" or a piece of the reason
	}{
		{[2]float64{2, 1.5}, ci(0.5, 0.6), 0.95, ""},
		{[2]float64{inf, 1.5}, ci(0.921, 0.968), 0.95, ""},
		{[2]float64{inf, 1.5}, nil, 0.95, ""},
		{[2]float64{inf, 1.5}, ci(0.90, 0.94), 0.95, "class fatal: p95 without hedging is a miss (the share answered in time, 92.00% [90.00%, 94.00%], is clearly below 95.00%)"},
		{[2]float64{2, inf}, ci(0.90, 0.94), 0.95, "p95 with the pick is a miss"},
		{[2]float64{inf, 1.5}, ci(0.97, 0.985), 0.99, "p99 without hedging is a miss"},
		{[2]float64{inf, 1.5}, ci(0.97, 0.995), 0.99, ""},
	} {
		cr.Objective.Percentile = c.p
		for i := range cr.Candidates {
			cand := &cr.Candidates[i]
			cand.Latency.P95, cand.Latency.P99 = c.q[i], c.q[i]
			cand.AnsweredShare, cand.AnsweredShareCI95 = 0.92, c.share
		}
		got := cr.PrecisionUndefined()
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%v, share interval %v, p%v: %q; want %q", c.q, c.share, c.p, got, c.want)
		}
	}
}
