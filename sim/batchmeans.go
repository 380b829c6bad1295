package sim

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
)

// Batched intervals. When requests interact — a queue, a rate limit, a
// breaker, a pool, a budget, an adaptive delay, retries or closed-loop
// clients (the runs Config.independentCalls rejects) — consecutive
// requests are correlated, and an interval that assumes independence (the
// order-statistic one of SummarizeLatency) is far too narrow. Such runs
// record, beside each stored latency, one extra value: its request's arrival
// section, a uint16 in [0, numSections) — arrival index × numSections ÷
// Requests — and, per section, the last arrival time (O(numSections) per
// class). That is the only cost in the event loop (countRequestIn).
//
// After the run (batchSummarize, once per report row) the section means
// give the warm-up cut (warmup.go); the sections kept are grouped, in
// arrival order, into numBatches non-overlapping batches of equal arrival
// spans; and every estimate θ — a percentile, the mean, the answered
// share — is computed on all the requests kept (θ̂) and on each batch
// alone (θ_b). The 95 % interval is θ̂ ± t₀.₉₇₅,B−1 · s/√B, s the standard
// deviation of the θ_b (batch means for a mean or share, sectioning for a
// quantile: Law & Kelton, Simulation Modeling and Analysis, 5th ed.,
// §9.5.3; Asmussen & Glynn, Stochastic Simulation, §IV.5). It assumes the
// batch estimates are nearly independent and normal, which holds when a
// batch is long against the system's memory; the lag-1 autocorrelation of
// the batch means is reported and a warning names the run length needed
// when it is too high. The analysis copies the answered latencies once,
// ordered by section (4 bytes per request, freed after), and runs the
// selection of latency.go on those kept and on each batch: about four
// passes over the data.

const (
	// numSections is the number of arrival sections of a batched run.
	numSections = 1000
	// numBatches is the number of batches B of a batched interval.
	numBatches = 30
	// maxLag1 is the largest lag-1 autocorrelation of the batch means
	// taken as "nearly uncorrelated": twice its standard error 1/√B under
	// independence is 0.37, so 0.2 is a strict bar.
	maxLag1 = 0.2
)

// batched reports whether runs of cfg batch their intervals: whether its
// requests can interact — through what its classes reach (interacts) or
// an adaptive delay.
func (cfg *Config) batched() bool {
	if cfg.interacts() {
		return true
	}
	for i := range cfg.Classes {
		if cfg.Classes[i].Policy.Adaptive != nil {
			return true
		}
	}
	return false
}

// Batched reports whether runs of cfg batch their intervals, its requests
// interacting: a class's percentile interval then needs
// MinBatchedRequests after the warm-up cut.
func (cfg *Config) Batched() bool { return cfg.batched() }

// MinBatchedRequests returns the fewest requests a batched interval of the
// p-quantile needs after the warm-up cut: its batches times
// MinBatchRequests(p) (6000 for p95).
func MinBatchedRequests(p float64) int64 { return numBatches * minPerBatch(p) }

// sectioned gives t the per-request sections and per-section bills of a
// batched run.
func (t *endTimes) sectioned() {
	t.sec = make([]uint16, len(t.buf))
	t.secLast = make([]time.Duration, numSections)
	t.secBill = make([]float64, 2*numSections)
}

// billSection adds what attempt a of r billed (in and out tokens; as a
// call that responded when completed, else as a cancelled one) to its
// request's section of st — or, for a pipeline's call, to its pipeline
// request's section of the pipeline's class and to its step's own (a
// call's id is its pipeline request's id plus its instance << 32,
// callRequest, and it keeps its pipeline request's section; r.pipe may be
// gone when a loser leaves after its call ended, so the call's class finds
// its bills: e.stepBills, stepBillingOf).
func (e *engine) billSection(st *classStats, r *request, a *attempt, in, out float64, completed bool) {
	// The commonest, a step's bills found in a run that does not grow, is
	// written here, in a function of its own; the rest is billSections.
	if c := uint(r.class); c < uint(len(e.stepBills)) && e.grow == nil {
		if b := &e.stepBills[c]; b.own != nil { // a request's class: nil
			sec := int(r.sec)
			k := 2 * sec
			if !completed {
				k++
			}
			cost := price(&e.cfg.Models[a.model], in, out)
			b.sb[k] += cost
			b.own[sec] += cost // step's own
			return
		}
	}
	e.billSections(st, r, a, in, out, completed)
}

// billSections is billSection but for its commonest case: a request's
// attempt, a step's call whose bills are not found yet, or any bill of a
// growing run.
func (e *engine) billSections(st *classStats, r *request, a *attempt, in, out float64, completed bool) {
	if int(r.class) < e.users && e.grow == nil {
		if sb := st.times.secBill; sb != nil {
			k := 2 * int(r.sec)
			if !completed {
				k++
			}
			sb[k] += price(&e.cfg.Models[a.model], in, out)
		}
		return
	}
	if e.grow != nil {
		e.grow.billSection(e, r, a, in, out, completed)
	}
	if int(r.class) >= e.users { // a step's class: r is a pipeline's call
		b := &e.stepBills[r.class]
		if b.own == nil && !e.stepBillingOf(r, b) {
			return
		}
		sec := int(r.sec)
		k := 2 * sec
		if !completed {
			k++
		}
		cost := price(&e.cfg.Models[a.model], in, out)
		b.sb[k] += cost
		b.own[sec] += cost // step's own
		return
	}
	if st.times.secBill == nil {
		return
	}
	k := 2 * int(r.sec)
	if !completed {
		k++
	}
	st.times.secBill[k] += price(&e.cfg.Models[a.model], in, out)
}

// stepBilling is where the billed attempts of a step's calls go
// (billSection): its pipeline class's section bills
// (classStats.times.secBill) and the step's own (its part of
// pipeClass.stepBill). own is nil until the step's first call bills in a
// run that bills sections.
type stepBilling struct {
	sb  *[2 * numSections]float64
	own *[numSections]float64
}

// stepBillingOf fills b, the billing of r's step, and reports whether the
// run bills r's pipeline class by section (false leaves b empty).
func (e *engine) stepBillingOf(r *request, b *stepBilling) bool {
	c := e.stepOwner[int(r.class)-e.users]
	if c < 0 {
		return false
	}
	sb := e.stats[c].times.secBill
	if sb == nil {
		return false
	}
	pc := e.pipeOf[c]
	if pc.stepBill == nil {
		pc.stepBill = make([]float64, len(pc.pl.Steps)*numSections)
	}
	s := int(r.class - pc.firstStep)
	b.sb, b.own = (*[2 * numSections]float64)(sb), (*[numSections]float64)(pc.stepBill[s*numSections:])
	return true
}

// section returns the arrival section of request id.
func (e *engine) section(id int64) uint16 {
	n := max(int64(e.cfg.Requests), 1)
	return uint16(min(id*numSections/n, numSections-1))
}

// addSections adds o's sections to s, before o's parts are added: s keeps
// sections only while every non-empty part added has them.
func (s *latencySet) addSections(o latencySet) {
	if o.n() == 0 {
		return
	}
	if o.unsectioned || o.secLast == nil {
		s.unsectioned = true
	}
	if s.unsectioned {
		s.ansSec, s.missSec, s.secLast = nil, nil, nil
		return
	}
	for i, p := range o.ans {
		if len(p) > 0 {
			s.ansSec = append(s.ansSec, o.ansSec[i])
		}
	}
	for i, p := range o.miss {
		if len(p) > 0 {
			s.missSec = append(s.missSec, o.missSec[i])
		}
	}
	if s.secLast == nil {
		s.secLast = make([]time.Duration, numSections)
	}
	for i, x := range o.secLast {
		s.secLast[i] = max(s.secLast[i], x)
	}
	if o.unbilled || o.secBill == nil {
		s.unbilled = true
	}
	if s.unbilled {
		s.secBill = nil
		return
	}
	if s.secBill == nil {
		s.secBill = make([]float64, 2*numSections)
	}
	for i, x := range o.secBill {
		s.secBill[i] += x
	}
}

// sectioned reports whether s has the sections of a batched run.
func (s *latencySet) sectioned() bool { return !s.unsectioned && s.secLast != nil }

// WarmUp is the warm-up cut of a batched report row: the requests that
// arrived before the steady state, left out of the latency_s figures, the
// answered share and the costs per 1000 requests.
type WarmUp struct {
	// Requests is the number of requests cut, and Seconds the simulated
	// time up to the last arrival cut (0 when none was).
	Requests int64   `json:"requests"`
	Seconds  float64 `json:"seconds"`
	// Rule names the truncation rule: "MSER (White) on the means of 1000
	// arrival sections", or, in a run that cuts no warm-up by design, "none:"
	// and why (a pool autoscaled from zero replicas; requests that interact
	// only through an adaptive delay).
	Rule string `json:"rule"`
}

// Batches describes the batches of a batched report row's intervals.
type Batches struct {
	// Count is the number of batches B and Size the mean requests per batch.
	Count int   `json:"count"`
	Size  int64 `json:"size"`
	// Lag1 is the lag-1 autocorrelation of the batch means of the time
	// until requests ended; near 0 when the batches are long enough.
	Lag1 float64 `json:"lag1_autocorrelation"`
}

// CIMethodBatch and CIMethodOrder name how a report row's intervals were
// computed (Latency.CIMethod).
const (
	CIMethodBatch = "batch means over arrival-ordered requests after the warm-up cut (t interval, sectioning for percentiles)"
	CIMethodOrder = "order statistics (independent requests)"
)

// batchSummary is the batched analysis of one report row.
type batchSummary struct {
	lat      Latency
	answered float64    // answered share of the requests kept
	shareCI  [2]float64 // its interval (BatchShareInterval)
	kept     int64      // requests kept after the cut
	warm     WarmUp
	batches  Batches
	warnings []batchNeed
	// perBatch holds each batch's estimates, for paired differences:
	// p50, p90, p95, p99, p99.9, mean, answered share.
	perBatch [][numEstimates]float64
	// cutSec is the first section kept.
	cutSec int
	// billed says whether the costs were batched: cost is the cost of the
	// requests kept in USD (not per 1k), batchCost each batch's cost per
	// request.
	billed    bool
	cost      Cost
	batchCost []float64
	// grid are the row's figures on the fixed grid of batches, for
	// paired differences between reports (class rows only; nil else).
	grid *PerBatch
	// rate is the answers per second after the cut, and rateCI its
	// interval (answerrate.go).
	rate   float64
	rateCI [2]float64
}

// The estimates of a batch, in batchSummary.perBatch.
const (
	estP50 = iota
	estP90
	estP95
	estP99
	estP999
	estMean
	estShare
	numEstimates
)

// estimateP are the percentiles' levels, in estimate order.
var estimateP = [...]float64{0.50, 0.90, 0.95, 0.99, 0.999}

// sectionSums are the per-section sums of a sectioned latency set: its
// requests, answered requests, and the sums of their stored latencies
// (all, answered), in seconds.
type sectionSums struct {
	cnt, ans  [numSections]int64
	sum, sumA [numSections]float64
	noCut     noCut // latencySet.noCut: mser cuts nothing unless cutByMSER
	// within counts the answered requests that took at most the seconds
	// newSectionSumsWithin was given (all 0 without).
	within [numSections]int64
	// loA and hiA are the least and the greatest answered latency's keys
	// (float32Bits; lo > hi when none was answered).
	loA, hiA uint32
}

// newSectionSums returns the section sums of s, a sectioned set, in one
// pass over its latencies.
func newSectionSums(s *latencySet) *sectionSums {
	return newSectionSumsWithin(s, 0)
}

// newSectionSumsWithin is newSectionSums that also counts, when within >
// 0, the answered requests of each section that took at most within
// seconds (as stored, in float32).
func newSectionSumsWithin(s *latencySet, within float64) *sectionSums {
	ss := &sectionSums{noCut: s.noCut}
	lo, hi := uint32(math.MaxUint32), uint32(0)
	for i, p := range s.ans {
		sec := s.ansSec[i][:len(p)]
		keys := float32Bits(p)[:len(p)]
		if within > 0 {
			for j, x := range p {
				k := sec[j]
				ss.ans[k]++
				ss.sumA[k] += float64(x)
				if float64(x) <= within {
					ss.within[k]++
				}
				lo, hi = min(lo, keys[j]), max(hi, keys[j])
			}
			continue
		}
		for j, x := range p {
			k := sec[j]
			ss.ans[k]++
			ss.sumA[k] += float64(x)
			lo, hi = min(lo, keys[j]), max(hi, keys[j])
		}
	}
	ss.loA, ss.hiA = lo, hi
	// Every section's sums start from its answered requests' (sum adds
	// the same values in the same order as sumA, then the misses').
	ss.cnt, ss.sum = ss.ans, ss.sumA
	for i, p := range s.miss {
		sec := s.missSec[i][:len(p)]
		for j, x := range p {
			k := sec[j]
			ss.cnt[k]++
			ss.sum[k] += float64(x)
		}
	}
	return ss
}

// mser returns the first section kept after the warm-up cut: MSER
// (warmup.go) on the means of the non-empty sections.
func (ss *sectionSums) mser() int {
	if ss.noCut != cutByMSER {
		return 0
	}
	var ys []float64
	var idx []int
	for k := range numSections {
		if ss.cnt[k] > 0 {
			ys = append(ys, ss.sum[k]/float64(ss.cnt[k]))
			idx = append(idx, k)
		}
	}
	if d := mserCut(ys); d > 0 {
		return idx[d]
	}
	return 0
}

// kept returns the requests of the sections from cut on.
func (ss *sectionSums) kept(cut int) int64 {
	var n int64
	for k := cut; k < numSections; k++ {
		n += ss.cnt[k]
	}
	return n
}

// batchSummarize returns the batched analysis of s, a sectioned latency
// set, with the warm-up cut found by MSER.
func batchSummarize(s *latencySet) *batchSummary {
	ss := newSectionSums(s)
	return ss.summarize(s, ss.mser())
}

// summarizeRows returns the latency summaries of a report row's run h and
// of its baseline b and, when their requests interact, their batched
// analyses (nil otherwise), both cut at the later of their two warm-up
// cuts so that their batches hold the same requests (pairs.go). With grid,
// h's analysis also gets its figures on the fixed grid (perbatch.go).
func summarizeRows(h, b *ClassResult, grid bool) (hl Latency, hb *batchSummary, bl Latency, bb *batchSummary) {
	if h.NumLatencies() == 0 || b.NumLatencies() == 0 || !h.lat.sectioned() || !b.lat.sectioned() {
		return SummarizeLatency(h), nil, SummarizeLatency(b), nil
	}
	hs, bs := newSectionSums(&h.lat), newSectionSums(&b.lat)
	cut := max(hs.mser(), bs.mser())
	hord := bySection(&h.lat, hs)
	hb, bb = hs.summarizeIn(&h.lat, hord, cut), bs.summarize(&b.lat, cut)
	if grid {
		hb.grid = perBatchGrid(&h.lat, hs, hord, cut, hb)
	}
	return hb.lat, hb, bb.lat, bb
}

// summarize returns the batched analysis of s, whose section sums are ss,
// keeping the sections from cut on.
func (ss *sectionSums) summarize(s *latencySet, cut int) *batchSummary {
	return ss.summarizeIn(s, bySection(s, ss), cut)
}

// summarizeIn is summarize given s's answered latencies ordered by section
// (bySection).
func (ss *sectionSums) summarizeIn(s *latencySet, ord []float32, cut int) *batchSummary {
	cnt := &ss.cnt
	b := &batchSummary{cutSec: cut}
	b.warm.Rule = ss.noCut.rule()
	for k := range cut {
		b.warm.Requests += cnt[k]
	}
	// The cut ends at the last arrival of its sections: with fewer
	// requests than sections some are empty (secLast 0).
	for k := range cut {
		if cnt[k] > 0 {
			b.warm.Seconds = max(b.warm.Seconds, s.secLast[k].Seconds())
		}
	}
	g := groupSections(ord, ss, cut)
	nb, bn, ba, bs, bsa, buf, off := g.nb, g.n, g.a, g.sum, g.sumA, g.buf, g.off
	bOf := g.of
	var n, na int64
	var sa float64
	for j := range nb {
		n += bn[j]
		na += ba[j]
		sa += bsa[j]
	}
	b.kept = n
	if n == 0 {
		return b
	}
	// Pooled estimates.
	var all [numEstimates]float64
	copy(all[:estMean], rankEstimates(buf, int(n), estimateP[:]))
	all[estMean] = math.NaN()
	if na > 0 {
		all[estMean] = sa / float64(na)
	}
	all[estShare] = float64(na) / float64(n)
	// Per-batch estimates.
	b.perBatch = make([][numEstimates]float64, nb)
	for j := range nb {
		e := &b.perBatch[j]
		copy(e[:estMean], rankEstimates(buf[off[j]:off[j+1]], int(bn[j]), estimateP[:]))
		e[estMean] = math.NaN()
		if ba[j] > 0 {
			e[estMean] = bsa[j] / float64(ba[j])
		}
		e[estShare] = math.NaN()
		if bn[j] > 0 {
			e[estShare] = float64(ba[j]) / float64(bn[j])
		}
	}
	var ci [numEstimates][2]float64
	// within[q] says latency q's interval did not reach below 0
	// (ClipLatency); the share's is BatchShareInterval's, as optimize's
	// candidates get from the same batch shares: clipped to [0, 1], and
	// with a width when every batch sits at 0 or 1.
	var within [numEstimates]bool
	ok := nb >= 2
	for q := range numEstimates {
		xs := make([]float64, nb)
		for j := range nb {
			xs[j] = b.perBatch[j][q]
		}
		if q == estShare {
			ci[q], within[q] = BatchShareInterval(all[q], xs, 0.95), true
			continue
		}
		ci[q], within[q] = ClipLatency(tInterval(all[q], xs))
	}
	good := func(q int, p float64) bool {
		return ok && within[q] && !math.IsNaN(ci[q][0]) && BatchIntervalOK(p, n, nb)
	}
	b.lat = Latency{
		Mean: all[estMean], P50: all[estP50], P90: all[estP90], P95: all[estP95], P99: all[estP99], P999: all[estP999],
		P95CI95: ci[estP95], P99CI95: ci[estP99],
		P95CIOK: good(estP95, 0.95),
		P99CIOK: good(estP99, 0.99),
		CIs: &LatencyCIs{
			Mean: ci[estMean], P50: ci[estP50], P90: ci[estP90], P999: ci[estP999],
			P50OK:  good(estP50, 0.50),
			P90OK:  good(estP90, 0.90),
			P999OK: good(estP999, 0.999),
			Method: CIMethodBatch,
		},
	}
	b.answered, b.shareCI = all[estShare], ci[estShare]
	means := make([]float64, nb)
	for j := range nb {
		means[j] = bs[j] / float64(max(bn[j], 1))
	}
	b.batches = Batches{Count: nb, Size: n / int64(nb), Lag1: lag1(means)}
	b.rate, b.rateCI = answerRate(s.secLast, cut, g)
	if s.secBill != nil {
		b.billed = true
		b.batchCost = make([]float64, nb)
		for k := cut; k < numSections; k++ {
			b.cost.Completed += s.secBill[2*k]
			b.cost.Cancelled += s.secBill[2*k+1]
			b.batchCost[bOf(k)] += s.secBill[2*k] + s.secBill[2*k+1]
		}
		b.cost.Total = b.cost.Completed + b.cost.Cancelled
		for j := range nb {
			b.batchCost[j] /= float64(max(bn[j], 1))
		}
	}
	b.warnings = batchWarnings(b, s.n())
	return b
}

// batchGroups are the requests kept after a warm-up cut, grouped into
// batches of equal arrival spans: per batch its requests, answered
// requests, sums of end times and of answered latencies (seconds), and
// the answered latencies of batch j at buf[off[j]:off[j+1]].
type batchGroups struct {
	nb        int
	n, a      []int64
	sum, sumA []float64
	buf       []float32
	off       []int64
	of        func(section int) int // batch of a kept section
	// start is where buf starts in the latencies ordered by section it
	// is a slice of; ranks, when set, finds the ranks of their suffixes
	// (the pooled estimates of suffixEstimates).
	start int
	ranks *suffixRanks
	// tails, when set, are the top keys of the latencies ordered by
	// section in segments that hold g's batches (tails.go).
	tails *batchTails
}

// groupBatches groups the requests of s (section sums ss) from section cut
// on into min(numBatches, sections kept) batches: one pass to copy the
// answered latencies, 4 bytes each, in the order of their sections
// (bySection).
func groupBatches(s *latencySet, ss *sectionSums, cut int) *batchGroups {
	return groupSections(bySection(s, ss), ss, cut)
}

// bySection returns the answered latencies of s (section sums ss) ordered
// by their arrival sections, in one pass: those of section k, in the order
// of s's parts, at [Σ_{i<k} ss.ans[i], Σ_{i≤k} ss.ans[i]). Any grouping of
// consecutive sections — the batches after a warm-up cut, those of the
// fixed grid — is then a slice of it.
func bySection(s *latencySet, ss *sectionSums) []float32 {
	var pos [numSections]int
	n := 0
	for k, c := range &ss.ans {
		pos[k] = n
		n += int(c)
	}
	buf := make([]float32, n)
	for i, p := range s.ans {
		sec := s.ansSec[i][:len(p)]
		for j, x := range p {
			k := sec[j]
			buf[pos[k]] = x
			pos[k]++
		}
	}
	return buf
}

// bySectionCounted is bySection that also counts the latencies' keys in
// c (whose range holds every answered latency: ss.loA to ss.hiA).
func bySectionCounted(s *latencySet, ss *sectionSums, c *keyCounts) []float32 {
	var pos [numSections]int
	n := 0
	for k, c := range &ss.ans {
		pos[k] = n
		n += int(c)
	}
	buf := make([]float32, n)
	out := float32Bits(buf)
	for i, p := range s.ans {
		c.scatter(float32Bits(p), s.ansSec[i][:len(p)], &pos, out)
	}
	return buf
}

// groupSections is groupBatches given the answered latencies ordered by
// section (bySection), which the groups share.
func groupSections(ord []float32, ss *sectionSums, cut int) *batchGroups {
	kept := numSections - cut
	nb := min(numBatches, kept)
	g := &batchGroups{nb: nb, n: make([]int64, nb), a: make([]int64, nb), sum: make([]float64, nb), sumA: make([]float64, nb)}
	g.of = func(k int) int { return (k - cut) * nb / kept }
	var start int64
	for k := range cut {
		start += ss.ans[k]
	}
	for k := cut; k < numSections; k++ {
		j := g.of(k)
		g.n[j] += ss.cnt[k]
		g.a[j] += ss.ans[k]
		g.sum[j] += ss.sum[k]
		g.sumA[j] += ss.sumA[k]
	}
	g.off = make([]int64, nb+1)
	for j := range nb {
		g.off[j+1] = g.off[j] + g.a[j]
	}
	g.buf = ord[start : start+g.off[nb] : start+g.off[nb]]
	g.start = int(start)
	return g
}

// suffixEstimates returns the percentiles ps (ascending) of the n
// requests of g's batches from from on, whose answered latencies are
// g.buf[g.off[from]:]: rankEstimates, or the same values from g.ranks when
// g has them.
func (g *batchGroups) suffixEstimates(from int, n int64, ps []float64) []float64 {
	if g.ranks != nil {
		return g.ranks.estimates(g.start+int(g.off[from]), int(n), ps)
	}
	return rankEstimates(g.buf[g.off[from]:], int(n), ps)
}

// rankEstimates returns the percentiles ps (ascending) of n requests
// whose answered latencies are ans (any order; the rest are misses, +Inf),
// nearest rank; NaN for all when n is 0.
func rankEstimates(ans []float32, n int, ps []float64) []float64 {
	out := make([]float64, len(ps))
	if n == 0 {
		for i := range out {
			out[i] = math.NaN()
		}
		return out
	}
	ks := make([]int, 0, len(ps))
	for _, p := range ps {
		if k := NearestRank(n, p); k < len(ans) {
			ks = append(ks, k)
		}
	}
	v := selectRanks([][]float32{ans}, ks)
	for i := range out {
		out[i] = math.Inf(1)
		if i < len(v) {
			out[i] = seconds64(v[i])
		}
	}
	return out
}

// tInterval returns the 95 % interval est ± t₀.₉₇₅,B−1·s/√B of an estimate
// est whose B batch estimates are xs (s their standard deviation): NaN
// bounds with fewer than two batches or a NaN batch estimate; +Inf bounds
// when est is +Inf, and an upper bound of +Inf when a batch estimate is
// (a percentile that lands on a miss in some batch).
func tInterval(est float64, xs []float64) [2]float64 { return BatchInterval(est, xs, 0.95) }

// lag1 returns the lag-1 autocorrelation of xs, Σ(x_i − x̄)(x_{i+1} − x̄) ÷
// Σ(x_i − x̄)²; 0 with fewer than 3 values or no variation.
func lag1(xs []float64) float64 {
	if len(xs) < 3 {
		return 0
	}
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	var num, den float64
	for i, x := range xs {
		den += (x - m) * (x - m)
		if i > 0 {
			num += (xs[i-1] - m) * (x - m)
		}
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// minPerBatch is the fewest requests a batch needs for a p-quantile's
// batch estimate to be more than an extreme: 10 beyond it, 10/(1−p).
func minPerBatch(p float64) int64 { return int64(math.Ceil(10 / (1 - p))) }

// batchNeed is a warning that a batched row's run is too short: Text,
// and the requests the run needs (N, before the cut; 0 when it cannot
// say how many), which Text reads with the advice that ends it
// (Config.moreRequests, which knows whether the arrivals replay a trace).
type batchNeed struct {
	Text string
	N    int64
}

// text is the warning with its advice: "…; simulate at least N requests",
// or for a replayed trace that a longer trace is needed. N is the row's
// requests; run requests counts every class's (Config.Requests), so for a
// row that got rowN of the run's runN requests (a class among others,
// open or closed-loop) the advice asks for N·runN/rowN of them, which
// gives the row its N at the part of the run it took: "simulate at least
// 28450 requests (the class got 424 of 2000)".
func (w batchNeed) text(cfg *Config, rowN, runN int64) string {
	if w.N <= 0 || rowN <= 0 || rowN >= runN {
		return w.Text + "; " + cfg.moreRequests(w.N)
	}
	n := int64(math.Ceil(float64(w.N) * float64(runN) / float64(rowN)))
	return fmt.Sprintf("%s; %s (the class got %d of %d)", w.Text, cfg.moreRequests(n), rowN, runN)
}

// batchWarnings says when a batched row's run is too short for honest
// intervals, naming the requests needed (of total, the row's requests
// before the cut).
func batchWarnings(b *batchSummary, total int) []batchNeed {
	var w []batchNeed
	B := int64(b.batches.Count)
	scale := func(need int64) int64 { // requests before the cut for need after it
		if b.kept == 0 {
			return need
		}
		return int64(math.Ceil(float64(need) * float64(total) / float64(b.kept)))
	}
	switch {
	case B < numBatches:
		w = append(w, batchNeed{fmt.Sprintf("%s too few for batched intervals: %d batches", plural(int(b.kept), "request is", "requests are"), B), scale(numBatches * minPerBatch(0.95))})
	case b.batches.Size == 0:
		w = append(w, batchNeed{fmt.Sprintf("%s fewer than the %d batches: no batched interval", plural(int(b.kept), "request is", "requests are"), B), scale(B * minPerBatch(0.95))})
	case b.batches.Size < minPerBatch(0.95):
		w = append(w, batchNeed{fmt.Sprintf("batches of %s are too short for a batched p95 interval (%d needed per batch)", batchSize(b.batches.Size), minPerBatch(0.95)), scale(B * minPerBatch(0.95))})
	case b.batches.Size < minPerBatch(0.99):
		w = append(w, batchNeed{fmt.Sprintf("batches of %s are too short for a batched p99 interval (%d needed per batch)", batchSize(b.batches.Size), minPerBatch(0.99)), scale(B * minPerBatch(0.99))})
	}
	if r := b.batches.Lag1; r > maxLag1 {
		// Adjacent batch means of a process with summable correlations
		// correlate about as 1/(batch size): a batch r/maxLag1 times
		// longer brings the lag-1 autocorrelation under maxLag1.
		w = append(w, batchNeed{fmt.Sprintf("the batch means are correlated (lag-1 autocorrelation %s > %.2f): the requests' memory is longer than a batch of %d, so the intervals are too narrow",
			above(r, maxLag1), maxLag1, b.batches.Size), scale(int64(math.Ceil(float64(b.kept) * r / maxLag1)))})
	}
	if b.warm.Requests*2 >= int64(total) && total > 0 {
		w = append(w, batchNeed{"the warm-up cut removed half the run or more: the run may not have reached a steady state", 0})
	}
	return w
}

// above formats x > limit with two decimals, or with as many more as it
// takes for the text to stay above limit (0.2004 is "0.2004", not "0.20",
// beside a limit of 0.20).
func above(x, limit float64) string {
	for d := 2; d <= 17; d++ {
		s := strconv.FormatFloat(x, 'f', d, 64)
		if v, err := strconv.ParseFloat(s, 64); err == nil && v > limit {
			return s
		}
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// LatencyCIs are the 95 % intervals, in seconds, of a batched row's mean
// and of the percentiles beside p95 and p99, and the method of all of its
// intervals.
type LatencyCIs struct {
	Mean, P50, P90, P999 [2]float64
	// P50OK, P90OK and P999OK say, as Latency.P95CIOK does, whether each
	// batch holds enough requests for that percentile's batched interval
	// (BatchIntervalOK: 10/(1 − p) each, 20 for p50, 100 for p90, 10 000
	// for p99.9); when false the interval means nothing. On the wire only
	// beside an interval.
	P50OK, P90OK, P999OK bool
	Method               string
}

// latencyCIsJSON is LatencyCIs on the wire, inside latency_s: absent for
// independent requests; a null bound is +Inf (or undefined, NaN).
type latencyCIsJSON struct {
	MeanCI95 *[2]*float64 `json:"mean_ci95,omitempty"`
	P50CI95  *[2]*float64 `json:"p50_ci95,omitempty"`
	P90CI95  *[2]*float64 `json:"p90_ci95,omitempty"`
	P999CI95 *[2]*float64 `json:"p99_9_ci95,omitempty"`
	CIMethod string       `json:"ci95_method,omitempty"`
	P50OK    *bool        `json:"p50_ci95_ok,omitempty"`
	P90OK    *bool        `json:"p90_ci95_ok,omitempty"`
	P999OK   *bool        `json:"p99_9_ci95_ok,omitempty"`
}

func wireCI(x [2]float64) *[2]*float64 { return &[2]*float64{finite(x[0]), finite(x[1])} }

// wireCIOpt is wireCI, but nil (absent) for an interval that was not
// formed (NaN bounds).
func wireCIOpt(x [2]float64) *[2]*float64 {
	if math.IsNaN(x[0]) && math.IsNaN(x[1]) {
		return nil
	}
	return wireCI(x)
}

func unwireCI(x *[2]*float64) [2]float64 {
	if x == nil {
		return [2]float64{math.NaN(), math.NaN()}
	}
	return [2]float64{orInf(x[0]), orInf(x[1])}
}

func (c *LatencyCIs) wire() latencyCIsJSON {
	if c == nil {
		return latencyCIsJSON{}
	}
	w := latencyCIsJSON{MeanCI95: wireCIOpt(c.Mean), P50CI95: wireCIOpt(c.P50), P90CI95: wireCIOpt(c.P90), P999CI95: wireCIOpt(c.P999), CIMethod: c.Method}
	ok := func(ci *[2]*float64, v bool) *bool {
		if ci == nil {
			return nil
		}
		return &v
	}
	w.P50OK, w.P90OK, w.P999OK = ok(w.P50CI95, c.P50OK), ok(w.P90CI95, c.P90OK), ok(w.P999CI95, c.P999OK)
	return w
}

func (w latencyCIsJSON) cis() *LatencyCIs {
	if w.CIMethod == "" {
		return nil
	}
	// A report of a build that wrote no flag: an interval given is taken
	// as meant.
	ok := func(ci *[2]*float64, v *bool) bool { return ci != nil && (v == nil || *v) }
	return &LatencyCIs{Mean: unwireCI(w.MeanCI95), P50: unwireCI(w.P50CI95), P90: unwireCI(w.P90CI95), P999: unwireCI(w.P999CI95), Method: w.CIMethod,
		P50OK: ok(w.P50CI95, w.P50OK), P90OK: ok(w.P90CI95, w.P90OK), P999OK: ok(w.P999CI95, w.P999OK)}
}

// setIntervals gives a report row of independent requests (x.bat nil) the
// Wilson interval of its answered share (intervals.go); and one of a
// batched run its answered shares and costs after the warm-up cut, their
// intervals, the cut, the batches and their warnings, whose advice is in
// the run's requests (runN, every class's: batchNeed.text).
func (cr *ClassReport) setIntervals(cfg *Config, x *summaries, runN int64) {
	b := x.bat
	if b == nil {
		if cr.Requests > 0 {
			cr.AnsweredShareCI95 = wireCI(WilsonCI(cr.Answered, cr.Requests))
		}
		return
	}
	cr.AnsweredShare = b.answered
	cr.AnsweredShareCI95 = wireCI(b.shareCI)
	w, bs := b.warm, b.batches
	cr.WarmUp, cr.Batches = &w, &bs
	cr.setAnswerRate(b)
	bb := x.baseBat
	if bb != nil {
		cr.NoHedging.AnsweredShare = bb.answered
	}
	for _, w := range b.warnings {
		cr.Warnings = append(cr.Warnings, w.text(cfg, cr.Requests, runN))
	}
	if bb == nil || !b.billed || !bb.billed || b.kept == 0 || bb.kept == 0 {
		return
	}
	cr.CostPer1k, cr.NoHedging.CostPer1k = b.cost.per1k(b.kept), bb.cost.per1k(bb.kept)
	// The same bills added in another order (a class that does not hedge
	// among classes that do; which of them were let go of, billed as
	// cancelled calls, may differ) are the same cost: its added cost is
	// 0, not the sums' rounding.
	same := b.kept == bb.kept && sameSum(cr.CostPer1k.Total, cr.NoHedging.CostPer1k.Total, cr.Attempts.Sent)
	if same {
		cr.CostPer1k.Total = cr.NoHedging.CostPer1k.Total
	}
	cr.AddedCostPct = nil
	if base := cr.NoHedging.CostPer1k.Total; base > 0 {
		pct := 100 * (cr.CostPer1k.Total - base) / base
		cr.AddedCostPct = &pct
		// The same batches of the same requests, with and without
		// hedging: each batch's added cost is a paired estimate.
		xs := make([]float64, len(b.batchCost))
		for j, c := range b.batchCost {
			xs[j] = math.NaN()
			if c0 := bb.batchCost[j]; c0 > 0 {
				if same && sameSum(c, c0, cr.Attempts.Sent) {
					c = c0
				}
				xs[j] = 100 * (c - c0) / c0
			}
		}
		cr.AddedCostPctCI95 = wireCI(tInterval(pct, xs))
	}
}

// per1k returns c, the cost of n requests, per 1000 requests.
func (c Cost) per1k(n int64) Cost {
	k := 1000 / float64(n)
	return Cost{Total: c.Total * k, Completed: c.Completed * k, Cancelled: c.Cancelled * k}
}

// QuantileRuleBatched is QuantileRule for a run whose requests interact.
const QuantileRuleBatched = "nearest rank (R type 1): the smallest latency with at least p of requests at or below it; " +
	"latency is the time to a usable answer: a request without one by its deadline (error, 429, invalid, timeout, fail-open included) is a miss, " +
	"+Inf for percentiles (JSON null, printed \"miss\"); the mean is over answered requests; " +
	"the requests interact, so the latency_s figures, the answered share and the costs per 1000 requests leave out the warm-up cut, " +
	"and each ci95 comes from batch means of arrival-ordered requests"

// OutcomesRowNote is what the text report adds to QuantileRuleBatched's
// footnote: which requests the outcomes table counts, and where the
// answered share after the warm-up cut (the JSON's answered_share) is.
const OutcomesRowNote = "the outcomes table counts every request of the run, its answered shares too; " +
	"the answered share after the warm-up cut (JSON answered_share) is on each class's warm-up line below, with its interval"

// batchSize words a batch size of n requests (0 when the run has fewer
// requests than batches).
func batchSize[T int | int64](n T) string {
	if n == 0 {
		return "fewer than one request each"
	}
	return fmt.Sprintf("%d requests", n)
}

// writeBatched writes, for each batched row, its warm-up cut, its batches
// and its answered share's interval.
func writeBatched(w io.Writer, rows []ClassReport) {
	for _, c := range rows {
		wu, b := c.WarmUp, c.Batches
		if wu == nil || b == nil {
			continue
		}
		cut := "no warm-up cut"
		if wu.Requests > 0 {
			cut = fmt.Sprintf("warm-up cut: the first %d requests (%s)", wu.Requests, FormatSeconds(wu.Seconds))
		}
		share := ""
		if ci := c.AnsweredShareCI95; ci != nil && ci[0] != nil && ci[1] != nil {
			share = fmt.Sprintf("; answered %s [%s, %s]", pct(c.AnsweredShare), pct(*ci[0]), pct(*ci[1]))
		}
		if ci := c.AddedCostPctCI95; c.AddedCostPct != nil && ci != nil && ci[0] != nil && ci[1] != nil {
			share += fmt.Sprintf("; added cost %s [%s, %s]", signedPct(*c.AddedCostPct), signedPct(*ci[0]), signedPct(*ci[1]))
		}
		if b.Size == 0 {
			// Fewer requests than batches: no batch interval is formed.
			fmt.Fprintf(w, "%s: %s; no batched intervals: %s, fewer than the %d batches%s\n",
				c.Class, cut, plural(int(c.Requests-int64(wu.Requests)), "request kept", "requests kept"), b.Count, share)
			continue
		}
		fmt.Fprintf(w, "%s: %s; intervals from %d batches of %s (lag-1 autocorrelation %.2f)%s\n",
			c.Class, cut, b.Count, batchSize(b.Size), b.Lag1, share)
	}
}

// recordAt books on st the latency until now of a request arrived at
// arrival in section sec, that ended with outcome o — with its arrival
// section when the run batches its intervals.
func (e *engine) recordAt(st *classStats, o outcome, sec uint16, arrival time.Duration) {
	st.times.addAt(e.now-arrival, o == outOK, sec, arrival)
}

// moreRequests is the advice that ends a warning asking for a longer run:
// "simulate at least n requests" (n > 0) or "simulate more requests". When
// the arrivals replay a trace, the run cannot go past the trace's end
// (--requests replays at most the trace), so it says a longer trace is
// needed instead, with the requests the trace holds and, for n > 0, the
// at least n it needs.
func (cfg *Config) moreRequests(n int64) string {
	if cfg.Arrivals.Process == Replay && cfg.Arrivals.Trace != nil {
		held := len(cfg.Arrivals.Trace.Arrivals)
		if n > 0 {
			return fmt.Sprintf("the trace holds %d requests and --requests cannot replay past its end: a longer trace is needed, with at least %d requests", held, n)
		}
		return fmt.Sprintf("the trace holds %d requests and --requests cannot replay past its end: a longer trace is needed", held)
	}
	if n > 0 {
		return fmt.Sprintf("simulate at least %d requests", n)
	}
	return "simulate more requests"
}
