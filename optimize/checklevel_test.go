package optimize_test

import (
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// TestCheckIntervalsAtLevel: the rollout check's p95 and p99 intervals,
// with the pick and without hedging, are at the report's confidence
// level, as the sweep's are: they widen from 50 % to 95 % to 99 %, and at
// 95 % they are the check's own run report's. Before, they were the run
// report's 95 % intervals at every level. For independent requests (the
// two-model gateway) and for requests that interact (the pool with a slow
// replica: batched intervals after the warm-up cut, 12000 requests so
// that 6000 remain for a p95 interval; its p95 without hedging is a miss,
// whose interval has no width).
func TestCheckIntervalsAtLevel(t *testing.T) {
	for _, c := range []struct {
		name, toml string
		delay      time.Duration
		check      int
	}{{"gateway", gatewayScenario, 1870 * time.Millisecond, 3000}, {"pool", slowReplicaPoolScenario, 1500 * time.Millisecond, 12000}} {
		sc, err := scenario.Parse(c.name+".toml", []byte(c.toml))
		if err != nil {
			t.Fatal(err)
		}
		var last [4]float64 // widths of the check's p95, p99, and no hedging's
		for _, level := range []float64{0.5, 0.95, 0.99} {
			s := sc.Optimize
			s.Requests, s.CheckRequests, s.Level = 3000, c.check, level
			s.Search.Delays = []time.Duration{c.delay}
			rc := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2}).Rollout
			if rc == nil {
				t.Fatalf("%s: no rollout check", c.name)
			}
			got := rc.Classes[0]
			if !got.Checked.P95CIOK || !got.NoHedging.P95CIOK {
				t.Fatalf("%s at %v: check's p95 intervals not OK: %+v, %+v", c.name, level, got.Checked, got.NoHedging)
			}
			w := [4]float64{
				got.Checked.P95CI95[1] - got.Checked.P95CI95[0], got.Checked.P99CI95[1] - got.Checked.P99CI95[0],
				got.NoHedging.P95CI95[1] - got.NoHedging.P95CI95[0], got.NoHedging.P99CI95[1] - got.NoHedging.P99CI95[0],
			}
			if math.IsNaN(w[0]) || math.IsInf(w[0], 0) {
				t.Fatalf("%s at %v: the check's p95 interval %v is not finite", c.name, level, got.Checked.P95CI95)
			}
			for k := range w {
				if math.IsNaN(w[k]) || math.IsInf(w[k], 0) {
					continue // a miss (the pool's p95 without hedging): no width to compare
				}
				if level > 0.5 && !(w[k] > last[k]) {
					t.Errorf("%s: interval %d at %v is %.4g s wide, not wider than %.4g s at the level below", c.name, k, level, w[k], last[k])
				}
			}
			last = w
			if level == 0.95 {
				run := rc.Report.Classes[0]
				if got.Checked.P95CI95 != run.Latency.P95CI95 || got.Checked.P99CI95 != run.Latency.P99CI95 ||
					got.NoHedging.P95CI95 != run.NoHedging.Latency.P95CI95 {
					t.Errorf("%s at 95%%: check's intervals %v %v, no hedging %v; the run report's %v %v, %v", c.name,
						got.Checked.P95CI95, got.Checked.P99CI95, got.NoHedging.P95CI95,
						run.Latency.P95CI95, run.Latency.P99CI95, run.NoHedging.Latency.P95CI95)
				}
			}
		}
	}
}
