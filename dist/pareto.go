package dist

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Pareto is the Pareto (type I) distribution with scale x_m = Xm and tail
// index α = Alpha, density
//
//	f(x) = α·x_mᵅ / x^(α+1)   for x ≥ x_m,
//
// survival (x_m/x)^α. Its mean α·x_m/(α−1) exists only for α > 1 and its
// variance only for α > 2: it models power-law tails such as a rare stall.
// It delegates to gonum's distuv.Pareto. See
// https://en.wikipedia.org/wiki/Pareto_distribution.
type Pareto struct {
	// Xm is the scale x_m, the smallest value taken, in the caller's units
	// (seconds, tokens). Finite and > 0.
	Xm float64
	// Alpha is the tail index α, dimensionless: smaller is heavier. Finite
	// and > 0.
	Alpha float64
}

var _ Continuous = Pareto{}

func (p Pareto) d(src rand.Source) distuv.Pareto {
	return distuv.Pareto{Xm: p.Xm, Alpha: p.Alpha, Src: src}
}

// Rand returns x_m·e^(E/α) for a standard exponential E drawn by the
// ziggurat method of rand.Rand.ExpFloat64.
func (p Pareto) Rand(src rand.Source) float64 { return p.d(src).Rand() }

// Support returns (Xm, +Inf).
func (p Pareto) Support() (lo, hi float64) { return p.Xm, math.Inf(1) }

// Mean returns α·x_m/(α−1) for α > 1 and +Inf for α ≤ 1.
func (p Pareto) Mean() float64 { return p.d(nil).Mean() }

// CDF returns 1 − (x_m/x)^α for x ≥ x_m and 0 below.
func (p Pareto) CDF(x float64) float64 { return p.d(nil).CDF(x) }

// Survival returns (x_m/x)^α for x ≥ x_m and 1 below.
func (p Pareto) Survival(x float64) float64 { return p.d(nil).Survival(x) }

// Quantile returns x_m/(1 − prob)^(1/α): x_m at prob = 0 and +Inf at
// prob = 1. It panics when prob is outside [0, 1].
func (p Pareto) Quantile(prob float64) float64 {
	checkP(prob)
	return p.d(nil).Quantile(prob)
}
