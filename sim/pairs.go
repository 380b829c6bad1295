package sim

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/stat/distuv"
)

// Paired differences. Two runs of one scenario on common random numbers —
// a policy and no hedging, or two candidate policies — see the same
// arrivals, token counts and primary draws; two classes of one run see the
// same queue at the same time. Batched alike (batchmeans.go: the same
// arrival sections, the same warm-up cut), their batch b holds the same
// requests or the same span of time, and the difference of an estimate is
// judged on the per-batch differences d_b = θ_b(B) − θ_b(A):
//
//	d̄ ± t_{(1+level)/2, B−1} · s_d / √B,
//
// d̄ and s_d the mean and standard deviation of the d_b (Law & Kelton,
// Simulation Modeling and Analysis, §10.2.1, paired-t on batch means).
// What the two share — a slow period, a long queue — moves both θ_b
// together and cancels in d_b, so the interval is far narrower than the
// overlap of two separate intervals, and it stays honest under load where
// those do not. For a percentile θ_b is the batch's linearised percentile
// (linearised.go), not its own percentile: the mean of the d_b is then the
// difference of the pooled percentiles of the batches paired, which a
// batch's own percentile misses when batches are short against the
// queue's memory, and s_d measures that difference's error. It is formed
// only when both are batched (requests that interact); the cost is the
// grouping of batchmeans.go, once per run.

// PairedDiff is the paired difference B − A of an estimate and its
// interval.
type PairedDiff struct {
	// Diff is θ̂(B) − θ̂(A); CI the interval of the difference at the
	// level asked (centred on the mean batch difference), NaN when
	// it cannot be formed (fewer than two batches, a batch without the
	// estimate), ±Inf bounds when an estimate is a miss.
	Diff float64
	CI   [2]float64
	// Batches is the number of batches B.
	Batches int
}

// Significant reports whether the interval excludes 0.
func (d PairedDiff) Significant() bool { return d.CI[0] > 0 || d.CI[1] < 0 }

// HalfWidth returns the interval's half-width (NaN when it has none).
func (d PairedDiff) HalfWidth() float64 { return (d.CI[1] - d.CI[0]) / 2 }

// Batched reports whether c's requests interact, so that its figures leave
// out a warm-up and its intervals come from batches.
func (c *ClassResult) Batched() bool { return c.lat.sectioned() && c.lat.n() > 0 }

// BatchQuantiles returns c's ps-quantiles (ascending; nearest rank, +Inf
// on a miss) after its own warm-up cut, the same quantiles of each of its
// batches (perBatch[b][i] for ps[i]), and the requests kept after the cut;
// ok is false unless c is Batched.
func (c *ClassResult) BatchQuantiles(ps ...float64) (pooled []float64, perBatch [][]float64, kept int64, ok bool) {
	return c.BatchQuantilesEach(ps, ps)
}

// BatchQuantilesEach is BatchQuantiles with each batch's quantiles those
// of each (ascending; perBatch[b][i] for each[i]) rather than of ps: the
// values are the same, and a batch selects only the ranks asked of it.
func (c *ClassResult) BatchQuantilesEach(ps, each []float64) (pooled []float64, perBatch [][]float64, kept int64, ok bool) {
	if !c.Batched() {
		return nil, nil, 0, false
	}
	ss := newSectionSums(&c.lat)
	cut := ss.mser()
	pooled, perBatch = batchQuantiles(groupBatches(&c.lat, ss, cut), ps, each)
	return pooled, perBatch, ss.kept(cut), true
}

// BatchFigures are a Batched class result's quantiles after its warm-up
// cut and of its batches (BatchQuantilesEach), and its linearised
// quantiles on the fixed grid (GridLinearised).
type BatchFigures struct {
	// Pooled, PerBatch and Kept are BatchQuantilesEach's.
	Pooled   []float64
	PerBatch [][]float64
	Kept     int64
	// FirstKept and Lin are GridLinearised's (Lin nil when no grid batch
	// lies wholly after the cut).
	FirstKept int
	Lin       [][]float64
	// Answered, Within and Cost are GridShares's.
	Answered, Within, Cost []float64
	// Ranks are c.Ranks(ranks), of all of c's requests.
	Ranks []float64
}

// BatchFigures returns c.BatchQuantilesEach(ps, each),
// c.GridLinearised(lin...), c.GridShares(within) and c.Ranks(ranks), the
// same values, from one pass over c's latencies for its section sums and
// one warm-up cut; ok is false unless c is Batched. With many ranks (a
// survival curve's), its answered latencies are counted in buckets of
// their range as they are copied in the order of their sections, and the
// ranks, the pooled quantiles after the cut and those of the grid's
// batches kept are all selected at once from those counts, only the few
// buckets that hold them sorted (suffixRanks).
func (c *ClassResult) BatchFigures(ps, each, lin []float64, within float64, ranks []int) (f BatchFigures, ok bool) {
	if !c.Batched() {
		return f, false
	}
	ss := newSectionSumsWithin(&c.lat, within)
	cut := ss.mser()
	// With many ranks (a survival curve's), the answered latencies' keys
	// are counted as they are ordered by section (selectCounted).
	many := len(ranks) > selMaxWindows && c.lat.na > selSort && c.lat.na <= selSortCopy
	var counts keyCounts
	var ord []float32
	if many {
		var h rankHist
		counts = newKeyCounts(ss.loA, ss.hiA, c.lat.na, &h)
		ord = bySectionCounted(&c.lat, ss, &counts)
	} else {
		ord = bySection(&c.lat, ss)
	}
	grid := groupSections(ord, ss, 0)
	g := grid
	if cut != 0 {
		g = groupSections(ord, ss, cut)
	}
	f.FirstKept = firstKeptBatch(cut, grid.nb)
	if many {
		// Every rank asked of ord and of its two suffixes, at once.
		whole := rankAsk{}
		for _, k := range ranks {
			if k < len(ord) {
				whole.ks = append(whole.ks, k)
			}
		}
		asks := []rankAsk{whole, estimatesAsk(len(ord), g.start, int(g.keptFrom(0)), ps)}
		if f.FirstKept < grid.nb {
			_, levels := linearisedLevels(lin)
			from := f.FirstKept
			asks = append(asks, estimatesAsk(len(ord), grid.start+int(grid.off[from]), int(grid.keptFrom(from)), levels))
		}
		// The batches' tails, in segments that hold both the grid's
		// batches and those kept after the cut.
		bounds := make([]int, 0, grid.nb+g.nb+2)
		for j := range grid.nb + 1 {
			bounds = append(bounds, grid.start+int(grid.off[j]))
		}
		for j := range g.nb + 1 {
			bounds = append(bounds, g.start+int(g.off[j]))
		}
		slices.Sort(bounds)
		tails := newBatchTails(&counts, len(ord), bounds)
		sr := newSuffixRanksCounted(float32Bits(ord), &counts, asks, tails)
		grid.ranks, g.ranks = sr, sr
		if tails.filled {
			grid.tails, g.tails = tails, tails
		}
		f.Ranks = make([]float64, len(ranks))
		for i, k := range ranks {
			f.Ranks[i] = math.Inf(1)
			if k < len(ord) {
				f.Ranks[i] = seconds64(math.Float32frombits(sr.rank(0, k)))
			}
		}
	} else if len(ranks) > 0 {
		f.Ranks = c.Ranks(ranks)
	}
	f.Pooled, f.PerBatch = batchQuantiles(g, ps, each)
	f.Kept = ss.kept(cut)
	// The grid's batches are GridShares's: their requests and answered
	// requests are grid's, those answered within within the sections'.
	var n, a, w [numBatches]int64
	copy(n[:], grid.n)
	copy(a[:], grid.a)
	for k := range numSections {
		w[k*numBatches/numSections] += ss.within[k]
	}
	f.Answered, f.Within, f.Cost = gridShares(&c.lat, &n, &a, &w, within)
	if f.FirstKept < grid.nb {
		_, f.Lin = linearised(grid, f.FirstKept, lin)
	}
	return f, true
}

// BatchIntervalOK reports whether a batched interval of the p-quantile
// over kept requests in batches batches is honest: at least two batches,
// each holding on average MinBatchRequests(p).
func BatchIntervalOK(p float64, kept int64, batches int) bool {
	return batches >= 2 && kept/int64(batches) >= MinBatchRequests(p)
}

// MinBatchRequests is the fewest requests a batch needs for its p-quantile
// to be more than an extreme: 10 beyond it, ⌈10/(1−p)⌉ (200 for p95, 1000
// for p99).
func MinBatchRequests(p float64) int64 { return minPerBatch(p) }

// batchQuantiles returns the ps-quantiles of the requests grouped in g,
// and the each-quantiles of each batch.
func batchQuantiles(g *batchGroups, ps, each []float64) ([]float64, [][]float64) {
	var n int64
	per := make([][]float64, g.nb)
	for j := range g.nb {
		n += g.n[j]
		if g.tails != nil {
			if v, ok := g.tailEstimates(j, each); ok {
				per[j] = v
				continue
			}
		}
		per[j] = rankEstimates(g.buf[g.off[j]:g.off[j+1]], int(g.n[j]), each)
	}
	return g.suffixEstimates(0, n, ps), per
}

// column returns the i-th estimate of each batch.
func column(per [][]float64, i int) []float64 {
	out := make([]float64, len(per))
	for j := range per {
		out[j] = per[j][i]
	}
	return out
}

// PairedQuantileDiff returns the paired difference b − a of the
// p-quantile of two batched class results of one scenario — two runs on
// common random numbers, or two classes of one run — both cut at the later
// of their warm-up cuts, over the linearised quantiles of their batches
// (linearised.go): the interval is centred on the difference of the two
// pooled quantiles after the common cut. ok is false unless both are
// Batched.
func PairedQuantileDiff(a, b *ClassResult, p, level float64) (d PairedDiff, ok bool) {
	if !a.Batched() || !b.Batched() {
		return PairedDiff{}, false
	}
	sa, sb := newSectionSums(&a.lat), newSectionSums(&b.lat)
	cut := max(sa.mser(), sb.mser())
	qa, la := linearised(groupBatches(&a.lat, sa, cut), 0, []float64{p})
	qb, lb := linearised(groupBatches(&b.lat, sb, cut), 0, []float64{p})
	return PairDiff(qa[0], la[0], qb[0], lb[0], level), true
}

// PairDiff returns the paired difference estB − estA of an estimate
// whose batch estimates are perA and perB (the same batches), at the
// level. The interval is NaN when the batches differ in number or are
// fewer than two.
func PairDiff(estA float64, perA []float64, estB float64, perB []float64, level float64) PairedDiff {
	d := PairedDiff{Diff: estB - estA, CI: [2]float64{math.NaN(), math.NaN()}, Batches: len(perA)}
	if len(perA) != len(perB) || len(perA) < 2 {
		return d
	}
	if math.IsInf(estA, 1) || math.IsInf(estB, 1) {
		d.CI = [2]float64{math.Inf(-1), math.Inf(1)}
		return d
	}
	xs := make([]float64, len(perA))
	for j := range perA {
		if math.IsInf(perA[j], 1) || math.IsInf(perB[j], 1) {
			d.CI = [2]float64{math.Inf(-1), math.Inf(1)}
			return d
		}
		xs[j] = perB[j] - perA[j]
	}
	h := halfWidthAt(xs, level)
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	d.CI = [2]float64{m - h, m + h}
	return d
}

// BatchInterval returns the interval est ± t_{(1+level)/2, B−1}·s/√B of an
// estimate est whose B batch estimates are per (s their standard
// deviation): NaN bounds with fewer than two batches, an upper bound of
// +Inf when a batch estimate is (a percentile on a miss).
func BatchInterval(est float64, per []float64, level float64) [2]float64 {
	nan := [2]float64{math.NaN(), math.NaN()}
	if len(per) < 2 || math.IsNaN(est) {
		return nan
	}
	if math.IsInf(est, 1) {
		return [2]float64{math.Inf(1), math.Inf(1)}
	}
	lo := est
	for _, x := range per {
		if math.IsNaN(x) {
			return nan
		}
		lo = min(lo, x)
	}
	for _, x := range per {
		if math.IsInf(x, 1) {
			return [2]float64{lo, math.Inf(1)}
		}
	}
	h := halfWidthAt(per, level)
	return [2]float64{est - h, est + h}
}

// halfWidthAt returns t_{(1+level)/2, B−1}·s/√B for the B ≥ 2 finite
// values xs, s their sample standard deviation.
func halfWidthAt(xs []float64, level float64) float64 {
	b := float64(len(xs))
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= b
	var v float64
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	t := tQuantile(b-1, level)
	return t * math.Sqrt(v/(b-1)) / math.Sqrt(b)
}

// tQuantile returns t_{(1+level)/2, ν}, the (1+level)/2-quantile of
// Student's t with ν degrees of freedom (gonum's distuv.StudentsT), the
// same float64. Each one computed is kept (tQuantiles) for the next: a
// sweep asks for the same few (B − 1 batches, level) for every interval of
// every candidate, and each costs some 90 000 instructions (the inverse of
// the regularised incomplete beta function).
func tQuantile(nu, level float64) float64 {
	k := tKey{nu, level}
	if t, ok := tQuantiles.Load(k); ok {
		return t.(float64)
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Quantile((1 + level) / 2)
	// A key that is NaN would never be found again; the kept ones are
	// bounded, whatever the levels asked.
	if !math.IsNaN(nu) && !math.IsNaN(level) && tKept.Add(1) <= maxTKept {
		tQuantiles.Store(k, t)
	}
	return t
}

// tKey is a kept quantile's degrees of freedom and level.
type tKey struct{ nu, level float64 }

// tQuantiles holds the quantiles tQuantile computed (tKey → float64), at
// most maxTKept of them (tKept counts those stored).
var (
	tQuantiles sync.Map
	tKept      atomic.Int64
)

const maxTKept = 1 << 12
