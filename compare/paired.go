package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/hedgesim/hedgesim/sim"
)

// Paired differences. A run report of a class whose requests interact (a
// queue, a limit, a breaker, a pool, closed-loop clients) gives the class's
// figures in each batch of a fixed grid of arrival-ordered batches
// (per_batch: sim.PerBatch). When both reports give them on the same grid,
// a figure's change is judged on the per-batch differences d_j = θ_j(B) −
// θ_j(A) over the batches after both warm-up cuts: the interval d̄ ±
// t₀.₉₇₅,J−1 · s_d/√J (sim.PairDiff), significant when it excludes 0.
// Each side's batch estimates are nearly independent and estimate its
// figure; when the runs share
// their random numbers (the same scenario file and seed) batch j holds the
// same requests in both, what they shared — a long queue, a slow period —
// cancels, and the interval is far narrower than the overlap of the two
// intervals, which under load are each wide. For p50, p95 and p99 θ_j is
// the batch's linearised percentile (per_batch's p95_linearised: sim's
// linearised.go), whose mean over a report's kept batches is its pooled
// percentile of them, so that the interval is centred on the difference
// of the pooled percentiles over the batches both keep (on batches beyond
// a report's own first kept one, on its linearisation): a batch's own
// percentile is biased when batches are short against the queue's memory,
// and so was an interval centred on their mean difference. Reports of a
// build that did not write the linearised values pair the batches' own
// percentiles. Reports of runs of different numbers of requests (a run
// to a precision stops at its own) or on different seeds are not paired:
// batch j then holds other requests in each, and the comparison says so
// (Comparison.Unpaired). Reports without per_batch (independent requests, optimize
// reports) keep the overlap tests, and the z tests unless either side's
// requests interact (dropZTests); when one side's do, the comparison says
// why there are no batches to pair.

// unpairedReason says why two run reports' batches do not pair: batch j
// holds the same requests in both only when both runs drew the same
// number of requests on the same seed (a report of --precision holds its
// last run, whose requests may differ from the other's); "" when they do.
func unpairedReason(a, b *Report) string {
	switch {
	case a.Requests != b.Requests:
		return fmt.Sprintf("the runs simulated %d and %d requests, so batch j holds other requests in each", a.Requests, b.Requests)
	case a.Seed != b.Seed:
		return fmt.Sprintf("the runs used seeds %d and %d, so batch j holds other requests in each", a.Seed, b.Seed)
	}
	return ""
}

// noBatchesReason says why a class whose requests interact in a or b (ca
// and cb) has no batches to pair: a report without per_batch is an
// optimize report (which gives none) or a run whose requests do not
// interact (or of a build that did not write them).
func noBatchesReason(a, b *Report, ca, cb *Class) string {
	if a.Kind == Optimize && b.Kind == Optimize {
		return "both are optimize reports, which give no per_batch"
	}
	var why []string
	for _, side := range []struct {
		name string
		r    *Report
		c    *Class
	}{{"A", a, ca}, {"B", b, cb}} {
		switch {
		case side.c.perBatch != nil:
		case side.r.Kind == Optimize:
			why = append(why, side.name+" is an optimize report, which gives no per_batch")
		case !side.c.interacts:
			why = append(why, side.name+"'s requests do not interact, so its report has no batches to pair")
		default:
			why = append(why, side.name+"'s report gives no per_batch")
		}
	}
	return strings.Join(why, " and ")
}

// pairable reports whether a and b give per-batch figures on the same grid,
// and returns the first batch after both warm-up cuts.
func pairable(a, b *Class) (from int, ok bool) {
	pa, pb := a.perBatch, b.perBatch
	if pa == nil || pb == nil || pa.Count != pb.Count || pa.Count < 2 {
		return 0, false
	}
	from = max(pa.FirstKept, pb.FirstKept)
	return from, pa.Count-from >= 2
}

// pairedDelta returns the paired test of a figure with pooled values a
// and b and per-batch values pa and pb (from batch from on), in d; ok is
// false when the test cannot be made (a batch without the figure, a
// pooled value that is a miss), leaving d unchanged.
func pairedDelta(d *Delta, pa, pb []float64, from int) bool {
	if len(pa) != len(pb) || from >= len(pa) || math.IsInf(d.A, 0) || math.IsInf(d.B, 0) {
		return false
	}
	pd := sim.PairDiff(d.A, pa[from:], d.B, pb[from:], 0.95)
	if math.IsNaN(pd.CI[0]) || math.IsNaN(pd.CI[1]) || math.IsInf(pd.CI[0], 0) || math.IsInf(pd.CI[1], 0) {
		return false
	}
	d.Paired, d.DiffCI, d.PairedBatches, d.Test = true, pd.CI, pd.Batches, ""
	if pd.Significant() {
		d.Mark = Significant
	} else {
		d.Mark = Same
	}
	return true
}

// pairDeltas replaces the overlap and z tests of the deltas of a and b
// (p50, p95, p99, answered, cost/1k, and a pipeline's checked and
// degraded shares when per_batch gives them) by paired tests where both give
// per-batch figures on the same grid. A percentile whose batches are too
// short for an interval (its report's ok flag false; for p50, fewer than
// sim.MinBatchRequests(0.5) requests per batch) stays marked too few.
func pairDeltas(ds []Delta, a, b *Class) {
	from, ok := pairable(a, b)
	if !ok {
		return
	}
	pa, pb := a.perBatch, b.perBatch
	// lin picks the linearised percentiles when both reports give them.
	lin := func(qa, qb, la, lb []float64) ([]float64, []float64) {
		if la != nil && lb != nil {
			return la, lb
		}
		return qa, qb
	}
	for i := range ds {
		d := &ds[i]
		switch d.Metric {
		case "p50":
			n := min(a.Requests, b.Requests)
			if sim.BatchIntervalOK(0.5, n, pa.Count) {
				xa, xb := lin(pa.P50, pb.P50, pa.P50Lin, pb.P50Lin)
				pairedDelta(d, xa, xb, from)
			}
		case "p95":
			if d.Mark != Unknown {
				xa, xb := lin(pa.P95, pb.P95, pa.P95Lin, pb.P95Lin)
				pairedDelta(d, xa, xb, from)
			}
		case "p99":
			if d.Mark != Unknown {
				xa, xb := lin(pa.P99, pb.P99, pa.P99Lin, pb.P99Lin)
				pairedDelta(d, xa, xb, from)
			}
		case "answered":
			pairedDelta(d, pa.AnsweredShare, pb.AnsweredShare, from)
		case "checked":
			pairedDelta(d, pa.CheckedShare, pb.CheckedShare, from)
		case "degraded":
			pairedDelta(d, pa.DegradedShare, pb.DegradedShare, from)
		case "cost/1k":
			pairedDelta(d, pa.CostPer1k, pb.CostPer1k, from)
		}
	}
}

// dropZTests replaces the z tests of the shares of a class whose requests
// interact in either report (a queue, a limit, a pool: its run report
// gives batches, its optimize pick batched intervals), which assume independent requests, where no paired
// difference replaced them: the answered, checked and degraded shares (and
// an optimize pick's met share) are then marked by the overlap of the two
// reports' own intervals (answered_share_ci95, checked_share_ci95,
// degraded_share_ci95, met_share_ci95: batched for requests that
// interact, Wilson's otherwise), significant when they
// are disjoint, as retune's keep-or-change decision judges them; a side
// without its interval leaves the share untested, as is the hedged share,
// of which no report gives an interval.
func dropZTests(ds []Delta, a, b *Class) {
	for i := range ds {
		d := &ds[i]
		if d.Paired {
			continue
		}
		var ca, cb *[2]float64
		switch d.Metric {
		case "answered":
			ca, cb = a.answeredCI, b.answeredCI
		case "checked", "degraded":
			if a.Pipeline == nil || b.Pipeline == nil {
				break
			}
			ca, cb = a.Pipeline.CheckedCI, b.Pipeline.CheckedCI
			if d.Metric == "degraded" {
				ca, cb = a.Pipeline.DegradedCI, b.Pipeline.DegradedCI
			}
		case "met":
			ca, cb = a.metCI, b.metCI
		case "hedged":
		default:
			continue
		}
		if ca == nil || cb == nil {
			d.Mark, d.Test = NoTest, ""
			continue
		}
		d.Test, d.CIA, d.CIB = TestOverlap, *ca, *cb
		if ca[1] < cb[0] || cb[1] < ca[0] {
			d.Mark = Significant
		} else {
			d.Mark = Same
		}
	}
}
