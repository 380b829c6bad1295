package dist

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Weibull is the Weibull distribution with shape k = K and scale λ = Lambda,
// density
//
//	f(x) = (k/λ)·(x/λ)^(k−1)·e^(−(x/λ)^k)   for x ≥ 0,
//
// survival e^(−(x/λ)^k) and mean λ·Γ(1 + 1/k). K = 1 is the exponential with
// mean λ; K < 1 has a heavier-than-exponential (but all-moments) tail. It
// delegates to gonum's distuv.Weibull. See
// https://en.wikipedia.org/wiki/Weibull_distribution.
type Weibull struct {
	// K is the shape k, dimensionless. Finite and > 0.
	K float64
	// Lambda is the scale λ, in the caller's units (seconds, tokens): the
	// 1 − 1/e ≈ 63.2nd percentile. Finite and > 0.
	Lambda float64
}

var _ Continuous = Weibull{}

func (w Weibull) d(src rand.Source) distuv.Weibull {
	return distuv.Weibull{K: w.K, Lambda: w.Lambda, Src: src}
}

// Rand returns Quantile(u) for one uniform u in [0, 1) read from src.
func (w Weibull) Rand(src rand.Source) float64 { return w.d(src).Rand() }

// Support returns (0, +Inf).
func (w Weibull) Support() (lo, hi float64) { return 0, math.Inf(1) }

// Mean returns Lambda·Γ(1 + 1/K).
func (w Weibull) Mean() float64 { return w.d(nil).Mean() }

// CDF returns 1 − e^(−(x/λ)^k) for x ≥ 0 and 0 below.
func (w Weibull) CDF(x float64) float64 { return w.d(nil).CDF(x) }

// Survival returns e^(−(x/λ)^k) for x ≥ 0 and 1 below.
func (w Weibull) Survival(x float64) float64 { return w.d(nil).Survival(x) }

// Quantile returns λ·(−ln(1 − p))^(1/k): 0 at p = 0 and +Inf at p = 1. It
// panics when p is outside [0, 1].
func (w Weibull) Quantile(p float64) float64 {
	checkP(p)
	return w.d(nil).Quantile(p)
}
