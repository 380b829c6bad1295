package dist

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Gamma is the gamma distribution with shape α = Alpha and rate β = Beta,
// density
//
//	f(x) = β^α / Γ(α) · x^(α−1) · e^(−βx)   for x > 0,
//
// mean α/β and variance α/β². Alpha = 1 is Exponential{Rate: Beta}; an integer
// Alpha is the Erlang distribution of the sum of Alpha exponential stages.
// It delegates to gonum's distuv.Gamma (Marsaglia–Tsang sampling, regularised
// incomplete gamma for CDF and Quantile). See
// https://en.wikipedia.org/wiki/Gamma_distribution.
type Gamma struct {
	// Alpha is the shape α, dimensionless. Finite and > 0; α < 1 puts a pole
	// at 0, α > 1 a mode at (α−1)/β.
	Alpha float64
	// Beta is the rate β, per unit of the variable (per second for a latency;
	// the scale 1/β is in seconds). Finite and > 0. Note: a rate, not a scale.
	Beta float64
}

var _ Continuous = Gamma{}

func (g Gamma) d(src rand.Source) distuv.Gamma {
	return distuv.Gamma{Alpha: g.Alpha, Beta: g.Beta, Src: src}
}

// Rand returns a draw. The number of values read from src varies (rejection
// sampling).
func (g Gamma) Rand(src rand.Source) float64 { return g.d(src).Rand() }

// Support returns (0, +Inf).
func (g Gamma) Support() (lo, hi float64) { return 0, math.Inf(1) }

// Mean returns Alpha/Beta.
func (g Gamma) Mean() float64 { return g.d(nil).Mean() }

// CDF returns P(α, βx), the regularised lower incomplete gamma function, for
// x ≥ 0 and 0 below.
func (g Gamma) CDF(x float64) float64 { return g.d(nil).CDF(x) }

// Survival returns Q(α, βx), the regularised upper incomplete gamma function,
// for x ≥ 0 and 1 below.
func (g Gamma) Survival(x float64) float64 { return g.d(nil).Survival(x) }

// Quantile returns P⁻¹(α, p)/β: 0 at p = 0 and +Inf at p = 1. It panics when
// p is outside [0, 1].
func (g Gamma) Quantile(p float64) float64 {
	checkP(p)
	return g.d(nil).Quantile(p)
}
