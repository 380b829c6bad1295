package sim

import (
	"encoding/json"
	"math"
)

// Per-batch figures for paired differences between reports. Two reports of
// batched runs — two what-if variants of one scenario on one seed, say —
// can be compared batch by batch (hedgesim compare) only when their
// batches are the same spans of arrivals. The batches of a row's own
// intervals (batchmeans.go) start after the row's warm-up cut, which
// differs from run to run; so each batched class row also gives its
// figures on a fixed grid: the run's numSections arrival sections split
// into numBatches batches regardless of the cut (batch j holds the
// sections k with ⌊k·B/numSections⌋ = j), with the first batch that lies
// wholly after the cut. Two such rows pair batch by batch from the later
// of their two first kept batches on: with common random numbers the
// batches hold the same requests, so what they shared (a slow period, a
// long queue) cancels in the per-batch differences (pairs.go). Each
// percentile is also given in each batch as its linearised value
// (linearised.go), whose mean over the batches kept is the pooled
// percentile of those batches: the values a paired difference of
// percentiles is formed from, centred on the pooled difference. The grid's
// batches are slices of the row's copy of its answered latencies ordered
// by section (bySection); they cost one selection and one pass over them.

// PerBatch are a batched class row's figures in each batch of the fixed
// grid: percentiles of the time to a usable answer in seconds (+Inf: a
// miss, JSON null), the answered share, and the cost per 1000 requests in
// US dollars (nil when the run has no per-section bills).
type PerBatch struct {
	// Count is the number of batches B; FirstKept the first batch that
	// lies wholly after the row's warm-up cut (0 without a cut).
	Count     int
	FirstKept int
	// P50, P95, P99 and AnsweredShare have Count values each.
	P50, P95, P99 []float64
	AnsweredShare []float64
	// P50Lin, P95Lin and P99Lin are each batch's linearised percentile
	// (linearised.go), relative to the pooled percentile of the batches
	// from FirstKept on (+Inf on every batch when that is a miss, NaN for
	// an empty batch); nil in reports that do not give them.
	P50Lin, P95Lin, P99Lin []float64
	// CostPer1k is the total cost per 1000 requests of each batch.
	CostPer1k []float64
	// CheckedShare and DegradedShare are, for a pipeline class, the share
	// of each batch's requests that went through checked and degraded
	// (NaN for an empty batch; pipeline_sections.go); nil otherwise.
	CheckedShare, DegradedShare []float64
}

// perBatchJSON is PerBatch on the wire.
type perBatchJSON struct {
	Count         int        `json:"count"`
	FirstKept     int        `json:"first_kept"`
	P50           []*float64 `json:"p50"`
	P95           []*float64 `json:"p95"`
	P99           []*float64 `json:"p99"`
	AnsweredShare []*float64 `json:"answered_share"`
	CostPer1k     []*float64 `json:"cost_per_1k_usd,omitempty"`
	P50Lin        []*float64 `json:"p50_linearised,omitempty"`
	P95Lin        []*float64 `json:"p95_linearised,omitempty"`
	P99Lin        []*float64 `json:"p99_linearised,omitempty"`
	CheckedShare  []*float64 `json:"checked_share,omitempty"`
	DegradedShare []*float64 `json:"degraded_share,omitempty"`
}

func wireAll(xs []float64) []*float64 {
	if xs == nil {
		return nil
	}
	out := make([]*float64, len(xs))
	for i, x := range xs {
		out[i] = finite(x)
	}
	return out
}

func unwireAll(xs []*float64, null float64) []float64 {
	if xs == nil {
		return nil
	}
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = null
		if x != nil {
			out[i] = *x
		}
	}
	return out
}

// MarshalJSON writes p with its non-finite figures as null.
func (p PerBatch) MarshalJSON() ([]byte, error) {
	return json.Marshal(perBatchJSON{
		Count: p.Count, FirstKept: p.FirstKept,
		P50: wireAll(p.P50), P95: wireAll(p.P95), P99: wireAll(p.P99),
		AnsweredShare: wireAll(p.AnsweredShare), CostPer1k: wireAll(p.CostPer1k),
		P50Lin: wireAll(p.P50Lin), P95Lin: wireAll(p.P95Lin), P99Lin: wireAll(p.P99Lin),
		CheckedShare: wireAll(p.CheckedShare), DegradedShare: wireAll(p.DegradedShare),
	})
}

// UnmarshalJSON reads what MarshalJSON writes: a null percentile is a miss
// (+Inf), a null share, cost or linearised percentile undefined (NaN: an
// empty batch, or a pooled percentile that is a miss).
func (p *PerBatch) UnmarshalJSON(b []byte) error {
	var w perBatchJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	inf, nan := math.Inf(1), math.NaN()
	*p = PerBatch{
		Count: w.Count, FirstKept: w.FirstKept,
		P50: unwireAll(w.P50, inf), P95: unwireAll(w.P95, inf), P99: unwireAll(w.P99, inf),
		AnsweredShare: unwireAll(w.AnsweredShare, nan), CostPer1k: unwireAll(w.CostPer1k, nan),
		P50Lin: unwireAll(w.P50Lin, nan), P95Lin: unwireAll(w.P95Lin, nan), P99Lin: unwireAll(w.P99Lin, nan),
		CheckedShare: unwireAll(w.CheckedShare, nan), DegradedShare: unwireAll(w.DegradedShare, nan),
	}
	return nil
}

// gridPs are the percentiles of PerBatch.
var gridPs = []float64{0.50, 0.95, 0.99}

// perBatchGrid returns the figures of s (section sums ss, answered
// latencies ordered by section ord, warm-up cut at section cut) on the
// fixed grid; b is the row's own analysis, whose batches are the grid's
// when cut is 0.
func perBatchGrid(s *latencySet, ss *sectionSums, ord []float32, cut int, b *batchSummary) *PerBatch {
	p := &PerBatch{}
	g := groupSections(ord, ss, 0)
	p.Count = g.nb
	p.FirstKept = firstKeptBatch(cut, g.nb)
	if p.FirstKept < g.nb {
		_, lin := linearised(g, p.FirstKept, gridPs)
		p.P50Lin, p.P95Lin, p.P99Lin = lin[0], lin[1], lin[2]
	}
	if cut == 0 && len(b.perBatch) == numBatches {
		for j := range numBatches {
			e := &b.perBatch[j]
			p.P50 = append(p.P50, e[estP50])
			p.P95 = append(p.P95, e[estP95])
			p.P99 = append(p.P99, e[estP99])
			p.AnsweredShare = append(p.AnsweredShare, e[estShare])
		}
		if b.billed {
			for _, c := range b.batchCost {
				p.CostPer1k = append(p.CostPer1k, 1000*c)
			}
		}
		return p
	}
	for j := range g.nb {
		q := rankEstimates(g.buf[g.off[j]:g.off[j+1]], int(g.n[j]), gridPs)
		p.P50, p.P95, p.P99 = append(p.P50, q[0]), append(p.P95, q[1]), append(p.P99, q[2])
		share := math.NaN()
		if g.n[j] > 0 {
			share = float64(g.a[j]) / float64(g.n[j])
		}
		p.AnsweredShare = append(p.AnsweredShare, share)
	}
	if s.secBill != nil {
		cost := make([]float64, g.nb)
		for k := range numSections {
			cost[g.of(k)] += s.secBill[2*k] + s.secBill[2*k+1]
		}
		for j := range cost {
			cost[j] = 1000 * cost[j] / float64(max(g.n[j], 1))
			if g.n[j] == 0 {
				cost[j] = math.NaN()
			}
		}
		p.CostPer1k = cost
	}
	return p
}

// firstSection returns the first section of batch j of nb batches on the
// fixed grid: the least k with ⌊k·nb/numSections⌋ = j.
func firstSection(j, nb int) int { return (j*numSections + nb - 1) / nb }

// GridShares returns, for a Batched c, three figures in each batch of the
// fixed grid over the whole run (no warm-up cut: the requests over which
// optimize reports its shares and costs): the share of the batch's
// requests answered, the share answered within within seconds (nil when
// within ≤ 0), and the cost per 1000 requests in USD (nil when the run
// has no per-section bills). A batch without requests has NaN figures. ok
// is false unless c is Batched. One pass over c's latencies, without
// copies.
func (c *ClassResult) GridShares(within float64) (answered, withinShare, cost []float64, ok bool) {
	if !c.Batched() {
		return nil, nil, nil, false
	}
	s := &c.lat
	var n, a, w [numBatches]int64
	batch := func(sec uint16) int { return int(sec) * numBatches / numSections }
	for i, p := range s.ans {
		for j, x := range p {
			b := batch(s.ansSec[i][j])
			n[b]++
			a[b]++
			if within > 0 && float64(x) <= within {
				w[b]++
			}
		}
	}
	for i, p := range s.miss {
		for j := range p {
			n[batch(s.missSec[i][j])]++
		}
	}
	answered, withinShare, cost = gridShares(s, &n, &a, &w, within)
	return answered, withinShare, cost, true
}

// gridShares returns GridShares' figures of s, a sectioned set, from the
// counts in each grid batch of its requests (n), answered requests (a)
// and those answered within within seconds (w).
func gridShares(s *latencySet, n, a, w *[numBatches]int64, within float64) (answered, withinShare, cost []float64) {
	share := func(k *[numBatches]int64) []float64 {
		out := make([]float64, numBatches)
		for b := range out {
			out[b] = math.NaN()
			if n[b] > 0 {
				out[b] = float64(k[b]) / float64(n[b])
			}
		}
		return out
	}
	answered = share(a)
	if within > 0 {
		withinShare = share(w)
	}
	if s.secBill != nil {
		var bill [numBatches]float64
		for k := range numSections {
			bill[k*numBatches/numSections] += s.secBill[2*k] + s.secBill[2*k+1]
		}
		cost = make([]float64, numBatches)
		for b := range cost {
			cost[b] = math.NaN()
			if n[b] > 0 {
				cost[b] = 1000 * bill[b] / float64(n[b])
			}
		}
	}
	return answered, withinShare, cost
}

// addPipeline gives p, the fixed-grid figures of a pipeline class h whose
// requests interact, its batches' checked and degraded shares, when its
// pipeline report pr gives the batched shares; a nil p is left alone.
func (p *PerBatch) addPipeline(pr *PipelineReport, h *ClassResult) {
	if p == nil || pr == nil || pr.SharesCIMethod != CIMethodPipelineBatch || h.Pipeline == nil || h.Pipeline.sec == nil {
		return
	}
	p.CheckedShare, p.DegradedShare = h.Pipeline.sec.gridShares(p.Count)
}
