package sim

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
)

// TestSamplerMatchesRand: a sampler draws exactly what the distribution's
// Rand draws from the same stream, and leaves the stream where Rand does.
func TestSamplerMatchesRand(t *testing.T) {
	mix, err := dist.NewMixture([]float64{0.2, 0.5, 0.3}, []dist.Continuous{
		dist.Constant{Value: 0.05}, dist.Uniform{Min: 3, Max: 19}, dist.LogNormal{Mu: -1, Sigma: 0.5},
	})
	if err != nil {
		t.Fatal(err)
	}
	lit := &dist.Mixture{Weights: []float64{0.5, 0.5}, Components: []dist.Continuous{dist.Uniform{Min: 0.1, Max: 0.3}, mix}}
	// Mixtures of uniforms only: guard-check's, and one with a weight of 0
	// and uneven weights.
	bimodal := &dist.Mixture{Weights: []float64{0.5, 0.5}, Components: []dist.Continuous{dist.Uniform{Min: 0.1, Max: 0.3}, dist.Uniform{Min: 3, Max: 19}}}
	uneven := &dist.Mixture{Weights: []float64{0.1, 0, 0.6, 0.3}, Components: []dist.Continuous{
		dist.Uniform{Min: 0, Max: 1}, dist.Uniform{Min: 5, Max: 6}, dist.Uniform{Min: 2, Max: 2.5}, dist.Uniform{Min: 10, Max: 40}}}
	for _, d := range []dist.Dist{
		dist.Constant{Value: 400}, dist.Uniform{Min: 0.1, Max: 0.3}, dist.Exponential{Rate: 2},
		dist.LogNormal{Mu: 0, Sigma: 1}, mix, lit, bimodal, uneven,
		// Gammas: Marsaglia and Tsang's method (shape > 1, one near 1 and
		// one where the squeeze fails more often), shape 1 (exponential),
		// and shapes below 1 (distuv's own Rand).
		dist.Gamma{Alpha: 2, Beta: 4}, dist.Gamma{Alpha: 1.0000001, Beta: 0.5}, dist.Gamma{Alpha: 40, Beta: 3},
		dist.Gamma{Alpha: 1, Beta: 3}, dist.Gamma{Alpha: 0.5, Beta: 1}, dist.Gamma{Alpha: 0.1, Beta: 1},
		dist.Exponential{Rate: 0.25}, dist.LogNormal{Mu: math.Log(0.3), Sigma: 0.6},
	} {
		s := newSampler(d)
		a, b := splitMix{s: 42}, splitMix{s: 42}
		for i := range 10_000 {
			x, y := s.rand(&a), d.Rand(&b)
			if x != y || a != b {
				t.Fatalf("%T draw %d: sampler %v (state %x), Rand %v (state %x)", d, i, x, a.s, y, b.s)
			}
		}
	}
}

// TestSamplerFromNormal: fromNormal gives what dist.FromNormal gives, bit
// for bit, for a lognormal (its own formula) and the kinds it hands to
// dist.FromNormal, over normal scores from the ziggurat's draws and the
// tails.
func TestSamplerFromNormal(t *testing.T) {
	mix, err := dist.NewMixture([]float64{0.4, 0.6}, []dist.Continuous{
		dist.LogNormal{Mu: -0.8, Sigma: 0.05}, dist.LogNormal{Mu: 2.3, Sigma: 2.15},
	})
	if err != nil {
		t.Fatal(err)
	}
	zs := []float64{0, -0.0, 1, -1, 8.5, -8.5, 1e-300, 40, -40}
	src := splitMix{s: 99}
	for range 10_000 {
		zs = append(zs, src.normFloat64(zigguratNorm()))
	}
	for _, d := range []dist.Continuous{
		dist.LogNormal{Mu: math.Log(0.3), Sigma: 0.6}, dist.LogNormal{Mu: -1.64528, Sigma: 0.0260248},
		dist.LogNormal{Mu: 5.05519, Sigma: 0.0812255}, dist.Exponential{Rate: 2}, dist.Gamma{Alpha: 2, Beta: 4}, mix,
	} {
		s := newSampler(d)
		for _, z := range zs {
			if x, y := s.fromNormal(d, z), dist.FromNormal(d, z); math.Float64bits(x) != math.Float64bits(y) {
				t.Fatalf("%#v at z = %v: fromNormal %v, dist.FromNormal %v", d, z, x, y)
			}
		}
	}
}

// TestSamplerTokens: tokens draws what tokens(Rand) draws — a constant's
// count rounded once, others per draw — and leaves the stream where Rand
// does.
func TestSamplerTokens(t *testing.T) {
	for _, d := range []dist.Dist{
		dist.Constant{Value: 400}, dist.Constant{Value: 2.5}, dist.Constant{Value: -3}, dist.Constant{Value: math.NaN()},
		dist.Uniform{Min: 10, Max: 20}, dist.LogNormal{Mu: 5, Sigma: 1},
	} {
		s := newSampler(d)
		a, b := splitMix{s: 7}, splitMix{s: 7}
		for i := range 1000 {
			x, y := s.tokens(&a), tokens(d.Rand(&b))
			if x != y || a != b {
				t.Fatalf("%#v draw %d: tokens %v (state %x), tokens(Rand) %v (state %x)", d, i, x, a.s, y, b.s)
			}
		}
	}
}

// TestSkip3: skip3 leaves a stream where three calls of Uint64 do.
func TestSkip3(t *testing.T) {
	for _, s := range []uint64{0, 1, 0x9e3779b97f4a7c15, ^uint64(0), 0x123456789abcdef} {
		a, b := splitMix{s: s}, splitMix{s: s}
		a.skip3()
		b.Uint64()
		b.Uint64()
		b.Uint64()
		if a != b || a.Uint64() != b.Uint64() {
			t.Errorf("state %x: skip3 gives %x, three draws %x", s, a.s, b.s)
		}
	}
}

// TestSecondsShortPath: seconds rounds to the nanosecond, half up, and
// saturates at maxDelay, on both sides of the bound of its short path.
func TestSecondsShortPath(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want time.Duration
	}{
		{0, 0}, {1e-9, 1}, {0.4e-9, 0}, {0.5e-9, 1}, {1.5, 1500 * time.Millisecond}, {-1e-9, -1}, {-2.5e-9, -3},
		{1e8, time.Duration(1e17)}, {2e8, time.Duration(2e17)},
		{3e8, maxDelay}, {math.Inf(1), maxDelay}, {math.NaN(), maxDelay},
	} {
		if got := seconds(c.s); got != c.want {
			t.Errorf("seconds(%v) = %d, want %d", c.s, got, c.want)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 100_000 {
		s := r.Float64() * math.Pow(10, float64(r.IntN(20)-9))
		if i < 2 {
			s = []float64{math.Nextafter(1e8, 0), 1e8}[i]
		}
		if got, want := seconds(s), secondsRare(s); got != want {
			t.Fatalf("seconds(%v) = %d, secondsRare %d", s, got, want)
		}
	}
}

// TestExpFloat64MatchesRand: expFloat64 draws exactly what math/rand/v2's
// ExpFloat64 draws from the same stream and leaves the stream where it
// does, on random states and at both sides of every layer's bound, and
// takes its own first step on about 99 % of draws.
func TestExpFloat64MatchesRand(t *testing.T) {
	z := zigguratExp()
	check := func(s uint64) bool {
		a, b := splitMix{s: s}, splitMix{s: s}
		x, y := a.expFloat64(z), rand.New(&b).ExpFloat64()
		if x != y || a != b {
			t.Fatalf("state %x: expFloat64 %v (state %x), ExpFloat64 %v (state %x)", s, x, a.s, y, b.s)
		}
		return true
	}
	for i := range uint64(1_000_000) {
		check(i * 0x2545f4914f6cdd1d)
	}
	// States whose first number is (i, j) for j at the bound of layer i
	// and next to it: the state before a number is its inverse image.
	fast := 0
	for i := range 256 {
		if z.k[i] > 0 {
			fast++
		}
		for _, j := range []uint32{0, 1, z.k[i] - 1, z.k[i], z.k[i] + 1, ^uint32(0)} {
			u := uint64(i)<<32 | uint64(j)
			if g := (splitMix{s: unmix(u) - 0x9e3779b97f4a7c15}); g.Uint64() != u {
				t.Fatalf("unmix(%x) is not the state before %x", u, u)
			}
			check(unmix(u) - 0x9e3779b97f4a7c15)
		}
	}
	if fast < 250 {
		t.Errorf("only %d of 256 layers take the first step", fast)
	}
}

// unmix inverts splitMix's finaliser: the state whose next number is x.
func unmix(x uint64) uint64 {
	x ^= x>>31 ^ x>>62
	x *= 0x319642b2d24d8ec3 // the inverse of 0x94d049bb133111eb mod 2⁶⁴
	x ^= x>>27 ^ x>>54
	x *= 0x96de1b173f119089 // the inverse of 0xbf58476d1ce4e5b9
	x ^= x>>30 ^ x>>60
	return x
}

// TestNormFloat64: normFloat64 returns what math/rand/v2's NormFloat64
// returns on the same stream, and leaves the stream where it does, over
// 10⁶ draws (about 1 % of which take its slow path) from several seeds.
func TestNormFloat64(t *testing.T) {
	z := zigguratNorm()
	for _, seed := range []uint64{0, 1, 42, 0x9e3779b97f4a7c15, ^uint64(0)} {
		a, b := splitMix{s: seed}, splitMix{s: seed}
		for i := range 200_000 {
			x, y := a.normFloat64(z), rand.New(&b).NormFloat64()
			if x != y || a != b {
				t.Fatalf("seed %x draw %d: normFloat64 %v (state %x), NormFloat64 %v (state %x)", seed, i, x, a.s, y, b.s)
			}
		}
	}
}

// TestGammaFirstMatchesGamma: gammaFirst, and gamma when it reports false,
// draw what gamma draws from the same state and leave the stream where it
// does; a false report leaves the state untouched. The shapes are
// TestSamplerMatchesRand's, one near 1 and one where the squeeze fails
// more often, so that both of gammaFirst's refusals (the ziggurat's slow
// layers or v ≤ 0, and the squeeze) occur many times in 10⁵ draws.
func TestGammaFirstMatchesGamma(t *testing.T) {
	for _, d := range []dist.Gamma{{Alpha: 2, Beta: 4}, {Alpha: 1.0000001, Beta: 0.5}, {Alpha: 40, Beta: 3}} {
		s := newSampler(d)
		if s.kind != sampleGamma {
			t.Fatalf("%#v: sampler kind %d, want sampleGamma", d, s.kind)
		}
		a, b := splitMix{s: 7}, splitMix{s: 7}
		refused := 0
		for i := range 100_000 {
			before := a
			x, ok := s.gammaFirst(&a)
			if !ok {
				if a != before {
					t.Fatalf("%#v draw %d: refused, but the state moved from %x to %x", d, i, before.s, a.s)
				}
				refused++
				x = s.gamma(&a)
			}
			if y := s.gamma(&b); math.Float64bits(x) != math.Float64bits(y) || a != b {
				t.Fatalf("%#v draw %d: gammaFirst %v (state %x), gamma %v (state %x)", d, i, x, a.s, y, b.s)
			}
		}
		if refused == 0 || refused == 100_000 {
			t.Fatalf("%#v: gammaFirst refused %d of 100000 draws: one of its branches went untested", d, refused)
		}
	}
}

// TestStreamDrawMatchesRand: streamDraw's lognormal TTFT and uniform
// decode speed, drawn without sampler.rand, are rand's draws, in the
// same order, with or without a prefill speed, and so are other kinds.
func TestStreamDrawMatchesRand(t *testing.T) {
	r := &request{in: 700, out: 130}
	for _, md := range []Model{
		{TTFT: dist.LogNormal{Mu: math.Log(0.35), Sigma: 0.6}, TokensPerSecond: dist.Uniform{Min: 60, Max: 100}},
		{TTFT: dist.LogNormal{Mu: math.Log(0.3), Sigma: 0.5}, TokensPerSecond: dist.Uniform{Min: 80, Max: 120},
			PrefillTokensPerSecond: dist.Uniform{Min: 2000, Max: 4000}},
		{TTFT: dist.Gamma{Alpha: 2, Beta: 4}, TokensPerSecond: dist.LogNormal{Mu: 4, Sigma: 0.2}},
	} {
		ms := newModelSamplers(&md)
		a, b := splitMix{s: 11}, splitMix{s: 11}
		for i := range 10_000 {
			first, decode := ms.streamDraw(&md, r, &a)
			ttft := md.TTFT.Rand(&b)
			dec := seconds(r.out / md.TokensPerSecond.Rand(&b))
			if md.PrefillTokensPerSecond != nil {
				ttft += r.in / md.PrefillTokensPerSecond.Rand(&b)
			}
			if first != seconds(ttft) || decode != dec || a != b {
				t.Fatalf("%v draw %d: streamDraw (%v, %v) (state %x), Rand (%v, %v) (state %x)", md.TTFT, i, first, decode, a.s, seconds(ttft), dec, b.s)
			}
		}
	}
}
