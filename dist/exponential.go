package dist

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Exponential is the exponential distribution with rate λ = Rate, density
//
//	f(x) = λ·e^(−λx)   for x ≥ 0,
//
// mean 1/λ and survival e^(−λx). It is memoryless: the waiting time of a
// Poisson process. It delegates to gonum's distuv.Exponential.
// See https://en.wikipedia.org/wiki/Exponential_distribution.
type Exponential struct {
	// Rate is λ, in events per unit of the variable (per second for a
	// latency, so the mean is 1/Rate seconds). Finite and > 0.
	Rate float64
}

var _ Continuous = Exponential{}

func (e Exponential) d(src rand.Source) distuv.Exponential {
	return distuv.Exponential{Rate: e.Rate, Src: src}
}

// Rand returns a draw, using the ziggurat method of rand.Rand.ExpFloat64.
func (e Exponential) Rand(src rand.Source) float64 { return e.d(src).Rand() }

// Support returns (0, +Inf).
func (e Exponential) Support() (lo, hi float64) { return 0, math.Inf(1) }

// Mean returns 1/Rate.
func (e Exponential) Mean() float64 { return e.d(nil).Mean() }

// CDF returns 1 − e^(−Rate·x) for x ≥ 0 and 0 below.
func (e Exponential) CDF(x float64) float64 { return e.d(nil).CDF(x) }

// Survival returns e^(−Rate·x) for x ≥ 0 and 1 below.
func (e Exponential) Survival(x float64) float64 { return e.d(nil).Survival(x) }

// Quantile returns −ln(1 − p)/Rate (+Inf at p = 1). It panics when p is
// outside [0, 1].
func (e Exponential) Quantile(p float64) float64 {
	checkP(p)
	return e.d(nil).Quantile(p)
}
