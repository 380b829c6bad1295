package optimize

import (
	"math"
	"testing"
)

// near reports whether an interval on the wire is [lo, hi] within 1e-9.
func near(ci *[2]*float64, lo, hi float64) bool {
	return ci != nil && ci[0] != nil && ci[1] != nil && math.Abs(*ci[0]-lo) < 1e-9 && math.Abs(*ci[1]-hi) < 1e-9
}

// TestCandidateIntervals checks setIntervals against closed forms. For
// independent requests: 90 of 100 answered has the Wilson 95 % interval
// [0.825634, 0.944771] (Wilson 1927, z = 1.959964), and there is no added
// cost's interval. Batched, with 4 batches: shares 0.88, 0.92, 0.89, 0.91
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

	shares := []float64{0.88, 0.92, 0.89, 0.91}
	base = &Candidate{Requests: 4000, AnsweredShare: 0.9, batchS: [3][]float64{shares, shares, {1, 2, 3, 4}}}
	c = Candidate{Requests: 4000, AnsweredShare: 0.9, AnsweredWithinShare: 0.9, AddedCostPct: 10, batchS: [3][]float64{shares, shares, {1.1, 2.2, 3.3, 4.4}}}
	setIntervals(&c, base, CostUSD, 0.95, true)
	if !near(c.AnsweredShareCI95, 0.8709483728424473, 0.9290516271575527) || !near(c.AnsweredWithinShareCI95, 0.8709483728424473, 0.9290516271575527) {
		t.Errorf("batched: answered %v, within %v", c.AnsweredShareCI95, c.AnsweredWithinShareCI95)
	}
	if !near(c.AddedCostPctCI95, 10, 10) || c.CIMethod != CIMethodGrid {
		t.Errorf("batched: added cost %v, method %q", c.AddedCostPctCI95, c.CIMethod)
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
