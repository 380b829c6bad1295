package sim

import (
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
)

// TestGapSumMatchesPoissonGap: gapSum adds exactly poissonGap's gaps, for
// empty, short and long ranges that start anywhere.
func TestGapSumMatchesPoissonGap(t *testing.T) {
	cfg := &Config{
		Name: "gaps", Seed: 99, Requests: 1000,
		Arrivals: Arrivals{Process: Poisson, Rate: 7},
		Models:   []Model{{Name: "m", Provider: "p", Latency: dist.Constant{Value: 0.1}}},
		Classes:  []Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}}},
	}
	e, ref := newEngine(cfg), newEngine(cfg)
	for _, r := range [][2]int64{{0, 0}, {0, 1}, {3, 5}, {0, 1000}, {517, 998}} {
		var want time.Duration
		for i := r[0]; i < r[1]; i++ {
			want += ref.poissonGap(i)
		}
		if got := e.gapSum(r[0], r[1]); got != want {
			t.Errorf("gapSum(%d, %d) = %v, want %v", r[0], r[1], got, want)
		}
	}
}
