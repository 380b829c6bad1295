package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSuffixRanksAreTheSuffixes: ranks of suffixes of keys with many ties
// (values below 50), without (spread over 2³¹), and in a narrow peak with
// a far outlier (so that buckets hold thousands of keys and are selected
// within their own range), asked all together (every rank of some
// suffixes, every seventh of others, starts repeated and out of order) and
// then ranks not asked (selected apart), are each suffix's own order
// statistics, by brute force.
func TestSuffixRanksAreTheSuffixes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gens := map[string]func() uint32{
		"ties":   func() uint32 { return r.Uint32N(50) },
		"spread": func() uint32 { return r.Uint32N(1 << 31) },
		"peak":   func() uint32 { return 1<<30 + r.Uint32N(1<<12) },
	}
	for name, gen := range gens {
		for _, n := range []int{300, 3000, 40000} {
			seq := make([]uint32, n)
			for i := range seq {
				seq[i] = gen()
			}
			seq[n/2] = 1<<31 - 1 // a far outlier
			before := slices.Clone(seq)
			froms := []int{n / 2, 0, n / 30, n / 7, n - 1, n / 7}
			var asks []rankAsk
			for i, from := range froms {
				var ks []int
				for k := 0; k < n-from; k += 1 + 6*(i%2) {
					ks = append(ks, k)
				}
				asks = append(asks, rankAsk{from: from, ks: ks})
			}
			s := newSuffixRanks(seq, asks)
			if !slices.Equal(seq, before) {
				t.Fatalf("%s, n %d: the selection changed its keys", name, n)
			}
			for i, from := range append(froms, n/3) {
				want := slices.Clone(seq[from:])
				slices.Sort(want)
				for k := range want {
					asked := i < len(froms) && (i%2 == 0 || k%7 == 0)
					if !asked && k > 20 && k%997 != 0 {
						continue // ranks not asked, selected apart: a few
					}
					if got := s.rank(from, k); got != want[k] {
						t.Fatalf("%s, n %d, suffix from %d, rank %d: %d, want %d", name, n, from, k, got, want[k])
					}
				}
			}
		}
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
