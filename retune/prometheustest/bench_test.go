package prometheustest

import (
	"context"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/tsdb"

	"github.com/hedgesim/hedgesim/fit"
	"github.com/hedgesim/hedgesim/retune"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// gatewayPrometheus fills a Prometheus with an hour of each model's time to
// first token for the default scenario (two-model-gateway), 40 draws per
// model every 15 s, large-a's scaled by slow (1: its own model).
func gatewayPrometheus(b *testing.B, slow float64) (string, *scenario.Scenario) {
	b.Helper()
	url, db := server(b)
	sc, err := scenario.LoadFS(scenarios.FS, scenarios.Default)
	if err != nil {
		b.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	bounds := prometheus.ExponentialBuckets(0.05, 1.4, 18)
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "llm_ttft_seconds", Buckets: bounds}, []string{"model"})
	reg.MustRegister(h)
	src := rand.NewPCG(36, 7)
	start := time.Now().Add(-time.Hour)
	for at := start; at.Before(start.Add(time.Hour)); at = at.Add(15 * time.Second) {
		for _, m := range sc.Config.Models {
			f := 1.0
			if m.Name == "large-a" {
				f = slow
			}
			for range 40 {
				h.WithLabelValues(m.Name).Observe(f * m.TTFT.Rand(src))
			}
		}
		appendGathered(b, db, reg, at)
	}
	return url, sc
}

// appendGathered appends every bucket of reg's histograms to db at at.
func appendGathered(b *testing.B, db *tsdb.DB, reg *prometheus.Registry, at time.Time) {
	fams, err := reg.Gather()
	if err != nil {
		b.Fatal(err)
	}
	app := db.Appender(context.Background())
	for _, f := range fams {
		for _, s := range f.Metric {
			base := []string{"job", "gateway"}
			for _, lp := range s.Label {
				base = append(base, lp.GetName(), lp.GetValue())
			}
			add := func(le string, v float64) {
				if _, err := app.Append(0, labels.FromStrings(append(base, "__name__", f.GetName()+"_bucket", "le", le)...), at.UnixMilli(), v); err != nil {
					b.Fatal(err)
				}
			}
			for _, bk := range s.Histogram.Bucket {
				add(fmtLE(bk.GetUpperBound()), float64(bk.GetCumulativeCount()))
			}
			add("+Inf", float64(s.Histogram.GetSampleCount()))
		}
	}
	if err := app.Commit(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRetuneUnchanged is a retune of the default scenario's models
// from a local Prometheus when nothing drifted: the queries, fits and
// drift tests, no simulation.
func BenchmarkRetuneUnchanged(b *testing.B) {
	url, sc := gatewayPrometheus(b, 1)
	ctx := context.Background()
	ps := retune.PromSource{URL: url, Timeout: 10 * time.Second, Window: 30 * time.Minute}
	cpu := cpuSeconds()
	defer func() { b.ReportMetric((cpuSeconds()-cpu)/float64(b.N), "cpu-s/op") }()
	for b.Loop() {
		live, err := retune.ReadPrometheus(ctx, ps, &sc.Config, retune.Query{Metric: "llm_ttft_seconds"})
		if err != nil {
			b.Fatal(err)
		}
		ms, err := retune.Assess(ctx, &sc.Config, live, fit.Options{Model: fit.ModelAuto, Seed: 1}, 0.01)
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range ms {
			if m.Drift.Verdict != retune.Unchanged {
				b.Fatalf("%s: %s", m.Model, m.Drift.Why)
			}
		}
	}
}

// BenchmarkRetuneShifted is the same retune after large-a's time to first
// token grew by 30 %: with the scenario's own optimisation settings, the
// current policies checked on both models, a full optimisation on the
// live ones and the comparison with an adaptive delay.
func BenchmarkRetuneShifted(b *testing.B) { benchShifted(b, false) }

// BenchmarkRetuneShiftedNoAdaptive is BenchmarkRetuneShifted without the
// comparison with an adaptive delay (--no-adaptive).
func BenchmarkRetuneShiftedNoAdaptive(b *testing.B) { benchShifted(b, true) }

func benchShifted(b *testing.B, noAdaptive bool) {
	url, sc := gatewayPrometheus(b, 1.3)
	ctx := context.Background()
	ps := retune.PromSource{URL: url, Timeout: 10 * time.Second, Window: 30 * time.Minute}
	cpu := cpuSeconds()
	for b.Loop() {
		live, err := retune.ReadPrometheus(ctx, ps, &sc.Config, retune.Query{Metric: "llm_ttft_seconds"})
		if err != nil {
			b.Fatal(err)
		}
		ms, err := retune.Assess(ctx, &sc.Config, live, fit.Options{Model: fit.ModelAuto, Seed: 1}, 0.01)
		if err != nil {
			b.Fatal(err)
		}
		if ms[0].Drift.Verdict != retune.Shifted {
			b.Fatalf("large-a: %s", ms[0].Drift.Why)
		}
		if _, err := retune.RecheckPolicy(ctx, &sc.Config, retune.LiveConfig(&sc.Config, ms), retune.RecheckOptions{Settings: sc.Optimize, Models: ms, NoAdaptive: noAdaptive}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuSeconds()-cpu)/float64(b.N), "cpu-s/op")
}

// cpuSeconds is the user and system CPU time of the process so far, in
// seconds: on a machine shared with other jobs it varies less than the
// wall time does.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
