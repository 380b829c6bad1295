package sim

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// The added cost's interval for independent requests. When requests
// cannot affect one another (Config.independent) a run handles them one
// at a time in request order (runLane, runDirect), every attempt of a
// request billed before the next begins. So the cost of the requests of
// each arrival section is the class's cumulative cost when the section's
// last request has ended minus what it was before its first began: the run
// takes that difference once per section — numSections float64 per class,
// nothing per request but a comparison. A split run's ranges add theirs.
//
// With no hedging on the same requests (common random numbers), section
// k's costs h_k and b_k are paired, and the sections are independent
// clusters of requests, so the added cost 100·(R − 1), R = Σh_k ÷ Σb_k,
// gets the ratio estimator's interval over the K sections with requests
// (Cochran, Sampling Techniques, 3rd ed., §6.4):
//
//	100·(R − 1) ± t₀.₉₇₅,K−1 · 100 · √(Σ(h_k − R·b_k)² ÷ (K(K − 1))) ÷ b̄,
//
// b̄ = Σb_k ÷ K: the per-request cost differences are independent, and
// what the two runs share (a long prompt, a slow primary) cancels in
// h_k − R·b_k.

// CIMethodAddedCostPaired and CIMethodAddedCostBatch name how an added
// cost's interval was made (ClassReport.AddedCostPctCIMethod).
const (
	CIMethodAddedCostPaired = "paired ratio estimate over 1000 arrival sections of independent requests, with and without hedging (t interval)"
	CIMethodAddedCostBatch  = "paired batch means over arrival-ordered requests after the warm-up cut, with and without hedging (t interval)"
)

// costSections are an independent run's per-section costs in USD, per
// class: sec[c][k] the cost of class c's requests of section k.
type costSections struct {
	sec  [][]float64
	last []float64 // each class's cumulative cost at the last mark
	cur  int       // the section being run
	next int64     // the first request of the section after cur
}

// costsSetup gives e per-section costs when it runs independent requests
// one at a time.
func (e *engine) costsSetup() {
	if !e.isolated {
		return
	}
	cs := &costSections{sec: make([][]float64, e.users), last: make([]float64, e.users)}
	for c := range cs.sec {
		cs.sec[c] = make([]float64, numSections)
	}
	e.costs = cs
}

// costMark is called before request e.next begins: when it opens a new
// section, the cost since the last mark goes to the section before it.
func (e *engine) costMark() {
	if e.costs != nil && e.next >= e.costs.next {
		e.costs.mark(e)
	}
}

// mark books each class's cost since the last mark in section cur and
// moves cur to request e.next's section.
func (cs *costSections) mark(e *engine) {
	cs.flush(e)
	cs.cur = int(e.section(e.next))
	n := max(int64(e.cfg.Requests), 1)
	cs.next = (int64(cs.cur+1)*n + numSections - 1) / numSections // ⌈(cur+1)·n/numSections⌉
}

// flush books each class's cost since the last mark in section cur.
func (cs *costSections) flush(e *engine) {
	for c := range cs.sec {
		st := &e.stats[c]
		var sum float64
		for m := range e.cfg.Models {
			sum += st.billed[2*m].cost(&e.cfg.Models[m]) + st.billed[2*m+1].cost(&e.cfg.Models[m])
		}
		cs.sec[c][cs.cur] += sum - cs.last[c]
		cs.last[c] = sum
	}
}

// costsDone books what the run billed since its last mark.
func (e *engine) costsDone() {
	if e.costs != nil {
		e.costs.flush(e)
	}
}

// absorbCosts adds o's section costs, of another range of requests, to e's.
func (e *engine) absorbCosts(o *engine) {
	if e.costs == nil || o.costs == nil {
		return
	}
	for c, xs := range o.costs.sec {
		for k, x := range xs {
			e.costs.sec[c][k] += x
		}
	}
}

// attachCosts gives each class result of res, and the overall one, its
// section costs.
func (e *engine) attachCosts(res *Result) {
	if e.costs == nil {
		return
	}
	all := make([]float64, numSections)
	for c := range res.Classes {
		res.Classes[c].secCost = e.costs.sec[c]
		for k, x := range e.costs.sec[c] {
			all[k] += x
		}
	}
	res.Overall.secCost = all
}

// pairedAddedCostCI returns the interval above of the added cost of h
// over b, in %, around pct; NaN bounds without section costs, with fewer
// than two sections with requests or when b costs nothing.
func pairedAddedCostCI(pct float64, h, b []float64) [2]float64 {
	nan := [2]float64{math.NaN(), math.NaN()}
	if h == nil || len(h) != len(b) {
		return nan
	}
	var sh, sb float64
	k := 0
	for i := range h {
		if h[i] != 0 || b[i] != 0 {
			sh += h[i]
			sb += b[i]
			k++
		}
	}
	if k < 2 || !(sb > 0) {
		return nan
	}
	r := sh / sb
	var ss float64
	for i := range h {
		if h[i] != 0 || b[i] != 0 {
			d := h[i] - r*b[i]
			ss += d * d
		}
	}
	kf := float64(k)
	se := 100 * math.Sqrt(ss/(kf*(kf-1))) / (sb / kf)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: kf - 1}.Quantile(0.975)
	return [2]float64{pct - t*se, pct + t*se}
}

// setAddedCostCI gives cr, the report row of h against its baseline b, the
// interval of its added cost from their paired section costs when its
// requests are independent, and names the method of its added cost's
// interval, either way.
func (cr *ClassReport) setAddedCostCI(h, b *ClassResult) {
	if cr.AddedCostPct == nil {
		return
	}
	if cr.AddedCostPctCI95 != nil {
		cr.AddedCostPctCIMethod = CIMethodAddedCostBatch
		return
	}
	if ci := pairedAddedCostCI(*cr.AddedCostPct, h.secCost, b.secCost); !math.IsNaN(ci[0]) {
		cr.AddedCostPctCI95 = wireCI(ci)
		cr.AddedCostPctCIMethod = CIMethodAddedCostPaired
	}
}
