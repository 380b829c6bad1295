//go:build unix

package optimize_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// cpuTime returns the user and system CPU time of the process so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkOptimizeDefault is a full default optimisation of the default
// scenario: every class × the default grid (delay 0, 3 delays below p10
// and 40 from p10 to p99) × 2·10⁵ requests per candidate, on GOMAXPROCS
// workers. Besides wall time per op it reports CPU seconds per op
// (cpu-s/op), simulated requests per wall second and per CPU second.
func BenchmarkOptimizeDefault(b *testing.B) {
	bench(b, optimize.DefaultRequests)
}

// BenchmarkOptimizeScaling runs the same optimisation at fewer requests per
// candidate: time per op should scale with requests × candidates.
func BenchmarkOptimizeScaling(b *testing.B) {
	for _, n := range []int{25_000, 50_000, 100_000} {
		b.Run(fmtK(n), func(b *testing.B) { bench(b, n) })
	}
}

func fmtK(n int) string {
	return string(rune('0'+n/100_000)) + string(rune('0'+n/10_000%10)) + string(rune('0'+n/1000%10)) + "k"
}

func bench(b *testing.B, requests int) {
	sc, err := scenario.LoadFS(scenarios.FS, scenarios.Default)
	if err != nil {
		b.Fatal(err)
	}
	s := optimize.DefaultSettings()
	s.Requests = requests
	b.ReportAllocs()
	var runs int
	cpu0 := cpuTime(b)
	for b.Loop() {
		rep, err := optimize.Run(&sc.Config, s, optimize.Options{})
		if err != nil {
			b.Fatal(err)
		}
		runs = 0
		for _, cr := range rep.Classes {
			runs += len(cr.Candidates)
		}
	}
	cpu := (cpuTime(b) - cpu0).Seconds() / float64(b.N)
	wall := b.Elapsed().Seconds() / float64(b.N)
	reqs := float64(runs) * float64(requests)
	b.ReportMetric(cpu, "cpu-s/op")
	b.ReportMetric(float64(runs), "runs/op")
	b.ReportMetric(reqs/wall, "req/s")
	b.ReportMetric(reqs/cpu, "req/cpu-s")
}

// BenchmarkOptimizeShipped optimizes every shipped scenario with 20 000
// requests per candidate (and the rollout check's default of 5× that),
// one sub-benchmark per scenario: the figure behind "no slowdown of
// optimize on the shipped scenarios". Run with -benchtime=1x and a small
// -count, and compare cpu-s/op with benchstat.
func BenchmarkOptimizeShipped(b *testing.B) {
	for _, name := range scenarios.Names() {
		b.Run(name, func(b *testing.B) {
			sc, err := scenario.LoadFS(scenarios.FS, name)
			if err != nil {
				b.Fatal(err)
			}
			s := sc.Optimize
			s.Requests = 20_000
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

// BenchmarkOptimizeGuardedChat is `hedgesim optimize --objective answered
// --target 10s testdata/guarded-chat.toml` in process: the allocation search
// of a three-step pipeline (1 100 combinations of its steps' grids) at
// 2·10⁵ turns per candidate, and the rollout check at 10⁶, on GOMAXPROCS
// workers. It reports CPU seconds and candidates (runs) per op.
func BenchmarkOptimizeGuardedChat(b *testing.B) {
	cfg, s := guardedChat(b, optimize.DefaultRequests)
	s.CheckRequests = -1
	var runs int
	cpu0 := cpuTime(b)
	for b.Loop() {
		rep, err := optimize.Run(cfg, s, optimize.Options{})
		if err != nil {
			b.Fatal(err)
		}
		runs = len(rep.Classes[0].Candidates)
	}
	b.ReportMetric((cpuTime(b)-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(runs), "runs/op")
}
