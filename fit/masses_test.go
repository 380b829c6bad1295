package fit

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMassesLNMatchesMassLN: the bucket masses with shared bounds
// evaluated once are bit for bit massLN's, bucket by bucket — over
// adjacent buckets, gaps between buckets, open first and last buckets and
// parameters that put buckets on both tails — and so are the
// likelihoods built on them, for every fit to be the same as before.
func TestMassesLNMatchesMassLN(t *testing.T) {
	src := rand.New(rand.NewPCG(36, 1))
	for trial := range 2000 {
		nb := 1 + src.IntN(30)
		b := &bins{}
		lo := math.Inf(-1)
		x := math.Log(0.01) + src.Float64()
		for i := range nb {
			hi := x
			if i == nb-1 && src.IntN(2) == 0 {
				hi = math.Inf(1)
			}
			if src.IntN(8) == 0 && i > 0 {
				lo += 0.01 // a gap: the bounds are not shared
			}
			c := float64(src.IntN(3) * src.IntN(50))
			b.lo, b.hi, b.counts = append(b.lo, lo), append(b.hi, hi), append(b.counts, c)
			b.n += c
			lo = hi
			x += 0.05 + src.Float64()
		}
		mu := x*src.Float64() - 2 + 4*src.Float64()
		sigma := math.Exp(-4 + 6*src.Float64())
		got := make([]float64, nb)
		b.massesLN(mu, sigma, got)
		var want float64
		for i := range nb {
			m := massLN(b.lo[i], b.hi[i], mu, sigma)
			if math.Float64bits(got[i]) != math.Float64bits(m) {
				t.Fatalf("trial %d bucket %d of %d: mass %v, massLN %v", trial, i, nb, got[i], m)
			}
			if b.counts[i] != 0 {
				want -= b.counts[i] * math.Log(math.Max(m, minMass))
			}
		}
		if w := b.weightedNegLL(b.counts, mu, sigma); math.Float64bits(w) != math.Float64bits(want) {
			t.Fatalf("trial %d: weightedNegLL %v, want %v", trial, w, want)
		}
		m := LogNormalMixture{Weights: []float64{0.3, 0.7}, Mu: []float64{mu, mu + 1}, Sigma: []float64{sigma, 0.5}}
		var ll float64
		for i, c := range b.counts {
			if c == 0 {
				continue
			}
			p := 0.0
			for j := range m.Weights {
				p += m.Weights[j] * massLN(b.lo[i], b.hi[i], m.Mu[j], m.Sigma[j])
			}
			ll += c * math.Log(math.Max(p, minMass))
		}
		if g := b.logLik(m); math.Float64bits(g) != math.Float64bits(ll) {
			t.Fatalf("trial %d: logLik %v, want %v", trial, g, ll)
		}
	}
}
