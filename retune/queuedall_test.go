package retune

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/fit"
	"github.com/hedgesim/hedgesim/readers"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// everyCallHistogram simulates cfg with seed and buckets model's calls at
// bounds as a histogram of every call counts them (CountsAll): a completed
// attempt's latency End − Start, one cancelled in service to the end its
// answer would have had (Due − Start: its wait and its drawn service
// time); one cancelled while still queued never reached the model.
func everyCallHistogram(t *testing.T, cfg *sim.Config, seed uint64, model string, bounds []float64) *readers.Histogram {
	t.Helper()
	return traceHistogram(t, cfg, seed, bounds, func(a *sim.AttemptRecord) (float64, bool) {
		switch {
		case a.Model != model:
		case a.Outcome == "completed":
			return (a.End - a.Start).Seconds(), true
		case a.Outcome == "cancelled" && a.Due > 0:
			return (a.Due - a.Start).Seconds(), true
		}
		return 0, false
	})
}

// TestAssessQueuedHedgedEveryCallUnchanged: model a's provider has 4
// slots near saturation, and class c hedges a at about its p80 (680 ms)
// with a copy to b, cancelling a's slow calls. A histogram of every call
// of a (--histogram-counts all, the default) made from the scenario's own
// traffic holds those cancelled calls to their end; judged against the
// completed attempts simulated alone, which lack them, it read shifted in
// every seed. Judged against every call simulated to its end, it must
// read unchanged in at least 19 of 20 seeds: each is a false alarm with
// probability about alpha = 0.01, so 2 or more in 20 happen with
// probability 1.7 % (under -short, 4 seeds and none allowed: 3.9 %).
func TestAssessQueuedHedgedEveryCallUnchanged(t *testing.T) {
	sc, err := scenario.Load("testdata/hedgedq4.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &sc.Config
	seeds := 20
	if testing.Short() {
		seeds = 4
	}
	alarms := 0
	for s := range seeds {
		seed := uint64(500 + s)
		h := everyCallHistogram(t, cfg, seed, "a", pool3Bounds)
		live := []Live{{Model: "a", Index: 0, Key: "latency", Query: `inference_latency_seconds{model="a"}`, Hist: h}}
		ms, err := Assess(context.Background(), cfg, live, fit.Options{Model: fit.ModelAuto, Seed: 1}, 0.01)
		if err != nil {
			t.Fatal(err)
		}
		m := &ms[0]
		if m.QueuedAt != "pa" || m.Refit() || !strings.Contains(m.Against, "cancelled in service counted to the end of their drawn service time") {
			t.Fatalf("seed %d: queued at %q, refit %v, judged against %q; want pa, false, the cancelled calls counted to their end", seed, m.QueuedAt, m.Refit(), m.Against)
		}
		if m.Drift.Verdict != Unchanged {
			alarms++
			t.Logf("seed %d: %s: %s", seed, m.Drift.Verdict, m.Drift.Why)
		}
	}
	if alarms > seeds/20 {
		t.Errorf("%d of %d seeds read a's own traffic as drifted; want at most %d", alarms, seeds, seeds/20)
	}
	// A histogram of a's answered calls only, taken as every call's,
	// lacks the cancelled slow calls (X² above 2000 on 6 df in every seed
	// checked): shifted, with the warning that names the flag.
	h := modelHistogram(t, cfg, 500, "a", pool3Bounds)
	live := []Live{{Model: "a", Index: 0, Key: "latency", Query: `inference_latency_seconds{model="a"}`, Hist: h}}
	ms, err := Assess(context.Background(), cfg, live, fit.Options{Model: fit.ModelAuto, Seed: 1}, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	if m := &ms[0]; m.Drift.Verdict != Shifted || m.Refit() || !slices.ContainsFunc(m.Drift.Warnings, func(w string) bool {
		return strings.Contains(w, "reads faster than every call simulated") && strings.Contains(w, "--histogram-counts answered")
	}) {
		t.Errorf("answered calls taken as every call: %s, refit %v, warnings %q; want shifted, not refitted, with a warning naming --histogram-counts answered", m.Drift.Verdict, m.Refit(), m.Drift.Warnings)
	}
}
