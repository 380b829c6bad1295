package sim_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/sim"
)

// TestThroughputIntervalCovers: the machine-repairman model — 5 clients
// thinking exponential times of mean 4 s, one server at rate 1/s — has the
// throughput X of machineRepairman. The throughput's interval covers X in
// at least 36 of 40 seeds at 2·10⁴ requests (38 on average for a 95 %
// interval; 36 is two binomial standard deviations, √(40·0.05·0.95) ≈
// 1.4, below), and the JSON names its method.
func TestThroughputIntervalCovers(t *testing.T) {
	t.Parallel()
	x, _ := machineRepairman(5, 0.25, 1)
	covered := 0
	for seed := uint64(1); seed <= 40; seed++ {
		cfg := closedConfig(20_000, 5, 4, 1, 1)
		cfg.Seed = seed
		tp := mustRun(t, cfg).Classes[0].Throughput
		if tp == nil || !tp.HasCI() {
			t.Fatalf("seed %d: no throughput interval", seed)
		}
		if tp.CI95[0] <= x && x <= tp.CI95[1] {
			covered++
		}
		if seed == 1 {
			b, err := json.Marshal(tp)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), `"ci95_method":"`+sim.CIMethodThroughput+`"`) {
				t.Errorf("throughput JSON %s: no ci95_method", b)
			}
		}
	}
	t.Logf("throughput %.4f/s covered in %d/40 seeds", x, covered)
	if covered < 36 {
		t.Errorf("the throughput's interval covers X = %.4f/s in %d/40 seeds, want ≥ 36", x, covered)
	}
	b, _ := json.Marshal(sim.Throughput{CI95: [2]float64{math.NaN(), math.NaN()}})
	if strings.Contains(string(b), "ci95_method") {
		t.Errorf("throughput without an interval names a method: %s", b)
	}
}
