package optimize_test

import (
	"bytes"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// TestReportDoesNotDependOnWorkers: the report of a sweep and its rollout
// check (whose runs are split into ranges on the workers) is the same JSON,
// byte for byte, on 1, 2 and 3 workers.
func TestReportDoesNotDependOnWorkers(t *testing.T) {
	sc, err := scenario.LoadFS(scenarios.FS, "guard-check.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := optimize.DefaultSettings()
	s.Requests = 3000
	s.CheckRequests = 20_001
	var first []byte
	for w := 1; w <= 3; w++ {
		rep, err := optimize.Run(&sc.Config, s, optimize.Options{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Rollout == nil {
			t.Fatal("no rollout check")
		}
		var b bytes.Buffer
		if err := rep.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		if w == 1 {
			first = b.Bytes()
		} else if !bytes.Equal(b.Bytes(), first) {
			t.Errorf("the report on %d workers differs from the one on 1", w)
		}
	}
}

// TestRoutingDoesNotDependOnWorkers: a sweep with a balancer comparison,
// whose sweeps under the other balancers run side by side, gives the same
// JSON, byte for byte, on 1 worker (one sweep after another, each on one
// goroutine), on 2 and 3 (as many sweeps at once, one goroutine each) and
// on 8 (three sweeps at once, two goroutines each). Under -short with
// half the requests: the identity holds at any size.
func TestRoutingDoesNotDependOnWorkers(t *testing.T) {
	t.Parallel()
	s := optimize.DefaultSettings()
	s.Requests, s.CheckRequests = 2000, 4000
	if testing.Short() {
		s.Requests, s.CheckRequests = 1000, 2000
	}
	s.Balancers = []sim.Balancer{sim.LatencyEWMA, sim.PowerOfTwo, sim.LeastOutstanding}
	var first []byte
	for _, w := range []int{1, 2, 3, 8} {
		rep, err := optimize.Run(stragglerPool(sim.RandomBalancer), s, optimize.Options{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Routing == nil || len(rep.Routing.Balancers) != 3 {
			t.Fatalf("%d workers: routing %+v: want three balancers compared", w, rep.Routing)
		}
		var b bytes.Buffer
		if err := rep.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		if w == 1 {
			first = b.Bytes()
		} else if !bytes.Equal(b.Bytes(), first) {
			t.Errorf("the report with balancers on %d workers differs from the one on 1", w)
		}
	}
}
