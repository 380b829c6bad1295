package dist

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
)

// QuantileTable is a distribution given by a few published percentiles, such
// as a provider's p50/p90/p99 latency, for points (p₀, x₀), …, (pₙ₋₁, xₙ₋₁)
// with 0 < p₀ < … < pₙ₋₁ < 1, 0 < x₀ < … < xₙ₋₁ and n ≥ 2.
//
// Interpolation rule: with zᵢ = Φ⁻¹(pᵢ) the standard-normal score of pᵢ and
// ℓᵢ = ln xᵢ, the log-quantile is piecewise linear in z,
//
//	ln Q(Φ(z)) = ℓᵢ + (z − zᵢ)·(ℓᵢ₊₁ − ℓᵢ)/(zᵢ₊₁ − zᵢ)   for zᵢ ≤ z ≤ zᵢ₊₁,
//
// that is, between two consecutive published points the distribution is the
// lognormal through them (σᵢ = (ℓᵢ₊₁ − ℓᵢ)/(zᵢ₊₁ − zᵢ)). Below p₀ the first
// segment, and above pₙ₋₁ the last segment, is extended to z = ∓∞, so the
// tails are the lognormal tails through the two outermost points on each
// side. Consequently Q(pᵢ) = xᵢ exactly at every published point, the
// support is (0, +Inf), every moment is finite, and a table of two
// percentiles of a lognormal reproduces that lognormal everywhere.
//
// CDF inverts the same rule: F(x) = Φ(z) with z linear in ln x on each
// segment. Build one with NewQuantileTable.
type QuantileTable struct {
	ps []float64 // published probabilities, strictly increasing in (0, 1)
	xs []float64 // published values, > 0, strictly increasing
	zs []float64 // Φ⁻¹(ps)
	ls []float64 // ln(xs)
	// slope[i] = σᵢ = (ls[i+1] − ls[i])/(zs[i+1] − zs[i]) of segment i.
	slope []float64
	mean  float64
}

var _ Continuous = (*QuantileTable)(nil)

// NewQuantileTable returns the distribution with Quantile(ps[i]) = xs[i]
// interpolated as documented on QuantileTable. ps are probabilities (not
// percentages) strictly increasing in (0, 1); xs are in the caller's units
// (seconds, tokens), finite, > 0 and strictly increasing. At least two points
// are needed; the slices are copied. It returns an error for other inputs.
func NewQuantileTable(ps, xs []float64) (*QuantileTable, error) {
	n := len(ps)
	if n != len(xs) {
		return nil, fmt.Errorf("dist: quantile table has %d probabilities and %d values", len(ps), len(xs))
	}
	if n < 2 {
		return nil, errors.New("dist: quantile table needs at least two points")
	}
	t := &QuantileTable{
		ps:    make([]float64, n),
		xs:    make([]float64, n),
		zs:    make([]float64, n),
		ls:    make([]float64, n),
		slope: make([]float64, n-1),
	}
	for i := range n {
		p, x := ps[i], xs[i]
		if !(p > 0 && p < 1) {
			return nil, fmt.Errorf("dist: quantile table probability %d is %v; must be in (0, 1)", i, p)
		}
		if !(x > 0) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("dist: quantile table value %d is %v; must be finite and > 0", i, x)
		}
		if i > 0 && !(p > ps[i-1]) {
			return nil, fmt.Errorf("dist: quantile table probability %d (%v) must be > probability %d (%v)", i, p, i-1, ps[i-1])
		}
		if i > 0 && !(x > xs[i-1]) {
			return nil, fmt.Errorf("dist: quantile table value %d (%v) must be > value %d (%v)", i, x, i-1, xs[i-1])
		}
		t.ps[i], t.xs[i] = p, x
		t.zs[i] = mathext.NormalQuantile(p)
		t.ls[i] = math.Log(x)
	}
	for i := range n - 1 {
		t.slope[i] = (t.ls[i+1] - t.ls[i]) / (t.zs[i+1] - t.zs[i])
		if !(t.slope[i] > 0) || math.IsInf(t.slope[i], 0) {
			// Probabilities or values too close to resolve in float64.
			return nil, fmt.Errorf("dist: quantile table points %d and %d are too close to interpolate", i, i+1)
		}
	}
	t.mean = t.integrateMean()
	return t, nil
}

// Points returns copies of the published probabilities and values.
func (t *QuantileTable) Points() (ps, xs []float64) {
	return append([]float64(nil), t.ps...), append([]float64(nil), t.xs...)
}

// segment returns the index i of the segment [zs[i], zs[i+1]] that holds v
// in the sorted knots k (zs or ls), clamped to the first and last segments.
func segment(k []float64, v float64) int {
	lo, hi := 0, len(k)-2
	for lo < hi { // smallest i in [0, n−2] with v ≤ k[i+1]
		mid := int(uint(lo+hi) >> 1)
		if v <= k[mid+1] {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// logQuantileZ returns ln Q(Φ(z)).
func (t *QuantileTable) logQuantileZ(z float64) float64 {
	i := segment(t.zs, z)
	return t.ls[i] + (z-t.zs[i])*t.slope[i]
}

// scoreOf returns the z with ln Q(Φ(z)) = ln x, for x > 0.
func (t *QuantileTable) scoreOf(x float64) float64 {
	l := math.Log(x)
	i := segment(t.ls, l)
	return t.zs[i] + (l-t.ls[i])/t.slope[i]
}

// Rand returns Quantile(u) for one uniform u in the open interval (0, 1)
// read from src (one Uint64).
func (t *QuantileTable) Rand(src rand.Source) float64 {
	return math.Exp(t.logQuantileZ(mathext.NormalQuantile(uniformOpen(src))))
}

// Support returns (0, +Inf).
func (t *QuantileTable) Support() (lo, hi float64) { return 0, math.Inf(1) }

// Mean returns E[X] = ∫₀¹ Q(p) dp. Because ln Q is linear in z on each
// segment, ln Q = aᵢ + σᵢz, the integral has the closed form
//
//	E[X] = Σᵢ e^(aᵢ + σᵢ²/2) · (Φ(hᵢ − σᵢ) − Φ(lᵢ − σᵢ)),
//
// summed over the segments [lᵢ, hᵢ] in z (the outer ones reaching ∓∞) — the
// partial expectations of the segment lognormals. It is exact up to the
// rounding of Φ; no quadrature is involved. It is computed once, by
// NewQuantileTable.
func (t *QuantileTable) Mean() float64 { return t.mean }

func (t *QuantileTable) integrateMean() float64 {
	nseg := len(t.slope)
	var sum float64
	for i := range nseg {
		s := t.slope[i]
		a := t.ls[i] - s*t.zs[i]
		lo, hi := t.zs[i], t.zs[i+1]
		if i == 0 {
			lo = math.Inf(-1)
		}
		if i == nseg-1 {
			hi = math.Inf(1)
		}
		sum += math.Exp(a+s*s/2) * normalMass(lo-s, hi-s)
	}
	return sum
}

// normalMass returns Φ(b) − Φ(a) for a ≤ b, using the tail on the side away
// from the mean to avoid cancellation.
func normalMass(a, b float64) float64 {
	if a > 0 { // both in the upper tail: S(a) − S(b)
		return 0.5*math.Erfc(a/math.Sqrt2) - 0.5*math.Erfc(b/math.Sqrt2)
	}
	return 0.5*math.Erfc(-b/math.Sqrt2) - 0.5*math.Erfc(-a/math.Sqrt2)
}

// CDF returns Φ(z(x)), where z(x) inverts the interpolation rule; 0 for
// x ≤ 0 and 1 at +Inf.
func (t *QuantileTable) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	if math.IsInf(x, 1) {
		return 1
	}
	return 0.5 * math.Erfc(-t.scoreOf(x)/math.Sqrt2)
}

// Survival returns 1 − Φ(z(x)) = ½·erfc(z(x)/√2), without cancellation in
// the upper tail; 1 for x ≤ 0 and 0 at +Inf.
func (t *QuantileTable) Survival(x float64) float64 {
	if x <= 0 {
		return 1
	}
	if math.IsInf(x, 1) {
		return 0
	}
	return 0.5 * math.Erfc(t.scoreOf(x)/math.Sqrt2)
}

// Quantile returns exp(interpolated ln x at z = Φ⁻¹(p)), which is exactly
// xs[i] at p = ps[i]; 0 at p = 0 and +Inf at p = 1. It panics when p is
// outside [0, 1].
func (t *QuantileTable) Quantile(p float64) float64 {
	checkP(p)
	switch p {
	case 0:
		return 0
	case 1:
		return math.Inf(1)
	}
	z := mathext.NormalQuantile(p)
	i := segment(t.zs, z)
	switch z {
	case t.zs[i]:
		return t.xs[i]
	case t.zs[i+1]:
		return t.xs[i+1]
	}
	return math.Exp(t.ls[i] + (z-t.zs[i])*t.slope[i])
}

// FromNormal returns the table's value at normal score z (the interpolation
// rule evaluated directly in z).
func (t *QuantileTable) FromNormal(z float64) float64 { return math.Exp(t.logQuantileZ(z)) }
