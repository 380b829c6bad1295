package sim

import (
	"math"
)

// The added cost's interval for independent requests. When calls cannot
// affect one another (Config.independentCalls) the run keeps, for each
// arrival section, the attempts and tokens its requests billed, per class
// and model (a pipeline's calls count in their step's class, in their
// pipeline request's section, and add up to their pipeline class's):
// 3·numSections float64 per class and model billed, nothing per request. On the lane and the direct path, which run one
// request (or pipeline request) at a time in request order, every attempt
// of a request is billed before the next begins, so a section's bills are
// the cumulative bills when its last request has ended minus what they
// were before its first began: one difference per section, nothing per
// request but a comparison. The event loop adds each billed attempt to
// its request's section instead; a split run's ranges add theirs. The
// counts are whole numbers, summed exactly in any order, so every path
// gives the same section costs.
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

// costSections are an independent run's billed attempts and tokens per
// arrival section, per class of e.stats (a pipeline's step apart) and
// model: tok[c·M+m] holds, for section k,
// the attempts, input and output tokens at [3k], [3k+1], [3k+2] (nil
// until the class bills the model). They are whole numbers, summed
// exactly in any order and split, so that the lane, the direct path, the
// event loop and a split run give the same section costs.
type costSections struct {
	models int
	tok    [][]float64
	// owner is the class of e.cfg.Classes each class of e.stats bills for:
	// itself, or for a pipeline's step, its pipeline's class.
	owner []int
	last  [][3]float64 // each e.stats class and model's cumulative bill at the last mark
	cur   int          // the section being run
	next  int64        // the first request of the section after cur
	// marking says that the run marks sections (runLane, runDirect);
	// otherwise (the event loop) exit adds each billed attempt.
	marking bool
}

// costsSetup gives e per-section bills when its calls are independent.
func (e *engine) costsSetup() {
	if e.batched {
		return
	}
	m := len(e.cfg.Models)
	cs := &costSections{models: m, tok: make([][]float64, len(e.stats)*m), last: make([][3]float64, len(e.stats)*m)}
	cs.owner = make([]int, len(e.stats))
	for sc := range cs.owner {
		cs.owner[sc] = sc
	}
	for c, pc := range e.pipeOf {
		if pc != nil {
			for s := range pc.pl.Steps {
				cs.owner[int(pc.firstStep)+s] = c
			}
		}
	}
	e.costs = cs
}

// costMark is called before request e.next begins: when it opens a new
// section, the bills since the last mark go to the section before it.
func (e *engine) costMark() {
	if e.costs != nil && e.next >= e.costs.next {
		e.costs.mark(e)
	}
}

// mark books each class's bills since the last mark in section cur and
// moves cur to request e.next's section.
func (cs *costSections) mark(e *engine) {
	cs.marking = true
	cs.flush(e)
	cs.cur = int(e.section(e.next))
	n := max(int64(e.cfg.Requests), 1)
	cs.next = (int64(cs.cur+1)*n + numSections - 1) / numSections // ⌈(cur+1)·n/numSections⌉
}

// flush books each class's bills since the last mark in section cur.
func (cs *costSections) flush(e *engine) {
	for sc := range e.stats {
		st := &e.stats[sc]
		if len(st.billed) < 2*cs.models {
			continue
		}
		for m := range cs.models {
			b, x := &st.billed[2*m], &st.billed[2*m+1]
			now := [3]float64{float64(b.attempts + x.attempts), b.input + x.input, b.output + x.output}
			i := sc*cs.models + m
			if last := cs.last[i]; now != last {
				cs.add(i, cs.cur, now[0]-last[0], now[1]-last[1], now[2]-last[2])
				cs.last[i] = now
			}
		}
	}
}

// add adds attempts and tokens to section k of class and model i.
func (cs *costSections) add(i, k int, attempts, in, out float64) {
	if cs.tok[i] == nil {
		cs.tok[i] = make([]float64, 3*numSections)
	}
	t := cs.tok[i][3*k:]
	t[0] += attempts
	t[1] += in
	t[2] += out
}

// billAttempt adds, on the event loop, an attempt of r that billed in and
// out tokens to model m: to r's class — for a pipeline's call, its step's
// — in its (pipeline) request's section.
func (e *engine) billAttempt(r *request, m int32, in, out float64) {
	cs := e.costs
	if cs == nil || cs.marking {
		return
	}
	cs.add(int(r.class)*cs.models+int(m), int(r.sec), 1, in, out) // a pipeline's call: its pipeline request's section
}

// costsDone books what the run billed since its last mark.
func (e *engine) costsDone() {
	if e.costs != nil && e.costs.marking {
		e.costs.flush(e)
	}
}

// absorbCosts adds o's section bills, of another range of requests, to e's.
func (e *engine) absorbCosts(o *engine) {
	if e.costs == nil || o.costs == nil {
		return
	}
	for i, xs := range o.costs.tok {
		if xs == nil {
			continue
		}
		if e.costs.tok[i] == nil {
			e.costs.tok[i] = make([]float64, 3*numSections)
		}
		for k, x := range xs {
			e.costs.tok[i][k] += x
		}
	}
}

// coarsen merges cs's sections 2ʲ at a time, section k into k>>j: the
// sections of its requests in a run of 2ʲ times as many (Growth.Extend).
// A nil cs has nothing to merge.
func (cs *costSections) coarsen(j uint) {
	if cs == nil {
		return
	}
	for _, xs := range cs.tok {
		if xs == nil {
			continue
		}
		merged := make([]float64, len(xs))
		for k := range numSections {
			for f := range 3 {
				merged[3*(k>>j)+f] += xs[3*k+f]
			}
		}
		copy(xs, merged)
	}
}

// attachCosts gives each class result of res, and the overall one, its
// section costs in USD: a pipeline class's are its steps' added up, and
// each step's result gets its own (the steps' attempts and tokens are
// whole numbers, so their sum is the pipeline's exactly).
func (e *engine) attachCosts(res *Result) {
	cs := e.costs
	if cs == nil {
		return
	}
	all := make([]float64, numSections)
	// tokens returns the section bills of the classes of e.stats owned by
	// c (own: c itself, or the one step sc), per model, summed.
	tokens := func(c, sc int) [][]float64 {
		out := make([][]float64, cs.models)
		for x := range cs.owner {
			if cs.owner[x] != c || sc >= 0 && x != sc {
				continue
			}
			for m := range cs.models {
				t := cs.tok[x*cs.models+m]
				if t == nil {
					continue
				}
				if out[m] == nil {
					out[m] = make([]float64, 3*numSections)
				}
				for k, v := range t {
					out[m][k] += v
				}
			}
		}
		return out
	}
	cost := func(tok [][]float64) []float64 {
		sec := make([]float64, numSections)
		for m, t := range tok {
			if t == nil {
				continue
			}
			md := &e.cfg.Models[m]
			for k := range sec {
				b := bill{attempts: int64(t[3*k]), input: t[3*k+1], output: t[3*k+2]}
				sec[k] += b.cost(md)
			}
		}
		return sec
	}
	for c := range res.Classes {
		sec := cost(tokens(c, -1))
		for k, x := range sec {
			all[k] += x
		}
		res.Classes[c].secCost = sec
		if pr, pc := res.Classes[c].Pipeline, e.pipeOf; pr != nil && pc != nil && pc[c] != nil {
			for s := range pr.Steps {
				pr.Steps[s].secCost = cost(tokens(c, int(pc[c].firstStep)+s))
			}
		}
	}
	res.Overall.secCost = all
}

// SectionCosts returns the cost in USD of each of the run's 1000 arrival
// sections (section k holds requests ⌈k·n/1000⌉ to ⌈(k+1)·n/1000⌉ − 1 of
// n) when its requests are independent, for the added cost's paired
// interval (PairedAddedCostCI); nil when they interact. The slice is the
// result's own: do not modify it.
func (r *ClassResult) SectionCosts() []float64 { return r.secCost }

// pairedAddedCostCI is PairedAddedCostCI at 95 %.
func pairedAddedCostCI(pct float64, h, b []float64) [2]float64 {
	return PairedAddedCostCI(pct, h, b, 0.95)
}

// PairedAddedCostCI returns the interval above, at the level (in (0, 1)),
// of the added cost in % of a run with section costs h (USD,
// ClassResult.SectionCosts) over its no-hedging run on the same requests
// with section costs b, around pct; NaN bounds without section costs or
// of unequal lengths, with fewer than two sections with requests or when
// b costs nothing.
func PairedAddedCostCI(pct float64, h, b []float64, level float64) [2]float64 {
	se, k := PairedAddedCostSE(h, b)
	return AddedCostCIFromSE(pct, se, k, level)
}

// PairedAddedCostSE returns the standard error, in percentage points, of
// the added cost of section costs h over b (USD; see PairedAddedCostCI),
// 100 · √(Σ(h_k − R·b_k)² ÷ (K(K − 1))) ÷ b̄, and K, the sections with
// requests; NaN and 0 when it cannot be formed.
func PairedAddedCostSE(h, b []float64) (se float64, k int) {
	if h == nil || len(h) != len(b) {
		return math.NaN(), 0
	}
	var sh, sb float64
	for i := range h {
		if h[i] != 0 || b[i] != 0 {
			sh += h[i]
			sb += b[i]
			k++
		}
	}
	if k < 2 || !(sb > 0) {
		return math.NaN(), 0
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
	return 100 * math.Sqrt(ss/(kf*(kf-1))) / (sb / kf), k
}

// AddedCostCIFromSE returns pct ± t₀,K−1 · se at the level (in (0, 1)):
// the interval of PairedAddedCostCI from PairedAddedCostSE's se and k;
// NaN bounds when se is NaN or k < 2.
func AddedCostCIFromSE(pct, se float64, k int, level float64) [2]float64 {
	if math.IsNaN(se) || k < 2 {
		return [2]float64{math.NaN(), math.NaN()}
	}
	t := tQuantile(float64(k-1), level)
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

// sameSum reports whether a and b, each a float64 sum of n nonnegative
// terms added one at a time, may be the same terms added in two orders:
// |a − b| ≤ 2·(n − 1)·u·max(a, b), u = 2⁻⁵³, twice the bound on one such
// sum's rounding error (Higham, Accuracy and Stability of Numerical
// Algorithms, 2nd ed., §4.2). A class that does not hedge bills the same
// attempts with and without hedging, but where requests interact they
// finish, and are added, in another order; the sums then differ in their
// last bits. Two sums whose terms differ by one attempt's bill, at least
// about max(a, b)/n, differ by far more while n²·u ≪ 1 (n ≪ 9·10⁷).
func sameSum(a, b float64, n int64) bool {
	if a == b {
		return true
	}
	return n > 1 && math.Abs(a-b) <= 2*float64(n-1)*0x1p-53*max(math.Abs(a), math.Abs(b))
}
