package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestPipelineBesideClosedLoop: a pipeline class of fanned-out calls, and of
// a retried call, beside a closed-loop class, as TestClosedLoopMixed's open
// class. A call's slot belongs to no client: the run ends without a panic
// (a call in a slot no arrival had used), every request is simulated once,
// and the closed-loop
// class keeps its cycle — 3 clients, no think time, 100 ms a request: 30
// requests/s — rather than a client sending again when a call ends in a
// slot one of its requests used before.
func TestPipelineBesideClosedLoop(t *testing.T) {
	cfg := closedConfig(20_000, 3, 0, 1, 0)
	cfg.Models[0].Latency = dist.Constant{Value: 0.1}
	cfg.Arrivals = sim.Arrivals{Process: sim.Poisson, Rate: 20}
	// The merge step's model fails a third of its calls, which its retry
	// re-runs in a fresh slot (retryCall reads its slot's client too).
	cfg.Models = append(cfg.Models, sim.Model{Name: "e", Provider: "e", Latency: dist.Constant{Value: 0.1}, ErrorRate: 0.3})
	merge := call(0, sim.FailClosed)
	merge.Policy.Primary, merge.Retry = 1, fixedRetry(3, 10*time.Millisecond, 1)
	cfg.Classes = append(cfg.Classes, sim.Class{Name: "pipeline", Share: 1, Pipeline: &sim.Pipeline{
		Steps:  []sim.Step{{Name: "shards", Call: call(0, sim.FailClosed), FanOut: 4}, {Name: "merge", Call: merge, FanOut: 1}},
		Stages: []sim.Stage{{Steps: []int{0}}, {Steps: []int{1}}},
	}})
	res := mustRun(t, cfg)
	checkAttempts(t, res)
	if got := res.Overall.Requests; got != int64(cfg.Requests) {
		t.Errorf("%d requests; want %d", got, cfg.Requests)
	}
	// When the requests run out, fewer than 3 clients may send the last
	// round: a relative shortfall below N/n (TestClosedLoopMixed).
	closed := res.Classes[0].Throughput.PerSecond
	if tol := 30 * 3 / float64(res.Classes[0].Requests); math.Abs(closed-30) > tol {
		t.Errorf("closed-loop throughput %v/s; want 30/s (tolerance %.2g)", closed, tol)
	}
}
