package fit

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPooledCells checks the cells by hand (those of TestPooledChiSquare)
// and that X² summed over PooledCells' cells is PooledChiSquare's for
// random counts, buckets expecting nothing included.
func TestPooledCells(t *testing.T) {
	cell, k := PooledCells([]float64{2, 4, 12, 10, 3})
	if want := []int{0, 0, 1, 2, 2}; !slices.Equal(cell, want) || k != 3 {
		t.Errorf("cells %v (%d); want %v (3)", cell, k, want)
	}
	if cell, k := PooledCells([]float64{1, 2}); !slices.Equal(cell, []int{0, 0}) || k != 1 {
		t.Errorf("two short cells: %v (%d); want [0 0] (1)", cell, k)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		n := 1 + rng.IntN(12)
		o, e := make([]float64, n), make([]float64, n)
		for i := range n {
			e[i] = float64(rng.IntN(4)) * rng.Float64() * 6
			o[i] = float64(rng.IntN(9))
			if e[i] == 0 {
				o[i] = 0
			}
		}
		cell, k := PooledCells(e)
		po, pe := make([]float64, k), make([]float64, k)
		for i, c := range cell {
			po[c] += o[i]
			pe[c] += e[i]
		}
		x2 := 0.0
		for c := range k {
			if pe[c] > 0 {
				x2 += (po[c] - pe[c]) * (po[c] - pe[c]) / pe[c]
			}
		}
		want, df := PooledChiSquare(o, e, 0)
		if slices.Max(e) == 0 {
			continue // no cell expects anything: PooledChiSquare keeps none
		}
		if math.Abs(x2-want) > 1e-9*math.Max(1, want) || df != k-1 {
			t.Fatalf("e %v o %v: X² %g on %d cells; PooledChiSquare %g, df %d", e, o, x2, k, want, df)
		}
	}
}
