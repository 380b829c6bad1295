package optimize_test

import (
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// TestCandidateLatencyIntervalNotBelowZero: the sweep of a pool that
// scales to zero (sim's TestBatchedLatencyIntervalNotBelowZero, the same
// seed and 6000 requests) gave no hedging the batched p95 interval
// [-0.056 s, 6.32 s], marked OK: a candidate's latency interval that
// reaches below 0 is not OK, and none that is OK does.
func TestCandidateLatencyIntervalNotBelowZero(t *testing.T) {
	t.Parallel()
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
price_per_request = 0.002
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
	s := optimize.DefaultSettings()
	s.Requests = 6000
	s.CheckRequests = 0
	rep, err := optimize.Run(&sc.Config, s, optimize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs := rep.Classes[0].Candidates
	if cs[0].Hedging || cs[0].P95CIOK {
		t.Errorf("no hedging: p95 %v, interval %v OK %v: want not OK (it reached below 0)", cs[0].Latency.P95, cs[0].Latency.P95CI95, cs[0].P95CIOK)
	}
	// Its 6000 requests kept the 6000 the interval needs (30 batches of
	// 200): the warning says the interval reached below 0, not that 6000
	// are too few when 6000 are needed.
	var said bool
	for _, w := range rep.Classes[0].Warnings {
		if strings.Contains(w, "interval on p95") {
			said = true
			if !strings.Contains(w, "a batched interval reached below 0") || strings.Contains(w, "too few") {
				t.Errorf("warning %q: want the interval said to reach below 0", w)
			}
		}
	}
	if !said {
		t.Errorf("no warning on p95's interval among %q", rep.Classes[0].Warnings)
	}
	for _, c := range cs {
		if c.P95CIOK && c.Latency.P95CI95[0] < 0 || c.P99CIOK && c.Latency.P99CI95[0] < 0 {
			t.Errorf("%s: p95 interval %v (OK %v), p99 %v (OK %v): want none OK below 0", c.Label, c.Latency.P95CI95, c.P95CIOK, c.Latency.P99CI95, c.P99CIOK)
		}
	}
}
