package optimize_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// TestLoopBatchesShareDrawsExactly: the sweeps of shipped scenarios whose
// candidates run on the event loop — a replica pool (under two more
// balancers), a FIFO queue near saturation, a token bucket with degraded
// periods, stacked retries; under -short the first and the last, at half
// the requests — report byte for byte the same whether the
// candidates run in batches that share their draws (sim.RunPoliciesEach)
// or each alone, on one worker and on three.
func TestLoopBatchesShareDrawsExactly(t *testing.T) {
	names := []string{"replica-pool", "loaded-provider", "rate-limited-slowdown", "stacked-retries"}
	requests := 2000
	if testing.Short() {
		names, requests = []string{"replica-pool", "stacked-retries"}, 1000
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			sc, err := scenario.LoadFS(scenarios.FS, name+".toml")
			if err != nil {
				t.Fatal(err)
			}
			s := sc.Optimize
			s.Requests, s.CheckRequests = requests, 0
			if name == "replica-pool" {
				s.Balancers = []sim.Balancer{sim.PowerOfTwo, sim.LeastOutstanding}
			}
			report := func(alone bool, workers int) []byte {
				defer optimize.ShareLoopDraws(!alone)()
				rep, err := optimize.Run(&sc.Config, s, optimize.Options{Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				b, err := json.Marshal(rep)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			want := report(true, 1)
			for _, workers := range []int{1, 3} {
				if got := report(false, workers); !bytes.Equal(got, want) {
					t.Errorf("%d workers: the report differs when candidates off the lane share their draws:\n%s\n%s", workers, got, want)
				}
			}
		})
	}
}
