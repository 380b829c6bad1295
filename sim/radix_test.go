package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSortLatencies(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 10, 5000, 100_000} {
		x := make([]float64, n)
		for i := range x {
			switch i % 4 {
			case 0:
				x[i] = r.ExpFloat64() * 3
			case 1:
				x[i] = float64(r.IntN(5)) // ties and zeros
			case 2:
				x[i] = r.Float64() * 1e-9
			default:
				x[i] = r.ExpFloat64() * 1e6
			}
		}
		want := slices.Clone(x)
		slices.Sort(want)
		sortLatencies(x)
		if !slices.Equal(x, want) {
			t.Errorf("n=%d: not sorted like slices.Sort", n)
		}
	}
}

func BenchmarkSortLatencies(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, 200_000)
	for i := range x {
		x[i] = r.ExpFloat64()
	}
	y := make([]float64, len(x))
	b.Run("radix", func(b *testing.B) {
		for b.Loop() {
			copy(y, x)
			sortLatencies(y)
		}
	})
	b.Run("pdqsort", func(b *testing.B) {
		for b.Loop() {
			copy(y, x)
			slices.Sort(y)
		}
	})
}
