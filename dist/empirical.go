package dist

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Empirical is the empirical distribution of n observed values x₍₁₎ ≤ … ≤ x₍ₙ₎:
// each carries probability 1/n, so
//
//	F(x) = #{i : xᵢ ≤ x} / n,
//
// the empirical CDF. Rand resamples the observations uniformly with
// replacement (the bootstrap), so it only ever returns observed values.
// Quantile is the nearest-rank (inverse-ECDF, R type 1) quantile
// x₍ₖ₎ with k = max(1, ⌈p·n⌉), the same value as gonum's
// stat.Quantile(p, stat.Empirical, x, nil). See
// https://en.wikipedia.org/wiki/Empirical_distribution_function.
//
// Build one with NewEmpirical.
type Empirical struct {
	sorted []float64 // the observations, ascending
	mean   float64
}

var _ Continuous = (*Empirical)(nil)

// NewEmpirical returns the empirical distribution of values (in the caller's
// units: seconds, tokens). It keeps a sorted copy. It returns an error unless
// there is at least one value and all are finite.
func NewEmpirical(values []float64) (*Empirical, error) {
	if len(values) == 0 {
		return nil, errors.New("dist: empirical distribution needs at least one value")
	}
	var sum float64
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("dist: empirical value %d is %v; must be finite", i, v)
		}
		sum += v
	}
	s := slices.Clone(values)
	slices.Sort(s)
	return &Empirical{sorted: s, mean: sum / float64(len(s))}, nil
}

// Len returns the number of observations n.
func (e *Empirical) Len() int { return len(e.sorted) }

// Rand returns one of the observations chosen uniformly, reading (almost
// always) one Uint64 from src.
func (e *Empirical) Rand(src rand.Source) float64 {
	return e.sorted[uintN(src, uint64(len(e.sorted)))]
}

// Support returns the smallest and the largest observation.
func (e *Empirical) Support() (lo, hi float64) {
	return e.sorted[0], e.sorted[len(e.sorted)-1]
}

// Mean returns the sample mean (1/n)·Σ xᵢ.
func (e *Empirical) Mean() float64 { return e.mean }

// count returns #{i : xᵢ ≤ x} by binary search, in O(log n).
func (e *Empirical) count(x float64) int {
	lo, hi := 0, len(e.sorted)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if e.sorted[mid] <= x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// CDF returns the fraction of observations ≤ x.
func (e *Empirical) CDF(x float64) float64 {
	return float64(e.count(x)) / float64(len(e.sorted))
}

// Survival returns the fraction of observations > x.
func (e *Empirical) Survival(x float64) float64 {
	return float64(len(e.sorted)-e.count(x)) / float64(len(e.sorted))
}

// Quantile returns the nearest-rank quantile x₍ₖ₎, k = max(1, ⌈p·n⌉): the
// smallest observation x with CDF(x) ≥ p. It panics when p is outside [0, 1].
func (e *Empirical) Quantile(p float64) float64 {
	checkP(p)
	k := int(math.Ceil(p * float64(len(e.sorted))))
	return e.sorted[min(max(k-1, 0), len(e.sorted)-1)]
}
