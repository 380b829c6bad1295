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

// TestThroughputCountsPipelineRequests: beside a closed-loop class, the
// throughput meters count a pipeline class's requests as they end, not
// its calls. 3 clients without think time on a constant 100 ms call get 30
// requests/s done; the pipeline class takes the open arrivals, Poisson at
// 20/s, each request making 5 calls (4 fanned out, then 1). So the
// pipeline class's meter reads 20/s and the overall one 50/s — not 20·5 +
// 30 = 130/s — and neither counts more ends than the run has requests.
// A Poisson count over a span of T s has a standard deviation of √(20·T)
// requests, so the rates are checked within 5·√(20/T) per second; the
// overall one also within the closed class's last-round shortfall, N/n of
// its rate (TestClosedLoopMixed).
func TestThroughputCountsPipelineRequests(t *testing.T) {
	cfg := closedConfig(20_000, 3, 0, 1, 0)
	cfg.Models[0].Latency = dist.Constant{Value: 0.1}
	cfg.Arrivals = sim.Arrivals{Process: sim.Poisson, Rate: 20}
	cfg.Classes = append(cfg.Classes, sim.Class{Name: "pipeline", Share: 1, Pipeline: &sim.Pipeline{
		Steps:  []sim.Step{{Name: "shards", Call: call(0, sim.FailClosed), FanOut: 4}, {Name: "merge", Call: call(0, sim.FailClosed), FanOut: 1}},
		Stages: []sim.Stage{{Steps: []int{0}}, {Steps: []int{1}}},
	}})
	res := mustRun(t, cfg)
	closed, pipe, all := res.Classes[0], res.Classes[1], res.Overall
	if pipe.Requests == 0 || closed.Requests == 0 || all.Requests != int64(cfg.Requests) {
		t.Fatalf("%d closed-loop and %d pipeline requests of %d; want both classes to have some", closed.Requests, pipe.Requests, all.Requests)
	}
	for _, c := range []struct {
		name  string
		n     int64
		tp    *sim.Throughput
		want  float64
		extra float64
	}{
		{"pipeline", pipe.Requests, pipe.Throughput, 20, 0},
		{"overall", all.Requests, all.Throughput, 50, 30 * 3 / float64(closed.Requests)},
	} {
		if c.tp == nil || c.tp.Requests > c.n || c.tp.Requests <= 0 {
			t.Errorf("%s: throughput %+v over %d requests; want ends counted per request, at most %d", c.name, c.tp, c.n, c.n)
			continue
		}
		if tol := 5*math.Sqrt(20/c.tp.Seconds) + c.extra; math.Abs(c.tp.PerSecond-c.want) > tol {
			t.Errorf("%s: throughput %.3f/s; want %g/s (tolerance %.2g)", c.name, c.tp.PerSecond, c.want, tol)
		}
	}
}
