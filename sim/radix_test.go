package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestSortedSeconds(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 10, 5000, 100_000} {
		d := make([]time.Duration, n)
		for i := range d {
			switch i % 4 {
			case 0:
				d[i] = time.Duration(r.ExpFloat64() * 3e9)
			case 1:
				d[i] = time.Duration(r.IntN(5)) * time.Second // ties and zeros
			case 2:
				d[i] = time.Duration(r.IntN(1000)) // nanoseconds
			default:
				d[i] = time.Duration(r.Int64N(1 << 62))
			}
		}
		want := slices.Clone(d)
		slices.Sort(want)
		got := sortedSeconds(d, 0)
		if len(got) != n {
			t.Fatalf("n=%d: %d values back", n, len(got))
		}
		for i := range want {
			if got[i] != want[i].Seconds() {
				t.Fatalf("n=%d: value %d is %v, want %v", n, i, got[i], want[i].Seconds())
			}
		}
	}
}

func BenchmarkSortLatencies(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	x := make([]time.Duration, 200_000)
	for i := range x {
		x[i] = time.Duration(r.ExpFloat64() * 1e9)
	}
	y := make([]time.Duration, len(x))
	b.Run("radix", func(b *testing.B) {
		for b.Loop() {
			copy(y, x)
			sortedSeconds(y, 0)
		}
	})
	b.Run("pdqsort", func(b *testing.B) {
		for b.Loop() {
			copy(y, x)
			slices.Sort(y)
		}
	})
}
