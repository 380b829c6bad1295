package dist

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// z95 is Φ⁻¹(0.95), the standard-normal score of the 95th percentile.
const z95 = 1.6448536269514722

// LogNormal is the lognormal distribution: ln X is normal with mean Mu and
// standard deviation Sigma. Its density is
//
//	f(x) = 1/(x·Sigma·√(2π)) · exp(−(ln x − Mu)² / (2·Sigma²))   for x > 0,
//
// its median e^Mu, its mean e^(Mu + Sigma²/2) and its p-quantile
// e^(Mu + Sigma·Φ⁻¹(p)). It is the usual model for request latency and output
// length. It delegates to gonum's distuv.LogNormal, except that Survival is
// computed as ½·erfc((ln x − Mu)/(Sigma·√2)) so that tail probabilities keep
// their relative precision. See https://en.wikipedia.org/wiki/Log-normal_distribution.
type LogNormal struct {
	// Mu is the mean of ln X, where X is in the caller's units (seconds,
	// tokens); e^Mu is the median. Any finite number.
	Mu float64
	// Sigma is the standard deviation of ln X, dimensionless (a log-scale
	// spread: p95/median = e^(1.645·Sigma)). Finite and > 0.
	Sigma float64
}

var _ Continuous = LogNormal{}

// LogNormalFromMedianP95 returns the lognormal with the given median and 95th
// percentile (same units, 0 < median < p95, both finite):
//
//	Mu = ln(median),  Sigma = ln(p95/median) / Φ⁻¹(0.95),
//
// with Φ⁻¹(0.95) = 1.6448536269514722. It returns an error for other inputs.
func LogNormalFromMedianP95(median, p95 float64) (LogNormal, error) {
	if !(median > 0) || math.IsInf(median, 0) {
		return LogNormal{}, fmt.Errorf("dist: lognormal median %v must be finite and > 0", median)
	}
	if !(p95 > median) || math.IsInf(p95, 0) {
		return LogNormal{}, fmt.Errorf("dist: lognormal p95 %v must be finite and > median (%v)", p95, median)
	}
	sigma := math.Log(p95/median) / z95
	if !(sigma > 0) {
		// p95 and median are adjacent floats: no usable spread.
		return LogNormal{}, errors.New("dist: lognormal p95 and median are too close to give Sigma > 0")
	}
	return LogNormal{Mu: math.Log(median), Sigma: sigma}, nil
}

func (l LogNormal) d(src rand.Source) distuv.LogNormal {
	return distuv.LogNormal{Mu: l.Mu, Sigma: l.Sigma, Src: src}
}

// Rand returns e^(Mu + Sigma·Z) for a standard normal Z drawn by the ziggurat
// method of rand.Rand.NormFloat64.
func (l LogNormal) Rand(src rand.Source) float64 { return l.d(src).Rand() }

// Support returns (0, +Inf).
func (l LogNormal) Support() (lo, hi float64) { return 0, math.Inf(1) }

// Mean returns e^(Mu + Sigma²/2).
func (l LogNormal) Mean() float64 { return l.d(nil).Mean() }

// CDF returns Φ((ln x − Mu)/Sigma) for x > 0 and 0 for x ≤ 0.
func (l LogNormal) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return l.d(nil).CDF(x)
}

// Survival returns 1 − Φ((ln x − Mu)/Sigma) for x > 0 and 1 for x ≤ 0,
// computed with erfc, without cancellation in the upper tail.
func (l LogNormal) Survival(x float64) float64 {
	if x <= 0 {
		return 1
	}
	return 0.5 * math.Erfc((math.Log(x)-l.Mu)/(math.Sqrt2*l.Sigma))
}

// Quantile returns e^(Mu + Sigma·Φ⁻¹(p)): 0 at p = 0 and +Inf at p = 1. It
// panics when p is outside [0, 1].
func (l LogNormal) Quantile(p float64) float64 {
	checkP(p)
	return l.d(nil).Quantile(p)
}

// FromNormal returns e^(Mu + Sigma·z), the lognormal at normal score z.
func (l LogNormal) FromNormal(z float64) float64 { return math.Exp(l.Mu + l.Sigma*z) }
