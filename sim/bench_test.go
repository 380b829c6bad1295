package sim_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// BenchmarkGuardCheck simulates field report 1 (bimodal latency, copies at
// 1 s and 2 s, 3 s deadline, Poisson arrivals at 50/s). It reports simulated
// requests per second of wall time and allocations per request; run with
// -benchmem and compare runs with benchstat.
func BenchmarkGuardCheck(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmtInt(n), func(b *testing.B) {
			cfg := oneModel(n, bimodal(b), 2, time.Second)
			cfg.Classes[0].Deadline = 3 * time.Second
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sim.Run(cfg); err != nil {
					b.Fatal(err)
				}
			}
			perOp := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(n)/perOp, "req/s")
		})
	}
}

func fmtInt(n int) string {
	if n%1000 == 0 {
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}
