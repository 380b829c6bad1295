package retune

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hedgesim/hedgesim/fit"
	"github.com/hedgesim/hedgesim/readers"
)

// Dependent calls. Pearson's X², the percentiles' rank intervals and the
// shares' standard errors of Judge assume independent observations. A
// queued model's calls are not: consecutive calls share the queue's
// state, so a histogram's cell counts vary far more than multinomially.
// When the scenario's requests interact (sim.Config.Batched) the
// simulated sample a queued model is judged against measures how much
// more: split, in completion order, into B contiguous batches, each
// pooled cell c's batch proportions have a covariance V/m (m the batch
// size), against p(1 − p)/m for independent draws. The design effects
// are the eigenvalues δ_j of Δ = P⁻¹V (P = diag(p)); a cell's own is
// V_cc/(p_c(1 − p_c)). Under the null hypothesis the live traffic is the
// same process, and a histogram has no time order, so the simulation is
// the only place to measure them; the test takes them to hold for the
// live counts too.
//
// The test is Rao and Scott's second-order correction with an F reference
// (Rao and Scott, Ann. Statist. 12, 1984; Thomas and Rao, JASA 82,
// 1987): X² ≈ Σ δ_j χ²₁, so F = X²/tr(Δ) is referred to F(d, B − 1),
// d = tr(Δ)²/tr(Δ²) the Satterthwaite degrees of freedom and B − 1 those
// of the batch estimate of Δ. Thomas and Rao's denominator d·(B − 1)
// takes the d directions as estimated independently; under a queue one
// direction (the queue's length, which moves every cell at once) carries
// most of tr(Δ), and its estimate rests on the B − 1 alone. The
// first-order correction (X²/δ̄ on the pooled df, δ̄ = tr(Δ)/(cells − 1))
// is not enough there: its reference has far too light a tail.

// minDesignBatches is the fewest batches the design effects are
// estimated from. A batch is as long as the live histogram (N calls), so
// that its variance is what a window of N consecutive calls varies by: a
// shorter one (sim's 30 batches of the run, when N is more than a
// thirtieth of it) understates it under a queue's long memory, a longer
// one overstates it. The simulated sample is ObservedPerObservation (10)
// times the live one, so that gives about 10 batches; a sample capped at
// MaxObservedRequests, or a replayed trace's, gets 10 shorter ones.
const minDesignBatches = 10

// Dependence is the correction of a Drift for calls that are not
// independent (a queued model judged against its simulated client-side
// latency, the scenario's requests interacting).
type Dependence struct {
	// DesignEffect is the mean design effect δ̄ = tr(Δ)/(cells − 1) of the
	// pooled cells (Rao and Scott's first-order one): the variance of the
	// cell counts over a multinomial sample's, measured by batch means of
	// the simulated sample in completion order. It is at least 1: a queue
	// does not make counts less variable than independent ones, and an
	// estimate below 1 is noise; at 1 the test is the one for independent
	// calls. The test then counts the N observations as about N/δ̄
	// independent ones.
	DesignEffect float64 `json:"design_effect"`
	// F is X²/tr(Δ) (X² as Drift.ChiSquare gives it) and DF1, DF2 its F
	// reference's degrees of freedom, d = tr(Δ)²/tr(Δ²) and Batches − 1;
	// Drift.PValue is P(F(DF1, DF2) > F). Zero when DesignEffect is 1 or
	// the pooled cells leave the test no degree of freedom.
	F   float64 `json:"f,omitempty"`
	DF1 float64 `json:"f_df1,omitempty"`
	DF2 float64 `json:"f_df2,omitempty"`
	// IndependenceP is the batches' test of independence: P(χ² > (B − 1)·
	// tr(Δ)) on (B − 1)(cells − 1) df, the law of (B − 1)·tr(Δ) for
	// independent calls. At or above dependenceFound (0.25) the batches
	// show no dependence beyond their own noise: every design effect is
	// then 1 and the test is the one for independent calls.
	IndependenceP float64 `json:"independence_p_value"`
	// Batches is B and BatchSize m, the simulated attempts per batch: the
	// live histogram's observations (a live histogram counts a run of
	// consecutive calls), but at most 1/minDesignBatches of the sample;
	// the batches are the last B·m attempts completed, the remainder cut
	// from the start, where the simulation warms up.
	Batches   int `json:"batches"`
	BatchSize int `json:"batch_size"`
	// Percentiles are the design effects δ_p of the indicators {x ≤ the
	// simulated p-quantile}, p = 0.5, 0.95, 0.99 (each at least 1), by
	// which Shift's rank half-widths are widened (× √δ_p).
	Percentiles []float64 `json:"percentile_design_effects"`

	trace, trace2  float64   // tr(Δ), tr(Δ²)
	rawPercentiles []float64 // the δ_p before the clamp at 1
}

// designBatches returns the batch size m and number B for a simulated
// sample of len(xs) against a live histogram of n observations.
func designBatches(xs []float64, n float64) (m, b int) {
	m = max(1, min(int(math.Round(n)), len(xs)/minDesignBatches))
	return m, len(xs) / m
}

// dependence measures the design effects of the simulated sample xs (in
// completion order) on h's buckets pooled as the test pools expected (the
// expected counts of xs's empirical distribution), and of the indicators
// below qs (the sample's percentiles). nil when xs gives fewer than 2
// batches.
func dependence(xs []float64, h *readers.Histogram, expected []float64, qs []float64) *Dependence {
	m, b := designBatches(xs, h.Total())
	if b < 2 {
		return nil
	}
	cellOf, k := fit.PooledCells(expected)
	xs = xs[len(xs)-b*m:]
	// Per batch, the proportions in each pooled cell (k) and below each
	// percentile (len(qs)).
	w := k + len(qs)
	props := make([][]float64, b)
	for j := range b {
		row := make([]float64, w)
		for _, x := range xs[j*m : (j+1)*m] {
			if i := bucketOf(h, x); i >= 0 && k > 0 {
				row[cellOf[i]]++
			}
			for q, v := range qs {
				if x <= v {
					row[k+q]++
				}
			}
		}
		for c := range row {
			row[c] /= float64(m)
		}
		props[j] = row
	}
	mean := make([]float64, w)
	for _, row := range props {
		for c, v := range row {
			mean[c] += v / float64(b)
		}
	}
	// V = m · the batch proportions' covariance (divisor B − 1).
	cov := func(c, d int) float64 {
		s := 0.0
		for _, row := range props {
			s += (row[c] - mean[c]) * (row[d] - mean[d])
		}
		return float64(m) * s / float64(b-1)
	}
	dep := &Dependence{Batches: b, BatchSize: m, DesignEffect: 1}
	for c := range k {
		if mean[c] <= 0 {
			continue
		}
		dep.trace += cov(c, c) / mean[c]
		for d := range k {
			if mean[d] > 0 {
				v := cov(c, d)
				dep.trace2 += v * v / (mean[c] * mean[d])
			}
		}
	}
	// The batches' own test of independence: under it (and batch means
	// near normal) (B − 1)·tr(Δ) is χ² on (B − 1)(cells − 1) df, P⁻¹ times
	// the multinomial covariance being a projection of rank cells − 1.
	dep.IndependenceP = 1
	if k > 1 {
		dep.IndependenceP = distuv.ChiSquared{K: float64((b - 1) * (k - 1))}.Survival(float64(b-1) * dep.trace)
	}
	found := dep.IndependenceP < dependenceFound
	if k > 1 && found {
		dep.DesignEffect = math.Max(1, dep.trace/float64(k-1))
	}
	for q := range qs {
		p := mean[k+q]
		de := 1.0
		if p > 0 && p < 1 {
			de = cov(k+q, k+q) / (p * (1 - p))
		}
		dep.rawPercentiles = append(dep.rawPercentiles, de)
		if !found {
			de = 1
		}
		dep.Percentiles = append(dep.Percentiles, math.Max(1, de))
	}
	return dep
}

// dependenceFound is the level of the batches' test of independence
// (Dependence.IndependenceP) below which the design effects are taken as
// measured; at or above it they are 1 and the drift test is the one for
// independent calls. An F reference on the B − 1 df of about 10 batches
// costs the test most of its power even at a design effect of 1 (X² = 44.8
// on 10 df: p = 2·10⁻⁶ by χ², 0.017 by F(10, 9)), so the correction is
// kept to calls whose batches show dependence. The level is high (0.25,
// not the drift test's 0.01) so that a modest dependence is corrected
// rather than missed: the pretest errs towards the corrected test.
const dependenceFound = 0.25

// bucketOf returns the index of the first of h's buckets whose upper bound
// is at least x, where a histogram counts x; −1 past the last.
func bucketOf(h *readers.Histogram, x float64) int {
	lo, hi := 0, len(h.Upper)
	for lo < hi { // the first bucket whose upper bound is ≥ x
		mid := (lo + hi) / 2
		if h.Upper[mid] < x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == len(h.Upper) {
		return -1
	}
	return lo
}
