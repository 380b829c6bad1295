package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"
)

// TestSelectRanksIsSort: selectRanks gives the elements of a sort of the
// union of its parts, on sizes around the cut-over to sorting a copy,
// values with ties, zeros, +Inf and many orders of magnitude, split into
// parts of any size, for few ranks and for every rank.
func TestSelectRanksIsSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	draw := func(i int) float32 {
		switch i % 5 {
		case 0:
			return float32(r.ExpFloat64() * 3)
		case 1:
			return float32(r.IntN(5)) // ties and zeros
		case 2:
			return float32(r.IntN(1000)) * 1e-9
		case 3:
			return float32(math.Exp(r.NormFloat64() * 10))
		default:
			if r.IntN(50) == 0 {
				return float32(math.Inf(1))
			}
			return 0.05 + float32(r.IntN(3))*math.SmallestNonzeroFloat32
		}
	}
	for _, n := range []int{1, 2, 10, selSmall, selSmall + 1, 5000, 100_000} {
		var parts [][]float32
		var all []float32
		for left := n; left > 0; {
			m := min(left, 1+r.IntN(n))
			p := make([]float32, m)
			for i := range p {
				p[i] = draw(r.IntN(5))
			}
			parts = append(parts, p)
			all = append(all, p...)
			left -= m
			if r.IntN(3) == 0 {
				parts = append(parts, nil) // an empty part
			}
		}
		before := slices.Clone(all)
		want := slices.Clone(all)
		slices.Sort(want)
		var ks []int
		if n <= 5000 {
			for k := range n {
				ks = append(ks, k)
			}
		} else {
			for range 500 {
				ks = append(ks, r.IntN(n))
			}
			ks = append(ks, 0, n-1, n/2)
			slices.Sort(ks)
			ks = slices.Compact(ks)
		}
		got := selectRanks(parts, ks)
		for i, k := range ks {
			if math.Float32bits(got[i]) != math.Float32bits(want[k]) {
				t.Fatalf("n=%d: rank %d is %v, want %v", n, k, got[i], want[k])
			}
		}
		var after []float32
		for _, p := range parts {
			after = append(after, p...)
		}
		if !slices.Equal(after, before) {
			t.Fatalf("n=%d: selectRanks changed its input", n)
		}
	}
}

// TestEndTimesGrow: answered latencies and misses share one buffer from
// its two ends, and outgrowing it keeps both, in order.
func TestEndTimesGrow(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	tt := newEndTimes(3)
	var ans, miss []float32
	var sumA, sumM time.Duration
	for i := range 1000 {
		d := time.Duration(r.Int64N(int64(10 * time.Second)))
		ok := r.IntN(3) > 0 || i < 20
		tt.add(d, ok)
		if ok {
			ans = append(ans, toSeconds32(d))
			sumA += d
		} else {
			miss = append(miss, toSeconds32(d))
			sumM += d
		}
	}
	slices.Reverse(miss) // misses fill the buffer from its end
	if !slices.Equal(tt.answered(), ans) || !slices.Equal(tt.misses(), miss) {
		t.Fatal("answered or missed latencies lost when the buffer grew")
	}
	if tt.sumA.lo != uint64(sumA) || tt.sumM.lo != uint64(sumM) || tt.sumA.hi != 0 || tt.sumM.hi != 0 {
		t.Errorf("sums %v, %v; want %v, %v", tt.sumA, tt.sumM, sumA, sumM)
	}
}

// TestFloat32RoundingBound bounds what storing latencies as float32 does to
// a percentile: every reported percentile and interval bound of a class is
// the float32 rounding of the exact nearest-rank order statistic of the
// recorded durations (rounding keeps the order), as the shortest decimal
// that reads back as it — within 2⁻²³ of the exact value, relative to it —
// and the mean is exact to float64 rounding.
func TestFloat32RoundingBound(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const n = 200_000
	var s classStats
	s.times = newEndTimes(16)
	s.billed = make([]bill, 0)
	var ds []time.Duration
	var sum float64
	misses := 0
	for range n {
		// lognormal around 1 s, from microseconds to about an hour
		d := time.Duration(math.Exp(r.NormFloat64()*2) * 1e9)
		if r.IntN(2000) == 0 { // about 100 misses, so all nine ranks checked below are answered
			s.record(outTimeout, d)
			misses++
			continue
		}
		s.record(outOK, d)
		ds = append(ds, d)
		sum += d.Seconds()
	}
	s.requests, s.answered = n, int64(n-misses)
	c := s.result("c", nil)
	slices.Sort(ds)
	exact := func(k int) float64 {
		if k >= len(ds) {
			return math.Inf(1)
		}
		return ds[k].Seconds()
	}
	l := SummarizeLatency(&c)
	l95, u95, _ := QuantileCIRanks(n, 0.95, 0.95)
	l99, u99, _ := QuantileCIRanks(n, 0.99, 0.95)
	for _, x := range []struct {
		name string
		got  float64
		k    int
	}{
		{"p50", l.P50, NearestRank(n, 0.5)}, {"p90", l.P90, NearestRank(n, 0.9)},
		{"p95", l.P95, NearestRank(n, 0.95)}, {"p99", l.P99, NearestRank(n, 0.99)},
		{"p99.9", l.P999, NearestRank(n, 0.999)},
		{"p95 low", l.P95CI95[0], l95 - 1}, {"p95 high", l.P95CI95[1], u95 - 1},
		{"p99 low", l.P99CI95[0], l99 - 1}, {"p99 high", l.P99CI95[1], u99 - 1},
	} {
		want := exact(x.k)
		if math.IsInf(want, 1) {
			if !math.IsInf(x.got, 1) {
				t.Errorf("%s = %v, want a miss", x.name, x.got)
			}
			continue
		}
		if x.got != seconds64(float32(want)) {
			t.Errorf("%s = %v, want the float32 rounding of %v", x.name, x.got, want)
		}
		if rel := math.Abs(x.got-want) / want; rel > 0x1p-23 {
			t.Errorf("%s = %v, exact %v: relative error %.3g > 2⁻²³", x.name, x.got, want, rel)
		}
	}
	if got := c.Quantile(1); !math.IsInf(got, 1) {
		t.Errorf("the largest rank is %v; want a miss", got)
	}
	if want := sum / float64(len(ds)); math.Abs(l.Mean-want) > 1e-12*want {
		t.Errorf("mean %v, want %v", l.Mean, want)
	}
}

// TestSeconds64: the decimal a stored latency is reported as reads back
// as it, is within 2⁻²⁴ of it relative to it, and keeps the order.
func TestSeconds64(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	prev := float32(0)
	for i := range 100_000 {
		x := float32(math.Exp(r.NormFloat64() * 8))
		if i%2 == 1 {
			x = math.Nextafter32(prev, float32(math.Inf(1)))
		}
		v := seconds64(x)
		if float32(v) != x || math.Abs(v-float64(x)) > 0x1p-24*float64(x) {
			t.Fatalf("seconds64(%v) = %v", x, v)
		}
		if (x > prev) != (v > seconds64(prev)) {
			t.Fatalf("order lost between %v and %v", prev, x)
		}
		prev = x
	}
	if !math.IsInf(seconds64(float32(math.Inf(1))), 1) {
		t.Error("+Inf is not kept")
	}
}

// TestSeconds64SameAsParse: seconds64 reads the shortest decimal of a
// stored latency as strconv.ParseFloat does, bit for bit: on float32
// values spread over every binade (a fixed stride through the bit
// patterns, with a random offset from a fixed seed), on random ones, on
// each binade's ends, on 0, subnormals and the largest, and on +Inf and
// NaN. (Exact by construction where exactDecimal answers; this checks
// the reading of the digits and the cases it leaves to ParseFloat.)
func TestSeconds64SameAsParse(t *testing.T) {
	parse := func(x float32) float64 {
		v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
		return v
	}
	check := func(x float32) {
		got, want := seconds64(x), parse(x)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("seconds64(%v) = %v (%#x), ParseFloat reads %v (%#x)", x, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
	stride := uint32(997)
	if testing.Short() {
		stride = 99991
	}
	r := rand.New(rand.NewPCG(11, 12))
	for u := r.Uint32N(stride); u < 0x7f800000; u += stride {
		check(math.Float32frombits(u))
	}
	for range 200_000 {
		check(math.Float32frombits(r.Uint32N(0x7f800000)))
	}
	for e := uint32(0); e < 0xff; e++ {
		for _, m := range []uint32{0, 1, 2, 0x7fffff, 0x7ffffe, 0x400000} {
			check(math.Float32frombits(e<<23 | m))
		}
	}
	check(float32(math.Inf(1)))
	check(float32(math.NaN()))
}

func BenchmarkSelectRanks(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	x := make([]float32, 200_000)
	for i := range x {
		x[i] = float32(r.ExpFloat64())
	}
	report := []int{99_999, 179_999, 189_998, 197_999, 199_799, 189_000, 191_000, 197_500, 198_500}
	b.Run("report", func(b *testing.B) {
		for b.Loop() {
			selectRanks([][]float32{x}, report)
		}
	})
	b.Run("sort", func(b *testing.B) {
		y := make([]float32, len(x))
		for b.Loop() {
			copy(y, x)
			slices.Sort(y)
		}
	})
}
