package optimize_test

import (
	"reflect"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// oneClassScenario is one class hedging one model: with the sweep's
// draws, its rollout check would be the pick's candidate run again.
const oneClassScenario = `seed = 3
requests = 4000
[arrivals]
rate = 20.0
[models.m]
latency = { kind = "lognormal", median = 1.0, p95 = 4.0 }
price_per_request = 0.001
[[classes]]
name = "c"
deadline = "30s"
[classes.hedge]
primary = "m"
delay = "2s"
max_copies = 1
`

// TestRolloutCheckOwnDraws: a rollout check of as many requests as each
// candidate (--check-requests = --requests) runs on its own seed
// (CheckSeed of the sweep's), so its latencies are not the pick's sweep
// run again — with the sweep's draws a one-class scenario's check is that
// run request for request, its p95 and p99 equal to the prediction — and
// the check is exactly a run of RolloutConfig on that seed (what
// --write-scenario writes). A check of more requests than a candidate's
// (the default, 5 × --requests) keeps the sweep's seed and says none.
func TestRolloutCheckOwnDraws(t *testing.T) {
	sc, err := scenario.Parse("one-class.toml", []byte(oneClassScenario))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 4000, 4000
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
	rc := rep.Rollout
	if rc == nil || rc.Seed == nil || *rc.Seed != optimize.CheckSeed(sc.Config.Seed) || *rc.Seed == sc.Config.Seed {
		t.Fatalf("rollout check %+v; want one on seed CheckSeed(%d)", rc, sc.Config.Seed)
	}
	got := rc.Classes[0]
	if got.Checked.P95 == got.Predicted.P95 && got.Checked.P99 == got.Predicted.P99 {
		t.Errorf("check p95 %v p99 %v: the sweep's prediction exactly; want the check's own draws", got.Checked.P95, got.Checked.P99)
	}
	cfg := optimize.RolloutConfig(&sc.Config, rep, 4000)
	cfg.Seed = *rc.Seed
	hedged, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	base, err := sim.Run(sim.WithoutHedging(cfg))
	if err != nil {
		t.Fatal(err)
	}
	want := sim.NewReport(cfg, hedged, base).Classes[0].Latency
	if g := got.Checked; g.Mean != want.Mean || g.P50 != want.P50 || g.P95 != want.P95 || g.P99 != want.P99 || !reflect.DeepEqual(g.P95CI95, want.P95CI95) {
		t.Errorf("check latency %+v; a run of the picks on its seed gives %+v", got.Checked, want)
	}

	s.CheckRequests = -1 // the default: 5 × --requests
	if rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2}); rep.Rollout == nil || rep.Rollout.Seed != nil {
		t.Errorf("default rollout check %+v; want one on the sweep's seed", rep.Rollout)
	}
}
