package sim_test

import (
	"math"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// TestBatchedLatencyIntervalNotBelowZero: a pool that scales to zero,
// a request every 20 s, so that a few of the 30 batches hold a request
// that waited a 20–60 s cold start and the rest none. Without hedging
// the batches' p95s are then bimodal (about 2 s, or 35 s and more), and
// est ± t·s/√30 reached −0.056 s with this seed: a latency's interval is
// clipped at 0, and one that reached below it is not OK — the normal
// approximation failed — though its batches were long enough.
func TestBatchedLatencyIntervalNotBelowZero(t *testing.T) {
	sc, err := scenario.Parse("s.toml", []byte(`seed = 2685821657736338713
requests = 6000
[arrivals]
rate = 0.05
[providers.gpu.pool]
concurrency = 4
balancer = "p2c"
[providers.gpu.pool.autoscale]
min_replicas = 0
max_replicas = 3
target_concurrency = 2
[providers.gpu.pool.cold_start]
latency = { kind = "uniform", min = 20.0, max = 60.0 }
[providers.api]
[models.local]
provider = "gpu"
latency = { kind = "lognormal", median = 1.0, p95 = 2.5 }
[models.hosted]
provider = "api"
latency = { kind = "lognormal", median = 1.5, p95 = 4.0 }
[[classes]]
name = "assist"
deadline = "45s"
[classes.hedge]
primary = "local"
targets = ["hosted"]
delay = "5s"
`))
	if err != nil {
		t.Fatal(err)
	}
	c := report(t, &sc.Config).Classes[0]
	for _, l := range []struct {
		name string
		l    sim.Latency
	}{{"hedged", c.Latency}, {"no hedging", c.NoHedging.Latency}} {
		cis := l.l.CIs
		if cis == nil || cis.Method != sim.CIMethodBatch {
			t.Fatalf("%s: intervals %+v: want batched ones", l.name, cis)
		}
		for _, ci := range [][2]float64{l.l.P95CI95, l.l.P99CI95, cis.Mean, cis.P50, cis.P90, cis.P999} {
			if ci[0] < 0 || math.IsNaN(ci[0]) != math.IsNaN(ci[1]) {
				t.Errorf("%s: interval %v: want bounds ≥ 0", l.name, ci)
			}
		}
	}
	b := c.NoHedging.Latency
	if b.P95CIOK || b.P95CI95[0] != 0 {
		t.Errorf("no hedging p95 %v [%v, %v] OK %v: want the interval clipped at 0 and not OK (it reached below 0)",
			b.P95, b.P95CI95[0], b.P95CI95[1], b.P95CIOK)
	}
}
