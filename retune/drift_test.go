package retune

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/fit"
	"github.com/hedgesim/hedgesim/readers"
)

// histogramOf buckets n draws of d at the finite upper bounds (an open
// last bucket added), as a Prometheus histogram would count them.
func histogramOf(d dist.Continuous, n int, bounds []float64, seed uint64) *readers.Histogram {
	src := rand.NewPCG(seed, 36)
	h := &readers.Histogram{File: "test", Format: "prometheus", Metric: "latency_seconds", Unit: readers.Seconds, Whole: true}
	lo := 0.0
	for _, b := range append(bounds, math.Inf(1)) {
		h.Lower, h.Upper = append(h.Lower, lo), append(h.Upper, b)
		h.Counts = append(h.Counts, 0)
		lo = b
	}
	for range n {
		x := d.Rand(src)
		for i, u := range h.Upper {
			if x <= u {
				h.Counts[i]++
				break
			}
		}
	}
	return h
}

// expBounds returns n bucket bounds start·factor^i.
func expBounds(start, factor float64, n int) []float64 {
	b := make([]float64, n)
	for i := range b {
		b[i] = start * math.Pow(factor, float64(i))
	}
	return b
}

var guardBounds = []float64{0.1, 0.15, 0.2, 0.25, 0.3, 0.5, 1, 2, 3, 4, 5, 7.5, 10, 12.5, 15, 17.5, 20}

func guardModel(t *testing.T, slow float64) *dist.Mixture {
	t.Helper()
	m, err := dist.NewMixture([]float64{1 - slow, slow}, []dist.Continuous{dist.Uniform{Min: 0.1, Max: 0.3}, dist.Uniform{Min: 3, Max: 19}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestJudgeUnchangedOnOwnModel: draws from the scenario's own model are
// "unchanged" in ≥ 95 % of seeds. At alpha = 0.01 the test rejects a true
// model with probability ≈ 0.01, so of 200 seeds about 2 say "shifted"
// (binomial sd 1.4); 10 or more (≥ 5 %) would be a miscalibrated test.
func TestJudgeUnchangedOnOwnModel(t *testing.T) {
	t.Parallel() // 0.2–0.6 CPU-s: runs beside the tests that wait on a local server
	models := map[string]struct {
		d      dist.Continuous
		bounds []float64
	}{
		"lognormal":   {dist.LogNormal{Mu: 0, Sigma: 0.5}, expBounds(0.1, 1.25, 25)},
		"guard-check": {guardModel(t, 0.5), guardBounds},
	}
	for name, m := range models {
		t.Run(name, func(t *testing.T) {
			const seeds = 200
			unchanged := 0
			for s := range uint64(seeds) {
				d := Judge(histogramOf(m.d, 10000, m.bounds, s), m.d, nil, 0.01)
				if d.Verdict == Unchanged {
					unchanged++
				}
			}
			t.Logf("%s: unchanged in %d of %d seeds", name, unchanged, seeds)
			if unchanged < seeds*95/100 {
				t.Errorf("unchanged in %d of %d seeds; want ≥ 95%%", unchanged, seeds)
			}
		})
	}
}

// TestJudgeMedianShift: a 20 % median shift with 10⁴ observations is
// "shifted", at the median, in every seed tried, and the live median's
// interval holds the true shifted median.
func TestJudgeMedianShift(t *testing.T) {
	scen := dist.LogNormal{Mu: 0, Sigma: 0.5}
	live := dist.LogNormal{Mu: math.Log(1.2), Sigma: 0.5}
	for s := range uint64(20) {
		h := histogramOf(live, 10000, expBounds(0.1, 1.25, 25), s)
		d := Judge(h, scen, live, 0.01)
		if d.Verdict != Shifted || !contains(d.Where, "median") {
			t.Fatalf("seed %d: verdict %q where %v (%s); want shifted at the median", s, d.Verdict, d.Where, d.Why)
		}
		p50 := d.Percentiles[0]
		if !(p50.Lo < 1.2 && 1.2 <= p50.Hi) {
			t.Errorf("seed %d: live p50 interval (%g, %g] misses the true 1.2 s", s, p50.Lo, p50.Hi)
		}
		if math.Abs(p50.ChangePct-20) > 1e-9 {
			t.Errorf("seed %d: change %.3g%%, want 20%% (the live model's median)", s, p50.ChangePct)
		}
	}
}

// TestJudgeBimodalShare: the guard latency moving from half slow to 80 %
// slow is "shifted" at the bimodal share, and the weights-only EM finds
// the slow share within 4 standard errors of 0.8 (SE ≈ √(0.8·0.2/10⁴) =
// 0.004 for components the buckets separate).
func TestJudgeBimodalShare(t *testing.T) {
	scen := guardModel(t, 0.5)
	h := histogramOf(guardModel(t, 0.8), 10000, guardBounds, 7)
	d := Judge(h, scen, nil, 0.01)
	if d.Verdict != Shifted || !contains(d.Where, "bimodal share") {
		t.Fatalf("verdict %q where %v; want shifted at the bimodal share", d.Verdict, d.Where)
	}
	slow := d.Shares[1]
	if math.Abs(slow.SE-0.004) > 0.0005 {
		t.Errorf("SE %g, want ≈ 0.004", slow.SE)
	}
	if math.Abs(slow.Live-0.8) > 4*slow.SE {
		t.Errorf("live slow share %g, want 0.8 ± %g", slow.Live, 4*slow.SE)
	}
	t.Log(d.Describe())
}

// TestJudgeCannotTell: below MinObservations there is no verdict, even
// for counts far from the model.
func TestJudgeCannotTell(t *testing.T) {
	scen := dist.LogNormal{Mu: 0, Sigma: 0.5}
	h := histogramOf(dist.LogNormal{Mu: 1, Sigma: 0.5}, MinObservations-1, expBounds(0.1, 1.25, 25), 1)
	if d := Judge(h, scen, nil, 0.01); d.Verdict != CannotTell {
		t.Errorf("verdict %q with %g observations; want %q", d.Verdict, d.N, CannotTell)
	}
}

// TestPooledChiSquareByHand checks X² on counts small enough to pool by
// hand: expected 2, 4, 6, 8 pool to (6, 6, 8) → cells O = (4, 5, 11).
func TestPooledChiSquareByHand(t *testing.T) {
	x2, df := fit.PooledChiSquare([]float64{1, 3, 5, 11}, []float64{2, 4, 6, 8}, 0)
	want := (4-6.0)*(4-6.0)/6 + (5-6.0)*(5-6.0)/6 + (11-8.0)*(11-8.0)/8
	if df != 2 || math.Abs(x2-want) > 1e-12 {
		t.Errorf("X² %g on %d df, want %g on 2", x2, df, want)
	}
}

// TestJudgeNamesARate: a histogram of a rate() query holds fractional
// "observations" (2.78 per second, say), too few for a verdict; the
// cannot-tell reason says the counts look like a rate and to query
// increase() — a scheduled retune would otherwise stay green for ever.
// Its report row prints "-" for the p-value of no test, not "NaN".
func TestJudgeNamesARate(t *testing.T) {
	scen := dist.LogNormal{Mu: math.Log(0.5), Sigma: 0.4}
	h := histogramOf(scen, 10000, expBounds(0.05, 1.4, 18), 1)
	for i := range h.Counts {
		h.Counts[i] /= 3600 // rate() over an hour: per-second fractions
	}
	h.Whole = false
	d := Judge(h, scen, nil, 0.01)
	if d.Verdict != CannotTell || !strings.Contains(d.Why, "not whole numbers") || !strings.Contains(d.Why, "increase()") {
		t.Errorf("verdict %s, %q; want cannot tell, naming the rate", d.Verdict, d.Why)
	}
	if got := pText(d.PValue); got != "-" {
		t.Errorf("p-value of no test printed %q, want -", got)
	}
}

// TestJudgeWarnsOfFractionalCounts: counts of 10⁴ observations divided by
// 3.7 (a rate, or counts scaled) are enough for a verdict, which is given
// but warned about as fit warns (fit.NotWholeWarning); the report prints
// the observations to one decimal (2702.7), not as a raw float
// (2702.7027027027025), and the warning under the model.
func TestJudgeWarnsOfFractionalCounts(t *testing.T) {
	t.Parallel() // 0.2–0.6 CPU-s: runs beside the tests that wait on a local server
	scen := dist.LogNormal{Mu: math.Log(0.5), Sigma: 0.4}
	h := histogramOf(scen, 10000, expBounds(0.05, 1.4, 18), 1)
	for i := range h.Counts {
		h.Counts[i] /= 3.7
	}
	h.Whole = false
	d := Judge(h, scen, nil, 0.01)
	if len(d.Warnings) != 1 || d.Warnings[0] != fit.NotWholeWarning {
		t.Errorf("warnings %q, want the fit's warning about counts that are not whole", d.Warnings)
	}
	hf, err := fit.FitHistogram(h, fit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := &Report{Scenario: "s", Source: "test", Alpha: 0.01, Models: []Model{{Model: "m", Key: "latency", Query: "q", Source: "test", Fit: hf, Drift: d}}}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if !strings.Contains(text, "2702.7 ") || strings.Contains(text, "2702.70") {
		t.Errorf("observations not printed to one decimal:\n%s", text)
	}
	if !strings.Contains(text, "warning: the counts are not whole numbers") || !strings.Contains(text, "increase()") {
		t.Errorf("no warning about the counts:\n%s", text)
	}
	h = histogramOf(scen, 10000, expBounds(0.05, 1.4, 18), 1)
	if d := Judge(h, scen, nil, 0.01); len(d.Warnings) != 0 {
		t.Errorf("whole counts warned about: %q", d.Warnings)
	}
}

// TestJudgePassesOnReaderWarnings: what the reader assumed of a file that
// does not add up (a _count of 4000 beside a +Inf bucket of 5000) is a
// warning on the verdict, in the drift's warnings and in the text, as fit
// prints it.
func TestJudgePassesOnReaderWarnings(t *testing.T) {
	t.Parallel() // 0.2–0.6 CPU-s: runs beside the tests that wait on a local server
	scen := dist.LogNormal{Mu: math.Log(0.5), Sigma: 0.4}
	h := histogramOf(scen, 10000, expBounds(0.05, 1.4, 18), 1)
	const w = "lat_seconds_count is 4000 but the +Inf bucket holds 5000: the buckets are fitted"
	h.Warnings = []string{w}
	d := Judge(h, scen, nil, 0.01)
	if len(d.Warnings) != 1 || d.Warnings[0] != w {
		t.Fatalf("warnings %q, want the reader's %q", d.Warnings, w)
	}
	hf, err := fit.FitHistogram(h, fit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := &Report{Scenario: "s", Source: "test", Alpha: 0.01, Models: []Model{{Model: "m", Key: "latency", Query: "q", Source: "test", Fit: hf, Drift: d}}}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "warning: "+w) {
		t.Errorf("text lacks the reader's warning:\n%s", b.String())
	}
}

// TestAssessPassesOnFitWarnings: the live fit's own warnings — here that
// 80 observations make every fitted percentile rough, that the buckets
// are too coarse to place p95 and p99, and that the chosen lognormal is
// not tested — are warnings on the model's drift, in the JSON and under
// the model in the text, as fit prints them; the reader's warning, which
// both the fit and the drift give, appears once.
func TestAssessPassesOnFitWarnings(t *testing.T) {
	cfg := oneModelConfig(t)
	h := histogramOf(dist.LogNormal{Mu: 0, Sigma: 0.5}, 80, []float64{0.25, 0.5, 1, 2, 4}, 5)
	const reader = "latency_seconds_count is 70 but the +Inf bucket holds 80: the buckets are fitted"
	h.Warnings = []string{reader}
	ms, err := Assess(context.Background(), cfg, []Live{{Model: "m", Index: 0, Key: "latency", Query: "q", Hist: h}}, fit.Options{Model: fit.ModelAuto, Seed: 1}, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	m := &ms[0]
	if !slices.ContainsFunc(m.Fit.Warnings, func(w string) bool { return strings.HasPrefix(w, "only 80 observations") }) {
		t.Fatalf("the fit's warnings %q lack the one this test needs", m.Fit.Warnings)
	}
	d := m.Drift.Warnings
	for _, w := range m.Fit.Warnings {
		if n := slices.Index(d, w); n < 0 || slices.Index(d[n+1:], w) >= 0 {
			t.Errorf("the fit's warning %q is in the drift's warnings %d times, want once: %q", w, strings.Count(strings.Join(d, "\n"), w), d)
		}
	}
	r := &Report{Scenario: "s", Source: "test", Alpha: 0.01, Models: ms}
	var js, text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(&js)
	if err := enc.Encode(r); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Models []struct {
			Drift struct {
				Warnings []string `json:"warnings"`
			} `json:"drift"`
		} `json:"models"`
	}
	if err := json.Unmarshal([]byte(js.String()), &back); err != nil {
		t.Fatal(err)
	}
	for _, w := range m.Fit.Warnings {
		if !strings.Contains(text.String(), "  warning: "+w+"\n") {
			t.Errorf("text lacks the fit's warning %q:\n%s", w, text.String())
		}
		if !slices.Contains(back.Models[0].Drift.Warnings, w) {
			t.Errorf("JSON drift.warnings %q lack the fit's %q", back.Models[0].Drift.Warnings, w)
		}
	}
}

// TestJudgeLiveInDataBucket: the live percentile used to be the fitted
// model's clamped into the whole interval, so a fit that missed the
// bucket the data place the percentile in showed a live value the fit's
// own warning contradicted (guard's p95 live 7.32 s while the data place
// it in (8, 10]). It is now clamped into the bucket holding the rank n·p.
// 100 observations; p95's rank 95 falls in (4, 8] and its 99 % interval
// (ranks 95 ∓ 2.576·√4.75, 89 to 100) spans (2, +Inf).
func TestJudgeLiveInDataBucket(t *testing.T) {
	h := &readers.Histogram{File: "test", Format: "prometheus", Metric: "latency_seconds", Unit: readers.Seconds, Whole: true,
		Lower:  []float64{0, 1, 2, 4, 8},
		Upper:  []float64{1, 2, 4, 8, math.Inf(1)},
		Counts: []float64{50, 30, 12, 6, 2}}
	scen := dist.LogNormal{Mu: 0, Sigma: 1}
	for _, tc := range []struct {
		p95, want float64
	}{
		{3, 4},  // the fit's p95 below the data's bucket: its lower bound
		{20, 8}, // above it, in the interval's open top: its upper bound
		{5, 5},  // inside it: the fit's own
	} {
		live := dist.LogNormal{Mu: math.Log(tc.p95) - 1.6448536269514722*0.5, Sigma: 0.5}
		d := Judge(h, scen, live, 0.01)
		p95 := d.Percentiles[1]
		if p95.P != 0.95 || p95.Lo != 2 || !math.IsInf(p95.Hi, 1) {
			t.Fatalf("p95 entry %+v; want p 0.95, interval (2, +Inf]", p95)
		}
		if math.Abs(p95.Live-tc.want) > 1e-9 {
			t.Errorf("fit's p95 %g: live %g; want %g, in the bucket (4, 8] the data place it in", tc.p95, p95.Live, tc.want)
		}
	}
}

// TestJudgeShiftedWhenPoolingLeavesOneCell: a histogram of the scenario's
// own latency with its bounds written in milliseconds under a _seconds
// name (the bounds of /tmp/break9/live_ms_misnamed.prom) puts nearly every
// observation above 100 s, where a 0.4 s model expects none. Pooling to 5
// expected observations merges every bucket into the first, which leaves
// the chi-square no degree of freedom; the exact test at the bounds must
// still say "shifted", with the live percentiles and a hint that the
// bounds read as milliseconds. The same buckets of draws of the scenario's
// own model (all in the first bucket) are still "cannot tell", and a
// shift that is not 1000× gets no milliseconds hint.
func TestJudgeShiftedWhenPoolingLeavesOneCell(t *testing.T) {
	bounds := []float64{100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 4000, 6000, 10000, 20000, 40000}
	scen := dist.LogNormal{Mu: math.Log(0.4), Sigma: 0.5}
	slipped := histogramOf(dist.LogNormal{Mu: math.Log(400), Sigma: 0.5}, 5000, bounds, 1)
	d := Judge(slipped, scen, nil, 0.01)
	if d.DF >= 1 {
		t.Fatalf("the pooled chi-square has %d df; the test wants the one-cell case", d.DF)
	}
	if d.Verdict != Shifted || !slices.Contains(d.Where, "median") || !(d.PValue < 0.01) {
		t.Fatalf("verdict %q at %v (p %g), why %q; want %q at the median", d.Verdict, d.Where, d.PValue, d.Why, Shifted)
	}
	if p50 := d.Percentiles[0]; !(p50.Lo < 400 && 400 <= p50.Hi) || !p50.Moved {
		t.Errorf("live p50 interval (%g, %g] (moved %v); want one holding 400 s, moved", p50.Lo, p50.Hi, p50.Moved)
	}
	if !slices.ContainsFunc(d.Warnings, func(w string) bool { return strings.Contains(w, "did you mean") && strings.Contains(w, "ms)?") }) {
		t.Errorf("warnings %q; want a milliseconds hint", d.Warnings)
	}
	if own := Judge(histogramOf(scen, 5000, bounds, 2), scen, nil, 0.01); own.Verdict != CannotTell {
		t.Errorf("the scenario's own draws in one bucket: verdict %q (%s); want %q", own.Verdict, own.Why, CannotTell)
	}
	ten := Judge(histogramOf(dist.LogNormal{Mu: math.Log(200), Sigma: 0.5}, 5000, bounds, 3), scen, nil, 0.01)
	if ten.Verdict != Shifted || slices.ContainsFunc(ten.Warnings, func(w string) bool { return strings.Contains(w, "did you mean") }) {
		t.Errorf("a 500× shift: verdict %q, warnings %q; want %q and no milliseconds hint", ten.Verdict, ten.Warnings, Shifted)
	}
}
