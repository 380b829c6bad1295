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

// TestSampledSelectionOverAPointMass: keys most of which share one value
// (a replica's queue waits of 0; a floor of 7 with a few below) are
// selected in one pass through the sampled window, which counts the keys
// at its lower end, not copies them; the values are the order
// statistics, by brute force.
func TestSampledSelectionOverAPointMass(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, floor := range []uint32{0, 7} {
		for _, share := range []float64{0.5, 0.9, 0.97} {
			keys := make([]uint32, 2500)
			for i := range keys {
				switch u := r.Float64(); {
				case u < share:
					keys[i] = floor
				case floor > 0 && u < share+0.01:
					keys[i] = r.Uint32N(floor)
				default:
					keys[i] = floor + 1 + r.Uint32N(1<<20)
				}
			}
			want := slices.Clone(keys)
			slices.Sort(want)
			n := len(keys)
			for _, ks := range [][]int{{NearestRank(n, 0.95)}, {NearestRank(n, 0.95), NearestRank(n, 0.99)}, {NearestRank(n, 0.5), NearestRank(n, 0.6)}} {
				out := make([]uint32, len(ks))
				if !selectSampled([][]uint32{keys[:1000], keys[1000:]}, n, ks, out) {
					t.Errorf("floor %d, share %g, ranks %v: the sampled selection gave up", floor, share, ks)
					continue
				}
				for i, k := range ks {
					if out[i] != want[k] {
						t.Errorf("floor %d, share %g, rank %d: %d, want %d", floor, share, k, out[i], want[k])
					}
				}
			}
		}
	}
}
