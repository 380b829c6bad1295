package sim

import (
	"math"
	"math/rand/v2"
	"sync"

	"github.com/hedgesim/hedgesim/dist"
)

// Draws from the exponential, lognormal and gamma distributions without
// an interface call: each takes the same numbers from the stream and
// gives the same value as the distribution's Rand (gonum's distuv, over
// math/rand/v2), which TestSamplerMatchesRand checks draw by draw.

// samplerOf returns the sampler of an exponential, a lognormal or a gamma
// of shape ≥ 1, and false for any other distribution.
func samplerOf(d dist.Dist) (sampler, bool) {
	switch x := d.(type) {
	case dist.Exponential:
		// distuv.Exponential.Rand: ExpFloat64 ÷ the rate.
		return sampler{kind: sampleExp, hi: x.Rate, exp: zigguratExp()}, true
	case dist.LogNormal:
		// distuv.LogNormal.Rand: e^(Z·σ + μ), Z by NormFloat64.
		return sampler{kind: sampleLogNormal, lo: x.Mu, hi: x.Sigma, norm: zigguratNorm()}, true
	case dist.Gamma:
		switch {
		case x.Alpha == 1 && x.Beta > 0:
			// distuv.Gamma.Rand at shape 1: ExpFloat64 ÷ the rate.
			return sampler{kind: sampleExp, hi: x.Beta, exp: zigguratExp()}, true
		case x.Alpha > 1 && x.Beta > 0:
			// Marsaglia and Tsang's method ("A simple method for
			// generating gamma variables", ACM TOMS 26(3), 2000) with
			// d = α − 1/3 and c = 1/(3√d), as distuv.Gamma.Rand computes
			// them for α ≥ 1.
			d := x.Alpha - 1.0/3
			return sampler{kind: sampleGamma, lo: d, hi: x.Beta, c: 1 / (3 * math.Sqrt(d)), norm: zigguratNorm()}, true
		}
	}
	return sampler{}, false
}

// gamma draws from the gamma distribution of s (sampleGamma, shape > 1)
// by Marsaglia and Tsang's rejection: a normal x, v = (1 + c·x)³, a
// uniform u; accept d·v when u < 1 − 0.0331·x⁴ (the squeeze) or
// ln u < x²/2 + d·(1 − v + ln v), and draw again otherwise. The result is
// divided by the rate.
func (s *sampler) gamma(src *splitMix) float64 {
	d, c, b := s.lo, s.c, s.hi
	for {
		x, ok := s.norm.first(src.Uint64()) // normFloat64, its first step inline
		if !ok {
			x = src.normSlow()
		}
		v := 1 + x*c
		if v <= 0.0 {
			continue
		}
		v = v * v * v
		u := randFloat64(src)
		if u < 1.0-0.0331*(x*x)*(x*x) {
			return d * v / b
		}
		if math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v / b
		}
	}
}

// gammaFirst is gamma's first round when it accepts by the squeeze, the
// commonest case (about 96 % of draws at shape 2): the normal's
// ziggurat's first step, v > 0 and u below the squeeze. It takes both
// numbers from a copy of src's state and stores it back only then, so
// that when it reports false src is as it was and gamma draws from the
// start. Its values and operations are gamma's; it calls nothing, so it
// keeps nothing on the stack.
func (s *sampler) gammaFirst(src *splitMix) (float64, bool) {
	st := src.s + 0x9e3779b97f4a7c15 // Uint64's steps, on the copy
	z := st
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	x, ok := s.norm.first(z ^ (z >> 31))
	v := 1 + x*s.c
	if !ok || v <= 0.0 {
		return 0, false
	}
	v = v * v * v
	st += 0x9e3779b97f4a7c15 // randFloat64's draw
	z = st
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	u := float64((z^(z>>31))<<11>>11) / (1 << 53)
	if !(u < 1.0-0.0331*(x*x)*(x*x)) {
		return 0, false
	}
	src.s = st
	return s.lo * v / s.hi, true
}

// fromNormal returns dist.FromNormal(d, z), s being d's sampler: for a
// lognormal, its e^(μ + σ·z) (LogNormal.FromNormal's formula) without an
// interface call; for any other kind, dist.FromNormal itself.
func (s *sampler) fromNormal(d dist.Continuous, z float64) float64 {
	if s.kind == sampleLogNormal {
		return math.Exp(s.lo + s.hi*z)
	}
	return dist.FromNormal(d, z)
}

// normFloat64 returns what rand.New(x).NormFloat64() returns, leaving x
// where it does. math/rand/v2 draws by Marsaglia and Tsang's ziggurat:
// one number u, split into a signed j = its low 32 bits and a layer i =
// bits 32–38, and j·w[i] when |j| < k[i] — about 99 % of draws. That
// first step is done here; any other draw steps x back and calls
// math/rand/v2 itself. z is zigguratNorm().
// The hottest callers (gamma, and sampler.rand's lognormal) take the
// first step inline, by z.first, and call normSlow for the rest.
func (x *splitMix) normFloat64(z *zigguratN) float64 {
	if v, ok := z.first(x.Uint64()); ok {
		return v
	}
	return x.normSlow()
}

// first is the ziggurat's first step on the number u just drawn: j·w[i],
// and whether |j| < k[i] (otherwise the draw is normSlow's).
func (z *zigguratN) first(u uint64) (float64, bool) {
	j, i := int32(u), uint8(u>>32)&0x7f
	a := uint32(j)
	if j < 0 {
		a = uint32(-j)
	}
	return float64(j) * z.w[i], a < z.k[i]
}

// normSlow is normFloat64 past the ziggurat's first step: it steps x
// back over the number drawn and draws by math/rand/v2.
func (x *splitMix) normSlow() float64 {
	x.s -= 0x9e3779b97f4a7c15
	return rand.New(x).NormFloat64()
}

// first is the exponential ziggurat's first step on the number u just
// drawn, as expFloat64 takes it: j·w[i], and whether j < k[i] (otherwise
// the draw is expSlow's). Callers on the hot path take it inline.
func (z *ziggurat) first(u uint64) (float64, bool) {
	j, i := uint32(u), uint8(u>>32)
	return float64(j) * z.w[i], j < z.k[i]
}

// expSlow is expFloat64 past the ziggurat's first step: it steps x back
// over the number drawn and draws by math/rand/v2.
func (x *splitMix) expSlow() float64 {
	x.s -= 0x9e3779b97f4a7c15
	return rand.New(x).ExpFloat64()
}

// zigguratN is the first step of math/rand/v2's normal ziggurat: draw
// j·w[i] when |j| < k[i].
type zigguratN struct {
	k [128]uint32
	w [128]float64
}

// zigguratNorm reads the first step's tables off math/rand/v2's own
// NormFloat64, once, as zigguratExp does for ExpFloat64: w[i] is its draw
// at layer i and j = 1, and k[i] the least j > 0 whose draw takes more
// than one number (found by binary search; the predicate |j| < k[i] is
// monotone in j). A layer where j = 1 already takes more, or where no
// j < 2³¹ does, is left to math/rand/v2 (k[i] = 0).
var zigguratNorm = sync.OnceValue(func() *zigguratN {
	z := new(zigguratN)
	readZiggurat(z.k[:], z.w[:], 1<<31, (*rand.Rand).NormFloat64)
	return z
})
