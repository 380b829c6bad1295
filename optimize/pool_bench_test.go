//go:build unix

package optimize_test

import (
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// BenchmarkOptimizeReplicaPool is the default `hedgesim optimize
// replica-pool` in process: three single-class pools, each class's default
// grid × 2·10⁵ requests on the event loop, and the rollout check at 10⁶,
// on GOMAXPROCS workers. It reports CPU seconds per op.
func BenchmarkOptimizeReplicaPool(b *testing.B) {
	sc, err := scenario.LoadFS(scenarios.FS, "replica-pool.toml")
	if err != nil {
		b.Fatal(err)
	}
	cpu0 := cpuTime(b)
	for b.Loop() {
		if _, err := optimize.Run(&sc.Config, sc.Optimize, optimize.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuTime(b)-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkOptimizeGuardedChatDefault is the default `hedgesim optimize
// optimize/testdata/guarded-chat.toml` in process: the search of its three
// steps at the file's 10⁵ turns per candidate and the rollout check. It
// reports CPU seconds per op.
func BenchmarkOptimizeGuardedChatDefault(b *testing.B) {
	sc, err := scenario.Load("testdata/guarded-chat.toml")
	if err != nil {
		b.Fatal(err)
	}
	cpu0 := cpuTime(b)
	for b.Loop() {
		if _, err := optimize.Run(&sc.Config, sc.Optimize, optimize.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuTime(b)-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkOptimizeReplicaPoolSmall is BenchmarkOptimizeReplicaPool at
// 2·10⁴ requests per candidate and 10⁵ in the rollout check, on one
// worker: a size for instruction counts (callgrind).
func BenchmarkOptimizeReplicaPoolSmall(b *testing.B) {
	sc, err := scenario.LoadFS(scenarios.FS, "replica-pool.toml")
	if err != nil {
		b.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 20_000, 100_000
	for b.Loop() {
		if _, err := optimize.Run(&sc.Config, s, optimize.Options{Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOptimizeReplicaPoolBalancers is `hedgesim optimize --balancers
// p2c,latency_ewma,least_outstanding,round_robin replica-pool` in process
// at 2·10⁴ requests per candidate and 10⁵ in the rollout check: "shared"
// as it runs, a class that is another under other names taking the
// other's measurements; "apart" with every class simulated. It reports
// CPU seconds per op.
func BenchmarkOptimizeReplicaPoolBalancers(b *testing.B) {
	sc, err := scenario.LoadFS(scenarios.FS, "replica-pool.toml")
	if err != nil {
		b.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 20_000, 100_000
	s.Balancers = []sim.Balancer{sim.PowerOfTwo, sim.LatencyEWMA, sim.LeastOutstanding, sim.RoundRobin}
	for _, share := range []bool{true, false} {
		name := "apart"
		if share {
			name = "shared"
		}
		b.Run(name, func(b *testing.B) {
			defer optimize.ShareSameClasses(share)()
			cpu0 := cpuTime(b)
			for b.Loop() {
				if _, err := optimize.Run(&sc.Config, s, optimize.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuTime(b)-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}
