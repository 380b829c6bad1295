package dist

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Mixture is a finite mixture: with probability Weights[i] a draw comes from
// Components[i]. Its distribution function and density are the weighted sums
//
//	F(x) = Σᵢ wᵢ·Fᵢ(x),   f(x) = Σᵢ wᵢ·fᵢ(x),
//
// and its mean is Σᵢ wᵢ·μᵢ. A two-component lognormal mixture is the usual
// model of a latency with a fast mode and a slow (cold-start, queued) mode.
// See https://en.wikipedia.org/wiki/Mixture_distribution.
//
// Build one with NewMixture, which checks and normalises the weights and
// precomputes their cumulative sums for Rand; a literal with weights summing
// to 1 also works, with a linear search in Rand. A Mixture must not be
// modified after construction.
type Mixture struct {
	// Weights are the mixing probabilities wᵢ, dimensionless: each > 0 and
	// finite, summing to 1 (NewMixture normalises them). One per component.
	Weights []float64
	// Components are the mixed distributions, all in the same units
	// (seconds, tokens).
	Components []Continuous

	// cum[i] = w₀ + … + wᵢ, with cum[len−1] forced to exactly 1.
	cum []float64
}

var _ Continuous = (*Mixture)(nil)

// NewMixture returns the mixture of comps with the given weights, which are
// divided by their sum. It returns an error unless there is at least one
// component, one weight per component, and every weight is finite and > 0.
// The slices are copied.
func NewMixture(weights []float64, comps []Continuous) (*Mixture, error) {
	if len(comps) == 0 {
		return nil, errors.New("dist: mixture needs at least one component")
	}
	if len(weights) != len(comps) {
		return nil, fmt.Errorf("dist: mixture has %d weights for %d components", len(weights), len(comps))
	}
	var sum float64
	for i, w := range weights {
		if !(w > 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("dist: mixture weight %d is %v; must be finite and > 0", i, w)
		}
		if comps[i] == nil {
			return nil, fmt.Errorf("dist: mixture component %d is nil", i)
		}
		sum += w
	}
	if math.IsInf(sum, 0) {
		return nil, errors.New("dist: mixture weights overflow when summed")
	}
	m := &Mixture{
		Weights:    make([]float64, len(weights)),
		Components: append([]Continuous(nil), comps...),
		cum:        make([]float64, len(weights)),
	}
	var c float64
	for i, w := range weights {
		m.Weights[i] = w / sum
		c += m.Weights[i]
		m.cum[i] = c
	}
	m.cum[len(m.cum)-1] = 1
	return m, nil
}

// pick returns the index i of the component selected by u in [0, 1): the
// smallest i with u < cum[i], found by binary search in O(log n). For a
// Mixture written as a literal (no cum), it accumulates Weights in O(n).
func (m *Mixture) pick(u float64) int {
	if len(m.cum) != len(m.Weights) {
		var c float64
		for i, w := range m.Weights {
			c += w
			if u < c {
				return i
			}
		}
		return len(m.Weights) - 1
	}
	lo, hi := 0, len(m.cum)-1
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if u < m.cum[mid] {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// Rand reads one uniform from src to choose a component (component i with
// probability Weights[i]) and returns that component's Rand(src).
func (m *Mixture) Rand(src rand.Source) float64 {
	return m.Components[m.pick(uniform01(src))].Rand(src)
}

// Support returns the smallest lower and the largest upper end of the
// components' supports.
func (m *Mixture) Support() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, c := range m.Components {
		l, h := c.Support()
		lo = math.Min(lo, l)
		hi = math.Max(hi, h)
	}
	return lo, hi
}

// Mean returns Σᵢ wᵢ·μᵢ (+Inf if any component's mean is +Inf).
func (m *Mixture) Mean() float64 {
	var s float64
	for i, c := range m.Components {
		s += m.Weights[i] * c.Mean()
	}
	return s
}

// CDF returns Σᵢ wᵢ·Fᵢ(x).
func (m *Mixture) CDF(x float64) float64 {
	var s float64
	for i, c := range m.Components {
		s += m.Weights[i] * c.CDF(x)
	}
	return math.Min(s, 1)
}

// Survival returns Σᵢ wᵢ·Sᵢ(x), which keeps the components' tail precision.
func (m *Mixture) Survival(x float64) float64 {
	var s float64
	for i, c := range m.Components {
		s += m.Weights[i] * c.Survival(x)
	}
	return math.Min(s, 1)
}

// Quantile returns the smallest x with CDF(x) ≥ p, found numerically: the
// root lies between the smallest and the largest of the components'
// p-quantiles (at the smallest each Fᵢ ≤ p, at the largest each Fᵢ ≥ p), and
// is located by bisection over the float64 values in that bracket down to one
// ulp, with at most 64 evaluations of CDF. Quantile(0) and Quantile(1) are
// the ends of Support. It panics when p is outside [0, 1].
func (m *Mixture) Quantile(p float64) float64 {
	checkP(p)
	if p == 0 || p == 1 {
		lo, hi := m.Support()
		if p == 0 {
			return lo
		}
		return hi
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range m.Components {
		q := c.Quantile(p)
		lo = math.Min(lo, q)
		hi = math.Max(hi, q)
	}
	if lo == hi {
		return lo
	}
	// The mixture's p-quantile lies in [lo, hi], but rounding in the
	// components' quantiles and CDFs can leave CDF(hi) a hair below p. Widen
	// with a doubling step, at most maxWiden times; a CDF that still does
	// not reach p (its sum rounds below p everywhere) cannot bracket it, and
	// hi, the largest component quantile, is returned.
	if m.CDF(hi) < p {
		top, step := hi, math.Max(math.Abs(hi)*1e-12, math.SmallestNonzeroFloat64)
		for i := 0; ; i++ {
			if i == maxWiden || math.IsInf(hi, 1) {
				return top
			}
			hi = math.Nextafter(hi, math.Inf(1)) + step
			step *= 2
			if m.CDF(hi) >= p {
				break
			}
		}
	}
	return invert(m.CDF, p, lo, hi)
}

// maxWiden bounds Mixture.Quantile's widening of its bracket: a step that
// starts at 10⁻¹² of the bracket's top and doubles reaches 2⁶⁴·10⁻¹² ≈ 1.8·10⁷
// times it.
const maxWiden = 64
