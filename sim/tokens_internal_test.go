package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hedgesim/hedgesim/dist"
)

// TestTokensIsRoundMin checks that tokens returns exactly
// math.Round(math.Min(x, MaxTokens)) for every x ≥ 0 — its sign of zero
// too — and 0 for negative and NaN draws: the halves and their
// neighbours one ulp away from 0 to 2²⁰ and near MaxTokens, the edges
// (0, −0, 1, MaxTokens, +Inf), and a million draws from a fixed seed spread
// over every magnitude from 2⁻²⁰ to 2³¹ (a uniform exponent, then a
// uniform fraction).
func TestTokensIsRoundMin(t *testing.T) {
	xs := []float64{0, math.Copysign(0, -1), 0.5, 1, 1.5, MaxTokens - 0.5, MaxTokens, MaxTokens + 0.5, 2 * MaxTokens, math.Inf(1), math.MaxFloat64, math.SmallestNonzeroFloat64}
	for _, base := range []float64{0, 1, 2, 3, 1 << 10, 1<<20 - 1, MaxTokens - 1, MaxTokens - 2} {
		for _, h := range []float64{0, 0.5, 1} {
			x := base + h
			xs = append(xs, x, math.Nextafter(x, 0), math.Nextafter(x, math.Inf(1)))
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 1_000_000 {
		xs = append(xs, math.Ldexp(1+rng.Float64(), rng.IntN(52)-20))
	}
	for _, x := range xs {
		got, want := tokens(x), math.Round(math.Min(x, MaxTokens))
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("tokens(%v) = %v, want math.Round(math.Min(x, MaxTokens)) = %v", x, got, want)
		}
	}
	for _, x := range []float64{-0.4, -1, -1.5, math.Inf(-1), math.NaN()} {
		if got := tokens(x); math.Float64bits(got) != 0 {
			t.Fatalf("tokens(%v) = %v, want 0", x, got)
		}
	}
}

// TestDrawTokensIsRand checks that drawTokens draws what tokens(rand)
// draws, bit for bit and from the same random numbers (the streams end in
// the same state), for uniform token counts — the path it takes without
// rand — and for the other kinds it hands to rand: 10 000 draws each
// from a fixed seed.
func TestDrawTokensIsRand(t *testing.T) {
	for _, d := range []dist.Dist{
		dist.Uniform{Min: 200, Max: 1200}, dist.Uniform{Min: 0, Max: 3}, dist.Uniform{Min: 0.25, Max: 0.75},
		dist.LogNormal{Mu: math.Log(300), Sigma: 0.5}, dist.Gamma{Alpha: 2, Beta: 0.01}, dist.Exponential{Rate: 0.01},
	} {
		s := newSampler(d)
		a, b := &splitMix{s: 7}, &splitMix{s: 7}
		for i := range 10_000 {
			got, want := s.drawTokens(a), tokens(s.rand(b))
			if math.Float64bits(got) != math.Float64bits(want) || a.s != b.s {
				t.Fatalf("%#v, draw %d: drawTokens = %v (state %x), tokens(rand) = %v (state %x)", d, i, got, a.s, want, b.s)
			}
		}
	}
}
