package sim

import (
	"math"

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
// pass over the answered latencies, after the run.

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
	var ss exactSum
	for _, p := range c.lat.ans {
		for _, x := range p {
			d := float64(x) - m
			ss.add(d * d)
		}
	}
	h := distuv.UnitNormal.Quantile(0.975) * math.Sqrt(ss.sum()/float64(n-1)/float64(n))
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
	return [2]float64{max(c-h, 0), min(c+h, 1)}
}

// exactSum adds float64 values without rounding error, as a list of
// non-overlapping partial sums (Shewchuk, "Adaptive precision
// floating-point arithmetic and fast robust geometric predicates", 1997;
// Python's math.fsum), so that its sum — the exact sum correctly rounded —
// does not depend on the order of the values: the latencies of a split run come in parts of any order. Each add
// costs O(partials), a handful for sums of squares of latencies.
type exactSum struct{ p []float64 }

func (s *exactSum) add(x float64) {
	i := 0
	for _, y := range s.p {
		if math.Abs(x) < math.Abs(y) {
			x, y = y, x
		}
		hi := x + y
		lo := y - (hi - x)
		if lo != 0 {
			s.p[i] = lo
			i++
		}
		x = hi
	}
	s.p = append(s.p[:i], x)
}

// sum returns the exact sum correctly rounded (half-way cases included,
// as math.fsum does it).
func (s *exactSum) sum() float64 {
	n := len(s.p)
	if n == 0 {
		return 0
	}
	n--
	hi, lo := s.p[n], 0.0
	for n > 0 {
		x := hi
		n--
		y := s.p[n]
		hi = x + y
		lo = y - (hi - x)
		if lo != 0 {
			break
		}
	}
	if n > 0 && (lo < 0 && s.p[n-1] < 0 || lo > 0 && s.p[n-1] > 0) {
		y := 2 * lo
		if x := hi + y; x-hi == y {
			hi = x
		}
	}
	return hi
}
