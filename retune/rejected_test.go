package retune

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/fit"
	"github.com/hedgesim/hedgesim/readers"
	"github.com/hedgesim/hedgesim/scenario"
)

// bucketed returns a histogram in seconds of counts in the buckets
// (0, bounds[0]], …, (bounds[last], +Inf].
func bucketed(bounds, counts []float64) *readers.Histogram {
	h := &readers.Histogram{File: "live.json", Format: "prometheus-api", Unit: readers.Seconds, Whole: true}
	lo := 0.0
	for i, b := range append(bounds, math.Inf(1)) {
		h.Lower, h.Upper, h.Counts = append(h.Lower, lo), append(h.Upper, b), append(h.Counts, counts[i])
		lo = b
	}
	return h
}

// TestAssessRejectedFitNotApplied is a user's report: model m of
// testdata/bimodal.toml (0.9 on U(0.1, 0.3) s, 0.1 on U(3, 5) s) against
// a histogram of 1000 calls in 6 buckets, 350 in (0, 0.2], 350 in
// (0.2, 0.3], 150 in (3, 4] and 150 in (4, 5] s — the slow path's share
// tripled. With 6 buckets only a lognormal is fitted (a mixture-2 needs
// 7); its chi-square rejects it (2797.7 on 3 df), it puts p95 at 6.8 s
// and p99 at 23.8 s where no observation exceeds 5 s, and the counts are
// more likely under the scenario's model than under it (ℓ −2326.6
// against −1457.7). It used to be written as m's latency and policies
// re-picked on it. The drift stays "shifted"; the fit is not applied, and
// the model says why. The same calls in 8 buckets (a (0.3, 1] and a
// (1, 3] bucket) get the mixture-2 of 0.7 and 0.3, which its test cannot
// reject (no degree of freedom left): it is applied. And 10⁴ calls of the
// live latency (0.7 and 0.3), spread evenly over 11 buckets as uniform
// paths spread them, reject every lognormal fit, but are far likelier
// under it than under the scenario's model (0.9 and 0.1): the fit is
// applied, as a chi-square test of so many observations rejects any shape
// that is not exactly the latency's.
func TestAssessRejectedFitNotApplied(t *testing.T) {
	sc, err := scenario.Load("testdata/bimodal.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &sc.Config
	assess := func(h *readers.Histogram) Model {
		t.Helper()
		ms, err := Assess(context.Background(), cfg, []Live{{Model: "m", Index: 0, Key: "latency", Query: `{model="m"}`, Hist: h}},
			fit.Options{Model: fit.ModelAuto, Seed: 1}, 0.01)
		if err != nil {
			t.Fatal(err)
		}
		return ms[0]
	}
	six := assess(bucketed([]float64{0.2, 0.3, 3, 4, 5}, []float64{350, 350, 0, 150, 150, 0}))
	if six.Drift.Verdict != Shifted {
		t.Fatalf("6 buckets: verdict %s (%s), want shifted", six.Drift.Verdict, six.Drift.Why)
	}
	if six.FitName != "lognormal" || six.Refit() || six.Applied {
		t.Errorf("6 buckets: fit %s refitted %v applied %v, want a lognormal not refitted", six.FitName, six.Refit(), six.Applied)
	}
	for _, want := range []string{"not refitted: the live fit (lognormal) is rejected by its own test", "chi-square 2797.7 on 3 df",
		"explains the live counts no better than the scenario's model (log-likelihood -2326.6 against the scenario's -1457.7)",
		"no model of the live latency to re-plan on", "mixture-2 and mixture-3 not tried on these 6 buckets (they need at least 7 and 10)",
		"give a histogram with more buckets, or model the latency by hand"} {
		if !strings.Contains(six.NotApplied, want) {
			t.Errorf("6 buckets: not_applied %q lacks %q", six.NotApplied, want)
		}
	}
	if live := LiveConfig(cfg, []Model{six}); live.Models[0].Latency != cfg.Models[0].Latency {
		t.Errorf("6 buckets: the live config has m's latency %v, want the scenario's", live.Models[0].Latency)
	}
	r := &Report{Models: []Model{six}}
	if notes := r.heldNotes(); len(notes) != 1 || !strings.HasPrefix(notes[0], "shifted, without a model of the live latency: m;") {
		t.Errorf("6 buckets: notes %q, want one on a model without a live model", notes)
	}
	eight := assess(bucketed([]float64{0.2, 0.3, 1, 3, 4, 5}, []float64{350, 350, 0, 0, 150, 150, 0}))
	if eight.Drift.Verdict != Shifted || eight.FitName != "mixture-2" || !eight.Refit() || !eight.Applied || eight.FitRejected != "" {
		t.Errorf("8 buckets: verdict %s fit %s refitted %v applied %v (%s), want a shifted mixture-2 refitted",
			eight.Drift.Verdict, eight.FitName, eight.Refit(), eight.Applied, eight.FitRejected)
	}
	many := assess(bucketed([]float64{0.15, 0.2, 0.25, 0.3, 1, 3, 3.5, 4, 4.5, 5},
		[]float64{1750, 1750, 1750, 1750, 0, 0, 750, 750, 750, 750, 0}))
	if b := many.Fit.Best(); b.DF < 1 || !(b.PValue < 0.01) {
		t.Fatalf("10⁴ calls: the fit %s (chi-square %.1f on %d df, p = %g) is not rejected, so this case tests nothing", b.Name, b.ChiSquare, b.DF, b.PValue)
	}
	if many.Drift.Verdict != Shifted || !many.Refit() || many.FitRejected != "" {
		t.Errorf("10⁴ calls: verdict %s refitted %v (%s), want a shifted model refitted", many.Drift.Verdict, many.Refit(), many.FitRejected)
	}
}

// TestAssessAllAboveTopShiftedNotRefitted: a live histogram whose every
// observation lies above its top bound (a slowdown past the buckets) is
// judged — shifted, as the counts reject the scenario's model — not
// refused as fit refuses it (fit.AllAboveTop), and its fit, whose location
// and spread the counts cannot place, is not applied: the model is not
// refitted and the reason asks for buckets above the top bound.
func TestAssessAllAboveTopShiftedNotRefitted(t *testing.T) {
	sc, err := scenario.Load("testdata/bimodal.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &sc.Config
	h := bucketed([]float64{0.5, 1, 2}, []float64{0, 0, 0, 400})
	if fit.AllAboveTop(h) == nil {
		t.Fatal("the histogram is not all above its top bound: this test tests nothing")
	}
	ms, err := Assess(context.Background(), cfg, []Live{{Model: "m", Index: 0, Key: "latency", Query: `{model="m"}`, Hist: h}},
		fit.Options{Model: fit.ModelAuto, Seed: 1}, 0.01)
	if err != nil {
		t.Fatalf("assess: %v; want a shifted verdict, not an error", err)
	}
	m := ms[0]
	if m.Drift.Verdict != Shifted || m.Refit() || m.Applied {
		t.Errorf("verdict %s refitted %v applied %v; want shifted, not refitted", m.Drift.Verdict, m.Refit(), m.Applied)
	}
	for _, want := range []string{"not refitted: every one of its 400 observations lies above its top bound 2 s", "export buckets above 2 s"} {
		if !strings.Contains(m.NotApplied, want) {
			t.Errorf("not_applied %q lacks %q", m.NotApplied, want)
		}
	}
	if live := LiveConfig(cfg, []Model{m}); live.Models[0].Latency != cfg.Models[0].Latency {
		t.Errorf("the live config has m's latency %v, want the scenario's", live.Models[0].Latency)
	}
}

// TestAssessSpreadUnresolvedNotApplied: 400 calls of model m of
// testdata/bimodal.toml, 250 in (0.3, 1] and 150 in (1, 3] s, where the
// scenario's model (0.9 on U(0.1, 0.3) s, 0.1 on U(3, 5) s) puts none:
// "shifted". With two buckets holding observations the fit says its σ and
// percentiles are artefacts (fit.HistogramFit.SpreadUnresolved), yet it
// used to be applied — m refitted, policies re-picked on it and the fit
// written. The verdict stays "shifted"; the fit is not applied, and the
// model's line and JSON (fit_rejected, not_applied) say why and ask for
// finer buckets.
func TestAssessSpreadUnresolvedNotApplied(t *testing.T) {
	sc, err := scenario.Load("testdata/bimodal.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &sc.Config
	h := bucketed([]float64{0.2, 0.3, 1, 3, 4, 5}, []float64{0, 0, 250, 150, 0, 0, 0})
	ms, err := Assess(context.Background(), cfg, []Live{{Model: "m", Index: 0, Key: "latency", Query: `{model="m"}`, Hist: h}},
		fit.Options{Model: fit.ModelAuto, Seed: 1}, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	m := ms[0]
	if !m.Fit.SpreadUnresolved {
		t.Fatalf("the fit resolves the spread (%d buckets occupied): this test tests nothing", m.Fit.Occupied)
	}
	if m.Drift.Verdict != Shifted || m.Refit() || m.Applied {
		t.Errorf("verdict %s, refitted %v, applied %v; want shifted, not refitted", m.Drift.Verdict, m.Refit(), m.Applied)
	}
	for _, want := range []string{"not refitted: only 2 of its 7 buckets hold observations ((0.3, 1] s, (1, 3] s)", "artefacts of the fit", "export finer buckets"} {
		if !strings.Contains(m.NotApplied, want) {
			t.Errorf("not_applied %q lacks %q", m.NotApplied, want)
		}
	}
	js, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"fit_rejected":"only 2 of its 7 buckets`) || !strings.Contains(string(js), `"applied":false`) {
		t.Errorf("JSON %s; want fit_rejected saying only 2 buckets hold observations, applied false", js)
	}
	if live := LiveConfig(cfg, []Model{m}); live.Models[0].Latency != cfg.Models[0].Latency {
		t.Errorf("the live config has m's latency %v, want the scenario's", live.Models[0].Latency)
	}
	r := &Report{Models: ms}
	if notes := r.heldNotes(); len(notes) != 1 || !strings.HasPrefix(notes[0], "shifted, without a model of the live latency: m;") || !strings.HasSuffix(notes[0], "; export finer buckets around the observed latencies") {
		t.Errorf("notes %q; want one on m asking for finer buckets", notes)
	}
}
