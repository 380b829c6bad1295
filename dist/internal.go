package dist

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// This file holds the small numerical helpers shared by the distributions.
// They read the Source directly, so that no *rand.Rand is built (and none can
// escape to the heap) on the sampling path.

// checkP panics unless p is in [0, 1]; NaN is rejected too.
func checkP(p float64) {
	if !(p >= 0 && p <= 1) {
		panic("dist: quantile probability out of [0, 1]")
	}
}

// uniform01 returns a uniform draw in [0, 1) with 53 random bits, exactly as
// rand.Rand.Float64 does, consuming one Uint64 from src.
func uniform01(src rand.Source) float64 {
	return float64(src.Uint64()<<11>>11) / (1 << 53)
}

// uniformOpen returns a uniform draw in the open interval (0, 1): the midpoint
// of one of 2^53 equal cells, consuming one Uint64 from src. It is the input
// for inverse-transform sampling when Quantile(0) or Quantile(1) is infinite.
func uniformOpen(src rand.Source) float64 {
	return (float64(src.Uint64()>>11) + 0.5) / (1 << 53)
}

// uintN returns a uniform integer in [0, n) for n > 0, without bias, by
// Lemire's multiply-and-reject method (the one math/rand/v2 uses). It
// consumes one Uint64 from src except with probability < n/2^64.
func uintN(src rand.Source, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

// orderedKey maps a float64 to an int64 that sorts the same way (for non-NaN
// values; −0 and +0 both map to 0), so that bisection over keys visits
// every representable float64 between two bounds.
func orderedKey(x float64) int64 {
	b := int64(math.Float64bits(x))
	if b < 0 {
		b = math.MinInt64 - b
	}
	return b
}

// keyFloat is the inverse of orderedKey.
func keyFloat(k int64) float64 {
	if k < 0 {
		k = math.MinInt64 - k
	}
	return math.Float64frombits(uint64(k))
}

// invert returns the smallest float64 x in [lo, hi] with cdf(x) ≥ p, assuming
// cdf is non-decreasing, cdf(hi) ≥ p and lo ≤ hi. It bisects on the ordered
// bit patterns of float64, so it ends on adjacent floats (1 ulp) after at
// most 64 evaluations of cdf, whatever the scale of the bounds.
func invert(cdf func(float64) float64, p, lo, hi float64) float64 {
	if cdf(lo) >= p {
		return lo
	}
	// Invariant: cdf(keyFloat(a)) < p ≤ cdf(keyFloat(b)).
	a, b := orderedKey(lo), orderedKey(hi)
	for uint64(b)-uint64(a) > 1 { // unsigned: b−a may exceed MaxInt64
		m := a + int64((uint64(b)-uint64(a))/2)
		if cdf(keyFloat(m)) >= p {
			b = m
		} else {
			a = m
		}
	}
	return keyFloat(b)
}
