package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSelectionIsSort: every path of the selection — sorting a copy, the
// sampled windows, the radix select they fall back to, the counts in
// buckets of the values' range for many ranks — gives the values of a full sort at the ranks asked,
// on random sizes from 1 to 10⁵ split into random parts (empty ones too), on
// values with many ties, all equal, sorted, reversed, periodic at the
// sample's stride (to mislead the sample), with zeros and +Inf, for ranks at
// both ends, clustered at the top (a batch's p95 and p99) and inside
// (windows closed at both ends, in the lower and the upper half of the
// values), spread (the report's percentiles), many and a survival curve's;
// the input is left unchanged. It also checks that both outcomes of the
// sampled path (windows that hold their ranks, and ones that miss) are met,
// so that the fallback is tested.
func TestSelectionIsSort(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 5))
	gens := []func(n int) []float32{
		func(n int) []float32 { // exponential
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(r.ExpFloat64())
			}
			return x
		},
		func(n int) []float32 { // few distinct values
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(r.IntN(4))
			}
			return x
		},
		func(n int) []float32 { // all equal
			x := make([]float32, n)
			for i := range x {
				x[i] = 0.25
			}
			return x
		},
		func(n int) []float32 { // ascending with ties
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(i / 3)
			}
			return x
		},
		func(n int) []float32 { // descending
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(n - i)
			}
			return x
		},
		func(n int) []float32 { // periodic: large values at the sample's strides
			x := make([]float32, n)
			s := min(max(int(0.5*math.Pow(float64(n), 2.0/3)), 32), 8192)
			for i := range x {
				x[i] = float32(r.Float64())
			}
			for i := range s {
				if t := (2*i + 1) * n / (2 * s); t < n {
					x[t] = 1e6 + float32(i)
				}
			}
			return x
		},
		func(n int) []float32 { // heavy tail, zeros and +Inf
			x := make([]float32, n)
			for i := range x {
				switch r.IntN(20) {
				case 0:
					x[i] = 0
				case 1:
					x[i] = float32(math.Inf(1))
				default:
					x[i] = float32(math.Exp(r.NormFloat64() * 4))
				}
			}
			return x
		},
	}
	rankSets := func(n int) [][]int {
		top := func(ps ...float64) []int {
			var ks []int
			for _, p := range ps {
				ks = append(ks, NearestRank(n, p))
			}
			slices.Sort(ks)
			return slices.Compact(ks)
		}
		many := make([]int, 0, 40)
		for range 40 {
			many = append(many, r.IntN(n))
		}
		slices.Sort(many)
		// A survival curve's: 60 levels per decade of the share above.
		var curve []int
		for j := 0; float64(j) <= 60*math.Log10(float64(n)); j++ {
			k := int(float64(n) - 1 - math.Pow(10, -float64(j)/60)*float64(n))
			curve = append(curve, min(max(k, 0), n-1))
		}
		return [][]int{
			slices.Compact(curve),
			{0}, {n - 1}, {0, n - 1},
			top(0.95, 0.99),
			top(0.5, 0.9, 0.95, 0.99, 0.999),
			top(0.94, 0.95, 0.96, 0.98, 0.99, 0.992),
			top(0.001, 0.5, 0.999),
			top(0.2, 0.25), top(0.75, 0.8), // windows closed at both ends, low and high
			slices.Compact(many),
		}
	}
	hit, missed := 0, 0
	sizes := []int{1, 2, 3, 7, selSort, selSort + 1, 600, selSmall + 1, 7000, 20_000, 100_000}
	for range 20 {
		sizes = append(sizes, 1+r.IntN(30_000))
	}
	for _, n := range sizes {
		for g, gen := range gens {
			all := gen(n)
			before := slices.Clone(all)
			want := slices.Clone(all)
			slices.Sort(want)
			var parts [][]float32
			for rest := all; len(rest) > 0; {
				m := min(len(rest), 1+r.IntN(len(rest)))
				if r.IntN(2) == 0 {
					m = len(rest)
				}
				parts = append(parts, rest[:m])
				rest = rest[m:]
				if r.IntN(4) == 0 {
					parts = append(parts, nil)
				}
			}
			for _, ks := range rankSets(n) {
				check := func(path string, got []float32) {
					t.Helper()
					for i, k := range ks {
						if math.Float32bits(got[i]) != math.Float32bits(want[k]) {
							t.Fatalf("%s, n=%d, values %d, ranks %v: rank %d is %v, want %v", path, n, g, ks, k, got[i], want[k])
						}
					}
				}
				check("selectRanks", selectRanks(parts, ks))
				keys := make([][]uint32, len(parts))
				for i, p := range parts {
					keys[i] = float32Bits(p)
				}
				out := make([]uint32, len(ks))
				res := make([]float32, len(ks))
				if n > 1 && len(ks) <= selMaxWindows {
					if selectSampled(keys, n, ks, out) {
						hit++
						for i, k := range out {
							res[i] = math.Float32frombits(k)
						}
						check("selectSampled", res)
					} else {
						missed++
					}
				}
				clear(out)
				selectRadix(keys, ks, out)
				for i, k := range out {
					res[i] = math.Float32frombits(k)
				}
				check("selectRadix", res)
				clear(out)
				selectSorted(keys, n, ks, out)
				for i, k := range out {
					res[i] = math.Float32frombits(k)
				}
				check("selectSorted", res)
			}
			if !slices.Equal(all, before) {
				t.Fatalf("n=%d, values %d: the selection changed its input", n, g)
			}
		}
	}
	if hit == 0 || missed == 0 {
		t.Fatalf("the sampled windows held their ranks %d times and missed %d: both must be tested", hit, missed)
	}
}
