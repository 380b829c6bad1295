package sim

import (
	"math"
	"math/bits"

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
// normal one does not. They cost one more selection of six ranks and one
// pass over the answered latencies (a 128-bit integer sum of squares),
// after the run.

// orderCIPs are the percentiles given order-statistic intervals beside
// p95 and p99 (which SummarizeLatency's fields carry).
var orderCIPs = [...]float64{0.50, 0.90, 0.999}

// appendOrderCIRanks appends to ks the 0-based ranks of the 95 % intervals
// of orderCIPs for n values, and returns whether each fits in the sample.
func appendOrderCIRanks(ks []int, n int) ([]int, [len(orderCIPs)]bool) {
	var oks [len(orderCIPs)]bool
	for i, p := range orderCIPs {
		l, u, ok := QuantileCIRanks(n, p, 0.95)
		ks = append(ks, l-1, u-1)
		oks[i] = ok
	}
	return ks, oks
}

// orderCIs returns the intervals of independent requests c: v holds the
// bounds at appendOrderCIRanks's ranks; a bound of an interval that does
// not fit in the sample is NaN (JSON null).
func orderCIs(c *ClassResult, v []float64, oks [len(orderCIPs)]bool) *LatencyCIs {
	ci := func(i int) [2]float64 {
		if !oks[i] {
			return [2]float64{math.NaN(), math.NaN()}
		}
		return [2]float64{v[2*i], v[2*i+1]}
	}
	return &LatencyCIs{Mean: meanCI(c), P50: ci(0), P90: ci(1), P999: ci(2), Method: CIMethodOrder}
}

// meanCI returns the normal 95 % interval of c's mean time to a usable
// answer, x̄ ± z₀.₉₇₅·s/√n over its n answered requests; NaN with fewer
// than two.
func meanCI(c *ClassResult) [2]float64 {
	n := c.lat.na
	if n < 2 {
		return [2]float64{math.NaN(), math.NaN()}
	}
	m := c.Mean()
	// Σx² in µs², exact in 128 bits whatever the order of the parts (a
	// split run's come in any order); each x rounded to the µs.
	var lo, hi uint64
	for _, p := range c.lat.ans {
		for _, x := range p {
			us := uint64(math.Round(float64(x) * 1e6))
			h, l := bits.Mul64(us, us)
			var carry uint64
			lo, carry = bits.Add64(lo, l, 0)
			hi += h + carry
		}
	}
	sq := (float64(hi)*0x1p64 + float64(lo)) / 1e12 // Σx², s²
	nf := float64(n)
	v := max(sq-nf*m*m, 0) / (nf - 1)
	h := distuv.UnitNormal.Quantile(0.975) * math.Sqrt(v/nf)
	return [2]float64{m - h, m + h}
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
