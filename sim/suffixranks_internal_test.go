package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSuffixRanksAreTheSuffixes: every rank of suffixes of keys with many
// ties (values below 50) and without, asked with starts that grow (the
// prefix sorted in pieces, small and large) and then fall back (selected
// apart), is the suffix's own order statistic, by brute force.
func TestSuffixRanksAreTheSuffixes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, span := range []uint32{50, 1 << 31} {
		seq := make([]uint32, 3000)
		for i := range seq {
			seq[i] = r.Uint32N(span)
		}
		s := newSuffixRanks(seq)
		for _, from := range []int{0, 0, 100, 400, 2000, 2999, 1500} {
			want := slices.Clone(seq[from:])
			slices.Sort(want)
			for k := range want {
				if got := s.rank(from, k); got != want[k] {
					t.Fatalf("span %d, suffix from %d, rank %d: %d, want %d", span, from, k, got, want[k])
				}
			}
		}
		s.release()
	}
}
