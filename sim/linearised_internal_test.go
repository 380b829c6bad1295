package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLinearisedDensityAtLowLevels: 30 batches of 1000 uniform(0, 1)
// latencies, whose density is 1 everywhere, so ψ_j − q̂ = (F̄ − F̂_j(q̂))/f̂
// with f̂ ≈ 1 at any level. At p10 the band p ± (1 − p)/5 reached below 0
// (the smallest latency stood for level −0.08) and the density came out
// 1.29, the intervals 29 % too narrow; with h = min(p, 1 − p)/5 it is 1
// within 15 % (the difference of the pooled quantiles at p ± h over 3·10⁴
// latencies has a standard error of about 3 % of 2h: 15 % is 5 of them).
// At p = 1 there is no density: every ψ_j is NaN, not ±Inf.
func TestLinearisedDensityAtLowLevels(t *testing.T) {
	const nb, per = 30, 1000
	src := rand.New(rand.NewPCG(1, 2))
	g := &batchGroups{nb: nb, n: make([]int64, nb), off: make([]int64, nb+1)}
	for j := range nb {
		for range per {
			g.buf = append(g.buf, float32(src.Float64()))
		}
		g.n[j] = per
		g.off[j+1] = int64(len(g.buf))
	}
	ps := []float64{0.1, 0.5, 0.95}
	pooled, lin := linearised(g, 0, ps)
	for i, p := range ps {
		q := float32(pooled[i])
		var fbar float64
		shares := make([]float64, nb)
		for j := range nb {
			below := 0
			for _, x := range g.buf[g.off[j]:g.off[j+1]] {
				if x <= q {
					below++
				}
			}
			shares[j] = float64(below) / per
			fbar += shares[j] / nb
		}
		var num, den float64 // least squares of ψ_j − q̂ on F̄ − F̂_j: 1/f̂
		for j := range nb {
			d := fbar - shares[j]
			num += d * (lin[i][j] - pooled[i])
			den += d * d
		}
		if f := den / num; math.Abs(f-1) > 0.15 {
			t.Errorf("p%g: density %.3f, want 1 ± 0.15", 100*p, f)
		}
	}
	_, lin = linearised(g, 0, []float64{1})
	for j, x := range lin[0] {
		if !math.IsNaN(x) {
			t.Fatalf("p100: ψ_%d = %v, want NaN (no density)", j, x)
		}
	}
}

// TestCountBelow: countBelow counts, for one, two (its own loop when
// ascending: equal, apart, +Inf; the plain one descending or with a NaN)
// and three levels, the values at most each level, ties included, as a
// plain count does — on values drawn from a few distinct ones so that ties
// are met.
func TestCountBelow(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for _, n := range []int{0, 1, 5, 1000} {
		xs := make([]float32, n)
		for i := range xs {
			xs[i] = float32(r.IntN(8)) / 4
		}
		inf, nan := float32(math.Inf(1)), float32(math.NaN())
		for _, qs := range [][]float32{{0.5}, {0.5, 1.25}, {1.25, 1.25}, {1.25, 0.5}, {0.75, inf}, {nan, 1}, {0.5, nan}, {0, 0.75, 2}} {
			got := make([]int64, len(qs))
			countBelow(xs, qs, got)
			for i, q := range qs {
				var want int64
				for _, x := range xs {
					if x <= q {
						want++
					}
				}
				if got[i] != want {
					t.Errorf("n %d, levels %v: %d at most %v, want %d", n, qs, got[i], q, want)
				}
			}
		}
	}
}
