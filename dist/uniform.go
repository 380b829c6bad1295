package dist

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Uniform is the continuous uniform distribution on [Min, Max], with density
//
//	f(x) = 1 / (Max − Min)   for Min ≤ x ≤ Max,
//
// and 0 elsewhere; mean (Min + Max)/2. It delegates to gonum's
// distuv.Uniform. See https://en.wikipedia.org/wiki/Continuous_uniform_distribution.
type Uniform struct {
	// Min is the lower bound, in the caller's units (seconds, tokens).
	// Finite, and Min < Max.
	Min float64
	// Max is the upper bound, in the same units as Min. Finite, and Max > Min.
	Max float64
}

var _ Continuous = Uniform{}

func (u Uniform) d(src rand.Source) distuv.Uniform {
	return distuv.Uniform{Min: u.Min, Max: u.Max, Src: src}
}

// Rand returns a draw in [Min, Max), consuming one Uint64 from src.
func (u Uniform) Rand(src rand.Source) float64 { return u.d(src).Rand() }

// Support returns (Min, Max).
func (u Uniform) Support() (lo, hi float64) { return u.Min, u.Max }

// Mean returns (Min + Max)/2.
func (u Uniform) Mean() float64 { return u.d(nil).Mean() }

// CDF returns (x − Min)/(Max − Min), clamped to [0, 1].
func (u Uniform) CDF(x float64) float64 { return u.d(nil).CDF(x) }

// Survival returns (Max − x)/(Max − Min), clamped to [0, 1].
func (u Uniform) Survival(x float64) float64 { return u.d(nil).Survival(x) }

// Quantile returns Min + p·(Max − Min). It panics when p is outside [0, 1].
func (u Uniform) Quantile(p float64) float64 {
	checkP(p)
	return u.d(nil).Quantile(p)
}
