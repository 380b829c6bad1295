package sim_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// addedCostCovers counts the seeds of 1 to 40 in which the added cost's
// interval of oneModel's exponential run (rate 1/s) with one copy after
// 1 s, made by run, covers want.
func addedCostCovers(t *testing.T, n int, want float64, run func(*sim.Config) *sim.Result) (covered int, half float64) {
	t.Helper()
	for seed := uint64(1); seed <= 40; seed++ {
		cfg := oneModel(n, dist.Exponential{Rate: 1}, 1, time.Second)
		cfg.Seed = seed
		c := sim.NewReport(cfg, run(cfg), run(sim.WithoutHedging(cfg))).Classes[0]
		ci := c.AddedCostPctCI95
		if c.AddedCostPct == nil || ci == nil || ci[0] == nil || ci[1] == nil || c.AddedCostPctCIMethod != sim.CIMethodAddedCostPaired {
			t.Fatalf("seed %d: added cost %v, interval %v, method %q: want a paired interval", seed, c.AddedCostPct, ci, c.AddedCostPctCIMethod)
		}
		if !(*ci[0] < *c.AddedCostPct && *c.AddedCostPct < *ci[1]) {
			t.Fatalf("seed %d: added cost %v outside its interval [%v, %v]", seed, *c.AddedCostPct, *ci[0], *ci[1])
		}
		if *ci[0] <= want && want <= *ci[1] {
			covered++
		}
		half += (*ci[1] - *ci[0]) / 2 / 40
	}
	return covered, half
}

// TestAddedCostIntervalIndependent: one model with exponential latency at
// rate 1/s, a copy after 1 s, a loser billed its input only (oneModel:
// 100 input tokens at $1/M, 50 output at $2/M). Without hedging a request
// costs $200/M; with it, the copy is sent when the primary has not
// answered by 1 s — with probability e⁻¹ — and one of the two is then
// cancelled, billed its $100/M: the added cost is 50·e⁻¹ = 18.394 %. The
// paired interval over the arrival sections covers it in ≥ 36 of 40 seeds
// (38 on average for a 95 % interval; 36 is two binomial standard
// deviations, √(40·0.05·0.95) ≈ 1.4, below), on the lane and on the
// direct path, and a run split in two ranges gives the same interval.
func TestAddedCostIntervalIndependent(t *testing.T) {
	t.Parallel()
	want := 50 / math.E
	lane := func(cfg *sim.Config) *sim.Result { return mustRun(t, cfg) }
	covered, half := addedCostCovers(t, 20_000, want, lane)
	t.Logf("lane: added cost %.3f%% covered in %d/40 seeds, mean half-width %.3f points", want, covered, half)
	if covered < 36 {
		t.Errorf("lane: the added cost's interval covers %.3f%% in %d/40 seeds, want ≥ 36", want, covered)
	}
	covered, _ = addedCostCovers(t, 20_000, want, sim.RunDirect)
	t.Logf("direct: added cost %.3f%% covered in %d/40 seeds", want, covered)
	if covered < 36 {
		t.Errorf("direct: the added cost's interval covers %.3f%% in %d/40 seeds, want ≥ 36", want, covered)
	}

	cfg := oneModel(20_000, dist.Exponential{Rate: 1}, 1, time.Second)
	one := sim.NewReport(cfg, mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg))).Classes[0]
	h, b, err := sim.RunWithBaseline(context.Background(), cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	two := sim.NewReport(cfg, h, b).Classes[0]
	for i := range 2 {
		if x, y := *one.AddedCostPctCI95[i], *two.AddedCostPctCI95[i]; math.Abs(x-y) > 1e-9*math.Abs(x) {
			t.Errorf("bound %d: %v in one range, %v in two", i, x, y)
		}
	}
}

// TestAddedCostIntervalNoHedging: a class that does not hedge costs
// exactly what it costs without hedging, section by section: the interval
// is [0, 0].
func TestAddedCostIntervalNoHedging(t *testing.T) {
	cfg := oneModel(5000, dist.Exponential{Rate: 1}, 0)
	c := sim.NewReport(cfg, mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg))).Classes[0]
	if ci := c.AddedCostPctCI95; c.AddedCostPct == nil || ci == nil || *ci[0] != 0 || *ci[1] != 0 {
		t.Errorf("no hedging: added cost %v, interval %v; want 0 and [0, 0]", c.AddedCostPct, ci)
	}
}
