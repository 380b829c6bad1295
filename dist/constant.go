package dist

import "math/rand/v2"

// Constant is the degenerate distribution with all its mass at Value:
//
//	P(X = Value) = 1.
//
// It models a fixed delay or a fixed token count. Rand consumes no
// randomness from its Source.
type Constant struct {
	// Value is the only value taken, in the caller's units (seconds, tokens).
	// Any finite number.
	Value float64
}

var _ Continuous = Constant{}

// Rand returns Value; src is not used.
func (c Constant) Rand(src rand.Source) float64 { return c.Value }

// Support returns (Value, Value).
func (c Constant) Support() (lo, hi float64) { return c.Value, c.Value }

// Mean returns Value.
func (c Constant) Mean() float64 { return c.Value }

// CDF returns 0 for x < Value and 1 for x ≥ Value.
func (c Constant) CDF(x float64) float64 {
	if x < c.Value {
		return 0
	}
	return 1
}

// Survival returns 1 for x < Value and 0 for x ≥ Value.
func (c Constant) Survival(x float64) float64 {
	if x < c.Value {
		return 1
	}
	return 0
}

// Quantile returns Value for every p in [0, 1]. It panics when p is outside
// [0, 1].
func (c Constant) Quantile(p float64) float64 {
	checkP(p)
	return c.Value
}
