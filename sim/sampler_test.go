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
