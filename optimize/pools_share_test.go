package optimize_test

import (
	"slices"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// TestReplicaPoolBalancersShareFourClasses: of the 13 class sweeps of
// `optimize --balancers p2c,latency_ewma,least_outstanding,round_robin
// replica-pool`, 4 take another class's measurements — ewma under p2c is
// p2c as configured, p2c under latency_ewma is ewma as configured, and
// ewma under least_outstanding and round_robin is p2c under the same —
// and random (share 0.334 against 0.333) none: 9 are simulated.
func TestReplicaPoolBalancersShareFourClasses(t *testing.T) {
	sc, err := scenario.LoadFS(scenarios.FS, "replica-pool.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Balancers = []sim.Balancer{sim.PowerOfTwo, sim.LatencyEWMA, sim.LeastOutstanding, sim.RoundRobin}
	first, taken := optimize.SameClasses(&sc.Config, s)
	wantFirst := [][]string{{"random"}, {"random"}, {"random", "p2c"}, {"random", "p2c"}}
	wantTaken := [][]string{{"ewma<--1:p2c"}, {"p2c<--1:ewma"}, {"ewma<-2:p2c"}, {"ewma<-3:p2c"}}
	for k := range wantFirst {
		if !slices.Equal(first[k], wantFirst[k]) || !slices.Equal(taken[k], wantTaken[k]) {
			t.Errorf("%s: simulated %q, taken %q; want %q and %q", s.Balancers[k], first[k], taken[k], wantFirst[k], wantTaken[k])
		}
	}
}
