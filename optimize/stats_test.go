package optimize

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// survival returns, for the tests, points of the empirical survival function of the
// ascending slice x: after the i-th smallest latency (0-based) a share
// (n−1−i)/n of requests is slower. It keeps about survivalPerDecade points
// per decade of S, spaced logarithmically from S = 1 down to 1/n, plus the
// largest latency (S = 0) — enough to draw the curve on a log axis without
// keeping every request.
//
// Misses (+Inf, requests without a usable answer) have no point: the curve
// ends at the largest finite latency, where S is the share of misses.
func survival(x []float64) []SurvivalPoint {
	n := len(x)
	finite := n
	for finite > 0 && math.IsInf(x[finite-1], 1) {
		finite--
	}
	idx := survivalRanks(n, finite)
	v := make([]float64, len(idx))
	for k, i := range idx {
		v[k] = x[i]
	}
	return survivalPoints(n, idx, v)
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

// TestFormat: the report's number formats. A change that its decimals
// would round to zero gets the digits that keep its sign (an added cost
// of −0.04 % is "-0.04%", not "+0.0%"; an answered share down 0.0002 pt
// at two decimals is "(-0.0002 pt)", not "(+0.00 pt)"); zero has none.
func TestFormat(t *testing.T) {
	for x, want := range map[float64]string{0: "+0.0%", math.Copysign(0, -1): "+0.0%", -0.04: "-0.04%", 0.04: "+0.04%", -0.05000001: "-0.1%", 9.84: "+9.8%", -40.66: "-40.7%"} {
		if got := fpct(x); got != want {
			t.Errorf("fpct(%v) = %q; want %q", x, got, want)
		}
	}
	for x, want := range map[float64]string{0: "+0.00%", -0.004: "-0.004%", 0.004: "+0.004%", 10.04: "+10.04%", -1.5: "-1.50%"} {
		if got := fpctCost(x); got != want {
			t.Errorf("fpctCost(%v) = %q; want %q", x, got, want)
		}
	}
	for _, c := range []struct {
		a, b float64
		want string
	}{
		{0.985051, 0.985049, "(-0.0002 pt)"},
		{0.985049, 0.985051, "(+0.0002 pt)"},
		{0.991, 0.985, "(-0.6 pt)"},
		{0.985, 0.985, ""},
	} {
		if got := answeredChange(c.a, c.b); got != c.want {
			t.Errorf("answeredChange(%v, %v) = %q; want %q", c.a, c.b, got, c.want)
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
