//go:build unix

package retune

import (
	"context"
	"math"
	"syscall"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/fit"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// BenchmarkAssessGateway is Assess of the default scenario's two models
// (two-model-gateway): their time-to-first-token histograms, 4 800 draws
// each on 18 buckets from 50 ms by ×1.4, large-a's 30 % slower; the fits
// and drift tests without any query or simulation. It reports the
// process's CPU seconds per op besides the wall time.
func BenchmarkAssessGateway(b *testing.B) {
	sc, err := scenario.LoadFS(scenarios.FS, scenarios.Default)
	if err != nil {
		b.Fatal(err)
	}
	var live []Live
	for i, m := range sc.Config.Models {
		d := m.TTFT
		if m.Name == "large-a" {
			l := m.TTFT.(dist.LogNormal)
			l.Mu += math.Log(1.3)
			d = l
		}
		h := histogramOf(d, 4800, expBounds(0.05, 1.4, 18), uint64(i+3))
		h.Metric = "llm_ttft_seconds"
		live = append(live, Live{Model: m.Name, Index: i, Key: "ttft", Query: m.Name, Hist: h})
	}
	cpu := cpuSeconds()
	for b.Loop() {
		ms, err := Assess(context.Background(), &sc.Config, live, fit.Options{Model: fit.ModelAuto, Seed: 1}, 0.01)
		if err != nil {
			b.Fatal(err)
		}
		if ms[0].Drift.Verdict != Shifted {
			b.Fatalf("large-a: %s", ms[0].Drift.Why)
		}
	}
	b.ReportMetric((cpuSeconds()-cpu)/float64(b.N), "cpu-s/op")
}

// cpuSeconds is the process's user and system CPU time so far, in seconds.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
