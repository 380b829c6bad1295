package optimize

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/hedgesim/hedgesim/sim"
)

// TestQuantileMatchesGonum: quantile is stat.Quantile(p, stat.Empirical)
// (nearest rank), without its O(n) scan, for every p the report uses and
// small and awkward sample sizes.
func TestQuantileMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 7, 19, 20, 21, 99, 100, 101, 999, 1000, 1001, 200_000} {
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.ExpFloat64()
		}
		slices.Sort(x)
		for _, p := range []float64{0, 0.001, 0.1, 0.5, 0.9, 0.95, 0.99, 0.999, 1} {
			if got, want := quantile(x, p), stat.Quantile(p, stat.Empirical, x, nil); got != want {
				t.Errorf("n=%d p=%v: quantile %v, stat.Quantile %v", n, p, got, want)
			}
		}
	}
	if !math.IsNaN(quantile(nil, 0.5)) {
		t.Error("quantile of no data is not NaN")
	}
}

func TestSurvival(t *testing.T) {
	for _, n := range []int{1, 2, 10, 1000, 123_457} {
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(i + 1)
		}
		s := survival(x)
		if s[0].T != 1 || s[len(s)-1].T != float64(n) || s[len(s)-1].S != 0 {
			t.Errorf("n=%d: ends %v … %v", n, s[0], s[len(s)-1])
		}
		for i, pt := range s {
			// x[k] = k+1, so exactly n−T requests are slower than T.
			if want := (float64(n) - pt.T) / float64(n); math.Abs(pt.S-want) > 1e-12 {
				t.Errorf("n=%d: point %d %v; want S %v", n, i, pt, want)
			}
			if i > 0 && !(pt.T > s[i-1].T && pt.S < s[i-1].S) {
				t.Errorf("n=%d: points %d, %d not monotone: %v %v", n, i-1, i, s[i-1], pt)
			}
		}
		if n > 1000 && (len(s) > 400 || len(s) < 200) {
			t.Errorf("n=%d: %d points; want a few hundred", n, len(s))
		}
	}
}

func TestWilson(t *testing.T) {
	lo, hi := wilson(0.5, 100, 1.959964)
	// Wilson 95% interval for 50/100: [0.4038, 0.5962].
	if math.Abs(lo-0.4038) > 1e-4 || math.Abs(hi-0.5962) > 1e-4 {
		t.Errorf("wilson(0.5, 100) = [%v, %v]", lo, hi)
	}
	if lo, hi := wilson(0, 100, 1.96); lo != 0 || !(hi > 0.03 && hi < 0.04) {
		t.Errorf("wilson(0, 100) = [%v, %v]", lo, hi)
	}
}

// TestMinRequestsForCI: the threshold is where sim's QuantileCIRanks (the
// ranks of ClassResult.QuantileCI) starts to fit inside the sample, and it
// keeps fitting above it.
func TestMinRequestsForCI(t *testing.T) {
	for _, p := range []float64{0.5, 0.95, 0.99} {
		for _, level := range []float64{0.9, 0.95, 0.99} {
			m := MinRequestsForCI(p, level)
			for n := max(1, m-50); n <= m+300; n++ {
				_, _, ok := sim.QuantileCIRanks(n, p, level)
				if ok != (n >= m) {
					t.Errorf("p %v, level %v: QuantileCI ok = %v at n = %d; MinRequestsForCI = %d", p, level, ok, n, m)
					break
				}
			}
		}
	}
	if a, b := MinRequestsForCI(0.95, 0.95), MinRequestsForCI(0.99, 0.95); a != 110 || b != 563 {
		t.Errorf("at 95%%: %d for p95, %d for p99; the docs say 110 and 563", a, b)
	}
}

func TestFormat(t *testing.T) {
	for x, want := range map[float64]string{0: "+0.0%", -0.04: "+0.0%", 0.04: "+0.0%", -0.05000001: "-0.1%", 9.84: "+9.8%", -40.66: "-40.7%"} {
		if got := fpct(x); got != want {
			t.Errorf("fpct(%v) = %q; want %q", x, got, want)
		}
	}
	for _, c := range []struct{ a, b, wa, wb string }{
		{"0.985", "0.979", "98.5%", "97.9%"},
		{"0.985", "0.985", "98.5%", "98.5%"},
		{"0.98501", "0.98549", "98.50%", "98.55%"},
		{"0.985001", "0.985002", "98.500%", "98.500%"},
	} {
		a, _ := strconv.ParseFloat(c.a, 64)
		b, _ := strconv.ParseFloat(c.b, 64)
		if ga, gb := fshares(a, b); ga != c.wa || gb != c.wb {
			t.Errorf("fshares(%v, %v) = %q, %q; want %q, %q", a, b, ga, gb, c.wa, c.wb)
		}
	}
	for x, want := range map[float64]string{1.9239342640000001: "1.923934264", 4.162200000000001: "4.1622", math.Copysign(0, -1): "0", 123.456789012345: "123.456789012", 5e-5: "5e-05"} {
		if got := csvFloat(x); got != want {
			t.Errorf("csvFloat(%v) = %q; want %q", x, got, want)
		}
	}
	for d, want := range map[time.Duration]string{
		0: "0s", 70 * time.Millisecond: "70ms", 1250 * time.Millisecond: "1.25s",
		12500 * time.Millisecond: "12.5s", 500 * time.Microsecond: "500µs", 283500 * time.Microsecond: "283.5ms",
	} {
		if got := fdelay(d); got != want {
			t.Errorf("fdelay(%v) = %q; want %q", d, got, want)
		}
	}
	if got := pname(0.999); got != "p99.9" {
		t.Errorf("pname(0.999) = %q", got)
	}
}
