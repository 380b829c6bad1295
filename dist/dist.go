// Package dist provides the latency and size distributions that hedgesim
// scenarios are built from: constant, uniform, exponential, lognormal, gamma,
// Weibull, Pareto, finite mixtures, empirical samples and quantile tables.
//
// Every distribution samples from an explicit math/rand/v2 Source, so a
// simulation is reproducible from its seed. Where gonum's stat/distuv has the
// distribution, the implementation delegates to it.
//
// Units are the caller's: latency distributions are in seconds, token
// distributions in tokens, decode speeds in tokens per second.
//
// The parametric distributions (Constant, Uniform, Exponential, LogNormal,
// Gamma, Weibull, Pareto) are value types written as literals; Mixture,
// Empirical and QuantileTable are built by NewMixture, NewEmpirical and
// NewQuantileTable, which validate their input. A scenario file describes a
// distribution with a Spec, whose Build method validates it and reports
// problems as *SpecError. Sampling does not allocate.
package dist

import (
	"math"
	"math/rand/v2"
)

// Dist is a univariate distribution that can be sampled.
type Dist interface {
	// Rand returns one draw, consuming randomness only from src.
	Rand(src rand.Source) float64
	// Support returns the smallest and largest values Rand can return
	// (math.Inf(1) for an unbounded upper end).
	Support() (lo, hi float64)
	// Mean returns the expected value (math.Inf(1) when it does not exist).
	Mean() float64
}

// Continuous is a Dist with a closed-form or tabulated distribution function.
// All distributions in this package implement it.
type Continuous interface {
	Dist
	// CDF returns P(X ≤ x).
	CDF(x float64) float64
	// Survival returns P(X > x) = 1 − CDF(x), computed without cancellation
	// where the underlying implementation allows.
	Survival(x float64) float64
	// Quantile returns the smallest x with CDF(x) ≥ p, for p in (0, 1];
	// Quantile(0) is the lower end of Support and Quantile(1) the upper end
	// (+Inf for an unbounded distribution). It panics when p is outside
	// [0, 1] or NaN.
	Quantile(p float64) float64
}

// NormalScorer is implemented by distributions that are a monotone function
// of a standard normal variable, X = Q(Φ(z)). FromNormal computes Q(Φ(z))
// without the round trip through a probability, which is both faster and
// exact in the far tails; a Gaussian copula uses it when it can.
type NormalScorer interface {
	FromNormal(z float64) float64
}

// FromNormal returns Quantile(Φ(z)) for d, using NormalScorer when d has it.
func FromNormal(d Continuous, z float64) float64 {
	if n, ok := d.(NormalScorer); ok {
		return n.FromNormal(z)
	}
	p := 0.5 * math.Erfc(-z/math.Sqrt2)
	return d.Quantile(math.Min(math.Max(p, 1e-16), 1-1e-16))
}
