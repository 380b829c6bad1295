package sim

import (
	"math"
	"math/bits"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// Intervals of independent requests. When requests cannot affect one
// another (Config.independentCalls) their latencies are independent draws,
// and exact or large-sample intervals that assume independence hold: the
// distribution-free order-statistic interval for a percentile
// (QuantileCI), the normal interval x̄ ± z·s/√n for the mean of the
// answered requests, and the Wilson score interval for a share (Wilson,
// "Probable inference, the law of succession, and statistical inference",
// JASA 22, 1927), which keeps its level near 0 and 1 where the plain
// normal one does not. They cost, in the run, a 128-bit integer sum of
// the squares of the answered latencies in µs (exact, so the same in any
// order: a split run's parts come in any).

// orderCIs returns the intervals of independent requests c beside p95's
// and p99's: the mean's. The other percentiles get none (NaN, absent from
// JSON):
// their order-statistic ranks would widen the selection's passes by half
// again.
func orderCIs(c *ClassResult) *LatencyCIs {
	nan := [2]float64{math.NaN(), math.NaN()}
	return &LatencyCIs{Mean: meanCI(c), P50: nan, P90: nan, P999: nan, Method: CIMethodOrder}
}

// meanCI returns the normal 95 % interval of c's mean time to a usable
// answer, x̄ ± z₀.₉₇₅·s/√n over its n answered requests, its lower bound
// at least 0 (a latency is not negative; a heavy tail's huge s would put
// it below); NaN with fewer than two.
func meanCI(c *ClassResult) [2]float64 {
	n := c.lat.na
	if n < 2 {
		return [2]float64{math.NaN(), math.NaN()}
	}
	m := c.Mean()
	sq := c.lat.sqA.squareSeconds() // Σx², s²
	nf := float64(n)
	v := max(sq-nf*m*m, 0) / (nf - 1)
	h := distuv.UnitNormal.Quantile(0.975) * math.Sqrt(v/nf)
	return [2]float64{max(m-h, 0), m + h}
}

// ClipShare returns the interval ci of a share or a utilisation, which lie
// in [0, 1], with bounds past them clipped; NaN bounds stay NaN.
func ClipShare(ci [2]float64) [2]float64 {
	if math.IsNaN(ci[0]) || math.IsNaN(ci[1]) {
		return ci
	}
	return [2]float64{max(ci[0], 0), min(ci[1], 1)}
}

// BatchShareInterval returns the batched interval of a share est in
// [0, 1] from its B batch shares per at the level: BatchInterval clipped
// to [0, 1] (ClipShare), except when every batch share sits at the same
// bound, 0 or 1 (no miss, or no answer, in any batch). There the batches'
// standard deviation is 0 and the t interval has no width, which says
// nothing of the spread: the interval is then the Wilson score interval
// of B batch means, each in [0, 1] — [B/(B+z²), 1] at 1 and
// [0, z²/(B+z²)] at 0, z the level's normal score — which is
// conservative because a mean in [0, 1] has a variance of at most
// μ(1−μ), a Bernoulli trial's. NaN bounds as BatchInterval gives them.
func BatchShareInterval(est float64, per []float64, level float64) [2]float64 {
	ci := ClipShare(BatchInterval(est, per, level))
	if math.IsNaN(ci[0]) || math.IsNaN(ci[1]) || (est != 0 && est != 1) {
		return ci
	}
	for _, x := range per {
		if x != est {
			return ci
		}
	}
	b := float64(len(per))
	z := distuv.UnitNormal.Quantile((1 + level) / 2)
	if est == 1 {
		return [2]float64{b / (b + z*z), 1}
	}
	return [2]float64{0, z * z / (b + z*z)}
}

// ClipLatency returns the batched interval ci of a latency (a percentile
// or a mean, in seconds, ≥ 0) with a lower bound below 0 raised to 0, and
// whether it lay within [0, ∞) as formed: a normal interval that reaches
// below 0 shows that the batch estimates are too skewed (a few batches
// holding the long waits of a cold start, say) for the normal
// approximation, so the interval is not to be trusted (not OK) whatever
// the batches' length. NaN bounds stay NaN, and count as within.
func ClipLatency(ci [2]float64) ([2]float64, bool) {
	if math.IsNaN(ci[0]) || ci[0] >= 0 {
		return ci, true
	}
	return [2]float64{0, ci[1]}, false
}

// WilsonCI returns the Wilson score 95 % interval of a share of k
// successes in n independent trials; NaN bounds when n is 0.
func WilsonCI(k, n int64) [2]float64 {
	if n <= 0 {
		return [2]float64{math.NaN(), math.NaN()}
	}
	z := distuv.UnitNormal.Quantile(0.975)
	nf, p := float64(n), float64(k)/float64(n)
	d := 1 + z*z/nf
	c := (p + z*z/(2*nf)) / d
	h := z / d * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	ci := [2]float64{max(c-h, 0), min(c+h, 1)}
	if k == 0 { // c = h then, but for rounding
		ci[0] = 0
	}
	if k == n {
		ci[1] = 1
	}
	return ci
}

// addSquare adds the square of d in whole µs (d truncated to the µs):
// below 2⁹⁴ for any duration the simulator draws (about 9 years at most),
// so 2³⁴ of them fit. d ≥ 0 (a request's latency): it is divided
// unsigned, with no sign to correct.
func (w *wideSum) addSquare(d time.Duration) {
	us := uint64(d) / uint64(time.Microsecond)
	h, l := bits.Mul64(us, us)
	var carry uint64
	w.lo, carry = bits.Add64(w.lo, l, 0)
	w.hi += h + carry
}

// squareSeconds returns a sum of addSquare in s².
func (w *wideSum) squareSeconds() float64 {
	return (float64(w.hi)*0x1p64 + float64(w.lo)) / 1e12
}
