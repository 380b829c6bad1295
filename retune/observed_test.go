package retune

import (
	"context"
	"math"
	"testing"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/fit"
	"github.com/hedgesim/hedgesim/readers"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// pool3Bounds are the bucket bounds of the field report's histogram.
var pool3Bounds = []float64{0.1, 0.25, 0.5, 0.75, 1, 1.5, 2.5, 5, 10}

// clientHistogram simulates cfg with seed and buckets its completed
// attempts' latencies (End − Start) at bounds, as a client-side histogram
// of the model counts them.
func clientHistogram(t *testing.T, cfg *sim.Config, seed uint64, bounds []float64) *readers.Histogram {
	t.Helper()
	return traceHistogram(t, cfg, seed, bounds, func(a *sim.AttemptRecord) (float64, bool) {
		return (a.End - a.Start).Seconds(), a.Outcome == "completed"
	})
}

// traceHistogram simulates cfg with seed and buckets at bounds (and +Inf)
// the latency latency gives of each attempt it keeps (ok).
func traceHistogram(t *testing.T, cfg *sim.Config, seed uint64, bounds []float64, latency func(*sim.AttemptRecord) (x float64, ok bool)) *readers.Histogram {
	t.Helper()
	c := *cfg
	c.Seed = seed
	h := &readers.Histogram{File: "live.txt", Format: "prometheus", Metric: "inference_latency_seconds", Unit: readers.Seconds, Whole: true}
	lo := 0.0
	for _, b := range append(bounds, math.Inf(1)) {
		h.Lower, h.Upper = append(h.Lower, lo), append(h.Upper, b)
		h.Counts = append(h.Counts, 0)
		lo = b
	}
	if _, err := sim.RunTrace(&c, func(a *sim.AttemptRecord) {
		x, ok := latency(a)
		if !ok {
			return
		}
		for i, u := range h.Upper {
			if x <= u {
				h.Counts[i]++
				break
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestAssessQueuedPoolUnchanged is the field report's case: a pool of 4
// replicas, one 3× slow, concurrency 2, whose client-side histogram of
// every call (the default --histogram-counts all: class api's hedge at 2 s
// cancels a few, counted to their end) was made from the scenario's own
// traffic. Judged against the bare model
// (lognormal median 0.3 s, p95 0.9 s) it read as shifted in the tail; it
// must read unchanged against the client-side latency simulated, in at
// least 19 of 20 seeds (each a false alarm with probability about alpha =
// 0.01, so 2 or more in 20 happen with probability 1.7 %), and a queued
// model must not be refitted. With the model's median 30 % slower (the
// same scenario's traffic on a slower model) it must read shifted in every
// seed.
func TestAssessQueuedPoolUnchanged(t *testing.T) {
	sc, err := scenario.Load("testdata/pool3.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &sc.Config
	slower := *cfg
	slower.Models = append([]sim.Model(nil), cfg.Models...)
	slow, err := dist.LogNormalFromMedianP95(0.39, 1.17)
	if err != nil {
		t.Fatal(err)
	}
	slower.Models[0].Latency = slow
	seeds := 20
	if testing.Short() {
		seeds = 4
	}
	alarms := 0
	for s := range seeds {
		seed := uint64(100 + s)
		for _, c := range []struct {
			cfg   *sim.Config
			shift bool
		}{{cfg, false}, {&slower, true}} {
			h := everyCallHistogram(t, c.cfg, seed, "mistral", pool3Bounds)
			live := []Live{{Model: "mistral", Index: 0, Key: "latency", Query: `inference_latency_seconds{model="mistral"}`, Hist: h}}
			ms, err := Assess(context.Background(), cfg, live, fit.Options{Model: fit.ModelAuto, Seed: 1}, 0.01)
			if err != nil {
				t.Fatal(err)
			}
			m := &ms[0]
			if m.QueuedAt != "tgi" || m.Refit() {
				t.Errorf("seed %d: queued at %q, refit %v; want tgi, false", seed, m.QueuedAt, m.Refit())
			}
			if got := LiveConfig(cfg, ms).Models[0].Latency; got != cfg.Models[0].Latency {
				t.Errorf("seed %d: LiveConfig replaced the queued model's latency with %v", seed, got)
			}
			if c.shift {
				if m.Drift.Verdict != Shifted {
					t.Errorf("seed %d, median +30%%: %s (%s); want shifted", seed, m.Drift.Verdict, m.Drift.Why)
				}
				continue
			}
			if m.Drift.Verdict != Unchanged {
				alarms++
				t.Logf("seed %d: %s: %s", seed, m.Drift.Verdict, m.Drift.Why)
			}
		}
	}
	if alarms > seeds/20 {
		t.Errorf("%d of %d seeds read the unchanged pool as drifted; want at most %d", alarms, seeds, seeds/20)
	}
}

// modelHistogram is clientHistogram of model's completed attempts alone.
func modelHistogram(t *testing.T, cfg *sim.Config, seed uint64, model string, bounds []float64) *readers.Histogram {
	t.Helper()
	c := *cfg
	c.Seed = seed
	h := &readers.Histogram{File: "live.txt", Format: "prometheus", Metric: "inference_latency_seconds", Unit: readers.Seconds, Whole: true}
	lo := 0.0
	for _, b := range append(bounds, math.Inf(1)) {
		h.Lower, h.Upper = append(h.Lower, lo), append(h.Upper, b)
		h.Counts = append(h.Counts, 0)
		lo = b
	}
	if _, err := sim.RunTrace(&c, func(a *sim.AttemptRecord) {
		if a.Outcome != "completed" || a.Model != model {
			return
		}
		x := (a.End - a.Start).Seconds()
		for i, u := range h.Upper {
			if x <= u {
				h.Counts[i]++
				break
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	return h
}
