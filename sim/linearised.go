package sim

import "math"

// Linearised batch quantiles. A paired difference of a percentile between
// two batched runs (pairs.go) is judged on per-batch values. A batch's own
// quantile θ_j is a biased estimate of the run's when the batch is short
// against the queue's memory: the mean of the per-batch differences θ_j(B)
// − θ_j(A) then misses the true difference (on an M/M/1 at ρ = 0.9 whose
// service rate moves from 1/s to 1.01/s, 10⁵ requests, by some 20 %). The
// pooled quantile q̂ of all the batches kept has no such bias, but the
// spread of the θ_j does not measure its error: under load the pooled
// quantile of a slow period lies in the body of that period's latencies,
// not in its tail where θ_j lies. Both are mended by the quantile's
// linearisation (Bahadur's representation, q̂ − q ≈ (p − F̂(q))/f(q); the
// batch-means interval for quantiles of Asmussen & Glynn, Stochastic
// Simulation, §IV.5): each batch j is given the value
//
//	ψ_j = q̂ + (F̄ − F̂_j(q̂)) / f̂,
//
// F̂_j(q̂) the share of batch j's requests at or below q̂ (a miss is above
// it), F̄ the mean of those shares over the batches kept, and f̂ the density
// of the latencies at q̂, by the difference quotient of the pooled
// quantiles at p ± h (Siddiqui; Bloch & Gastwirth), h = min(p, 1 − p)/5
// (0.01 for p95; bandwidth), or at p − h and p when the quantile at p + h
// is a miss; at p = 0 or 1 there is no density and every ψ_j is NaN. The ψ_j
// of the batches kept average to q̂ exactly, so the mean of the paired
// ψ_j(B) − ψ_j(A) is the pooled difference (on fewer batches, its
// linearisation), and their spread is that of the pooled quantile's
// error: batch means of the share below q̂, in seconds. When f̂ is infinite
// (no latency between the two quantiles) every ψ_j is q̂. The cost is one
// selection over the batches kept (or, in a batched summary, one with its
// other ranks: batchGroups.suffixEstimates) and one pass over their
// latencies.

// linearised returns, for each p of ps, the pooled p-quantile of g's
// batches from from on (nearest rank; +Inf on a miss) and every batch's
// ψ_j (all +Inf when the pooled quantile is a miss, NaN for an empty
// batch).
func linearised(g *batchGroups, from int, ps []float64) (pooled []float64, lin [][]float64) {
	n := g.keptFrom(from)
	order, sorted := linearisedLevels(ps)
	est := g.suffixEstimates(from, n, sorted)
	at := make([]float64, len(sorted))
	for i, k := range order {
		at[k] = est[i]
	}
	pooled = make([]float64, len(ps))
	dens := make([]float64, len(ps))
	for i, p := range ps {
		lo, q, hi := at[3*i], at[3*i+1], at[3*i+2]
		pooled[i] = q
		h := bandwidth(p)
		switch {
		case math.IsInf(q, 1) || math.IsNaN(q):
		case h == 0: // p is 0 or 1: no density, dens 0 (no linearised values)
		case math.IsInf(hi, 1):
			dens[i] = h / (q - lo)
		default:
			dens[i] = 2 * h / (hi - lo)
		}
	}
	lin = make([][]float64, len(ps))
	below := make([]int64, len(ps))
	for i := range ps {
		lin[i] = make([]float64, g.nb)
	}
	// The latencies are float32 seconds and a quantile their shortest
	// decimal (seconds64), which converts back to the same float32: the
	// comparison is made there, so that the quantile's own request counts.
	at32 := make([]float32, len(ps))
	for i, q := range pooled {
		at32[i] = float32(q)
	}
	var kept int
	fbar := make([]float64, len(ps))
	for j := range g.nb {
		g.countBelowIn(j, at32, below)
		for i := range ps {
			lin[i][j] = math.NaN()
			if g.n[j] > 0 {
				lin[i][j] = float64(below[i]) / float64(g.n[j])
			}
		}
		if j >= from && g.n[j] > 0 {
			kept++
			for i := range ps {
				fbar[i] += lin[i][j]
			}
		}
	}
	for i := range ps {
		fbar[i] /= float64(max(kept, 1))
		for j, share := range lin[i] {
			switch {
			case math.IsNaN(share):
			case math.IsInf(pooled[i], 1) || math.IsNaN(pooled[i]):
				lin[i][j] = pooled[i]
			case math.IsInf(dens[i], 1):
				lin[i][j] = pooled[i]
			case dens[i] == 0:
				lin[i][j] = math.NaN()
			default:
				lin[i][j] = pooled[i] + (fbar[i]-share)/dens[i]
			}
		}
	}
	return pooled, lin
}

// keptFrom returns the requests of g's batches from from on.
func (g *batchGroups) keptFrom(from int) int64 {
	var n int64
	for j := from; j < g.nb; j++ {
		n += g.n[j]
	}
	return n
}

// linearisedLevels returns the levels p − h, p and p + h of each p of ps
// (bandwidth), ascending (as rankEstimates wants them), and order, the
// index of each in that list: order[i] = 3·(index of p) + (0, 1 or 2).
func linearisedLevels(ps []float64) (order []int, sorted []float64) {
	qs := make([]float64, 0, 3*len(ps))
	for _, p := range ps {
		h := bandwidth(p)
		qs = append(qs, p-h, p, p+h)
	}
	order = make([]int, len(qs))
	for i := range order {
		order[i] = i
	}
	sortByLevel(order, qs)
	sorted = make([]float64, len(qs))
	for i, k := range order {
		sorted[i] = qs[k]
	}
	return order, sorted
}

// countBelow sets below[i] to how many of xs (none NaN) are at most
// qs[i]: in one pass over xs. Two ascending levels (a candidate's p95 and
// p99) count the keys above them, the fewer: above the first, and of
// those above the second.
func countBelow(xs, qs []float32, below []int64) {
	if len(qs) == 2 && qs[0] <= qs[1] {
		q0, q1 := qs[0], qs[1]
		var a0, a1 int64
		for _, x := range xs {
			if x > q0 {
				a0++
				if x > q1 {
					a1++
				}
			}
		}
		below[0], below[1] = int64(len(xs))-a0, int64(len(xs))-a1
		return
	}
	clear(below)
	for _, x := range xs {
		for i, q := range qs {
			if x <= q {
				below[i]++
			}
		}
	}
}

// bandwidth returns h, the half-width in level of the density estimate
// at level p: (1 − p)/5 for p ≥ 1/2 (0.01 at p95), and p/5 below, so that
// p − h and p + h stay within [0, 1] whatever p; 0 at p = 0 or 1.
func bandwidth(p float64) float64 { return min(p, 1-p) / 5 }

// sortByLevel orders the indices idx by the levels qs[idx] (a handful:
// insertion sort).
func sortByLevel(idx []int, qs []float64) {
	for i := 1; i < len(idx); i++ {
		for k := i; k > 0 && qs[idx[k]] < qs[idx[k-1]]; k-- {
			idx[k], idx[k-1] = idx[k-1], idx[k]
		}
	}
}

// firstKeptBatch returns the first batch of nb on the fixed grid that lies
// wholly at or after section cut.
func firstKeptBatch(cut, nb int) int {
	j := 0
	for j < nb && firstSection(j, nb) < cut {
		j++
	}
	return j
}

// GridLinearised returns, for a Batched c, the first batch of the fixed
// grid (perbatch.go) wholly after c's own warm-up cut, and for each p of
// ps every grid batch's linearised p-quantile ψ_j in seconds (see above;
// relative to the pooled quantile of the batches from firstKept on, +Inf
// when it is a miss, NaN for an empty batch): the values two runs of one
// scenario pair batch by batch from the later of their first kept
// batches. ok is false unless c is Batched.
func (c *ClassResult) GridLinearised(ps ...float64) (firstKept int, lin [][]float64, ok bool) {
	if !c.Batched() {
		return 0, nil, false
	}
	ss := newSectionSums(&c.lat)
	g := groupBatches(&c.lat, ss, 0)
	firstKept = firstKeptBatch(ss.mser(), g.nb)
	if firstKept >= g.nb {
		return firstKept, nil, true
	}
	_, lin = linearised(g, firstKept, ps)
	return firstKept, lin, true
}
