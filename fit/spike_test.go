package fit

import (
	"math"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/readers"
)

// spikeHist is a histogram of 1000 requests whose _sum (700 s, a mean of
// 0.7 s) the buckets disagree with: alone they fit a mixture-2 of mean
// 0.84 s.
const spikeHist = `# TYPE llm_request_duration_seconds histogram
llm_request_duration_seconds_bucket{le="0.1"} 10
llm_request_duration_seconds_bucket{le="0.25"} 100
llm_request_duration_seconds_bucket{le="0.5"} 400
llm_request_duration_seconds_bucket{le="1"} 800
llm_request_duration_seconds_bucket{le="2.5"} 950
llm_request_duration_seconds_bucket{le="5"} 990
llm_request_duration_seconds_bucket{le="10"} 998
llm_request_duration_seconds_bucket{le="+Inf"} 1000
llm_request_duration_seconds_sum 700
llm_request_duration_seconds_count 1000
`

// TestHistogramSpikeNotChosen: holding the mixture-2 to the _sum's mean
// squeezes one component to the sigma floor at the bucket bound 0.5 s
// (38 % of requests at 0.5001 s, sigma 0.001), with a chi-square left no
// degree of freedom; it had the lowest BIC and was chosen. It is now
// passed over, with a note naming the spike, for the lognormal, whose fit
// can be tested; forced with --model mixture-2 it is warned about.
// Without the _sum the mixture-2 is sound (df 1) and still chosen.
func TestHistogramSpikeNotChosen(t *testing.T) {
	read := func(text string) *readers.Histogram {
		h, err := readers.ReadPrometheusText(strings.NewReader(text), "spike.txt", readers.HistogramQuery{})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	h := read(spikeHist)
	hf, err := FitHistogram(h, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := hf.Best().Name; got != ModelLogNormal {
		t.Errorf("chose %s, want lognormal (mixture-2's component %v)", got, hf.Best().Mixture)
	}
	notes := strings.Join(hf.Notes, "\n")
	if !strings.Contains(notes, "mixture-2, of lower BIC, passed over: its component at median 0.5") || !strings.Contains(notes, "a spike") {
		t.Errorf("notes do not say why mixture-2 was passed over:\n%s", notes)
	}
	forced, err := FitHistogram(h, Options{Model: "mixture-2"})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(forced.Warnings, "\n"); forced.Best().Name != "mixture-2" || !strings.Contains(w, "the chosen mixture-2 is not sound") {
		t.Errorf("forced mixture-2: chose %s, warnings:\n%s", forced.Best().Name, w)
	}
	var noSum []string
	for _, l := range strings.Split(spikeHist, "\n") {
		if !strings.Contains(l, "_sum") {
			noSum = append(noSum, l)
		}
	}
	free, err := FitHistogram(read(strings.Join(noSum, "\n")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := free.Best(); c.Name != "mixture-2" || c.DF < 1 || len(free.Notes) != 1 {
		t.Errorf("without the _sum: chose %s (df %d), notes %q; want mixture-2 with a degree of freedom, only the note on mixture-3", c.Name, c.DF, free.Notes)
	}
}

// TestChooseUntestable: a candidate whose chi-square has no degree of
// freedom left is passed over for a testable one of higher BIC that the
// counts do not reject, with a note; when none is testable the lowest BIC
// is chosen, with a warning. A testable candidate the counts reject (p <
// 0.05) is no sounder than an untestable one: the lower BIC is chosen,
// with the warning that it is not tested; a rejected pick (no other) is
// warned about; and a rejected candidate of lower BIC passed over for one
// not rejected gets a note saying so.
func TestChooseUntestable(t *testing.T) {
	b := &bins{}
	mk := func(name string, bic float64, df int, p float64) BinnedCandidate {
		return BinnedCandidate{Name: name, BIC: bic, DF: df, PValue: p, Mixture: LogNormalMixture{Weights: []float64{1}, Mu: []float64{0}, Sigma: []float64{1}}}
	}
	out := &HistogramFit{Candidates: []BinnedCandidate{mk("lognormal", 100, 2, 0.3), mk("mixture-2", 90, 0, math.NaN())}}
	if got, w := b.choose(out, ModelAuto); got != 0 || w != "" || len(out.Notes) != 1 || !strings.Contains(out.Notes[0], "no degree of freedom") {
		t.Errorf("chose %d, notes %q, warning %q; want 0 (lognormal) with a note", got, out.Notes, w)
	}
	out = &HistogramFit{Candidates: []BinnedCandidate{mk("lognormal", 100, 0, math.NaN()), mk("mixture-2", 90, 0, math.NaN())}}
	if got, w := b.choose(out, ModelAuto); got != 1 || !strings.Contains(w, "the chosen mixture-2 is not tested") {
		t.Errorf("chose %d, warning %q; want 1 (mixture-2) with a warning", got, w)
	}
	out = &HistogramFit{Candidates: []BinnedCandidate{mk("lognormal", 100, 4, 1e-9), mk("mixture-2", 90, 0, math.NaN())}}
	if got, w := b.choose(out, ModelAuto); got != 1 || !strings.Contains(w, "the chosen mixture-2 is not tested") || len(out.Notes) != 0 {
		t.Errorf("lognormal rejected: chose %d, notes %q, warning %q; want 1 (mixture-2) with a warning", got, out.Notes, w)
	}
	out = &HistogramFit{Candidates: []BinnedCandidate{mk("lognormal", 100, 4, 1e-9)}}
	if got, w := b.choose(out, ModelAuto); got != 0 || !strings.Contains(w, "the chosen lognormal is rejected by the counts") {
		t.Errorf("only a rejected lognormal: chose %d, warning %q; want 0 with a warning that the counts reject it", got, w)
	}
	out = &HistogramFit{Candidates: []BinnedCandidate{mk("lognormal", 100, 4, 0.2), mk("mixture-2", 90, 1, 0.01)}}
	if got, _ := b.choose(out, ModelAuto); got != 0 || len(out.Notes) != 1 || !strings.Contains(out.Notes[0], "mixture-2, of lower BIC, passed over: the counts reject it (chi-square p = 0.01 < 0.05)") {
		t.Errorf("mixture-2 rejected: chose %d, notes %q; want 0 (lognormal) with a note", got, out.Notes)
	}
}

// TestChooseNotARejectedLogNormal pins the pick on /tmp/break9/live_open.prom:
// 8000 draws of a 0.4 s lognormal path (97 %) and a 5–30 s uniform one
// (3 %) on coarse buckets. The lognormal, testable but rejected by the
// counts (X² ≈ 5248 on 4 df), was chosen over the mixture-2, of far lower
// BIC but with no degree of freedom left; its p50, p90, p95 and p99 all
// lay outside the buckets the data place them in. The mixture-2 is chosen
// now, with the warning that it is not tested, and its p50, p90 and p95
// lie in their buckets (p99 lies in the open last bucket either way).
func TestChooseNotARejectedLogNormal(t *testing.T) {
	const text = `# TYPE guard_call_latency_seconds histogram
guard_call_latency_seconds_bucket{model="guard",le="0.25"} 1326
guard_call_latency_seconds_bucket{model="guard",le="0.5"} 5203
guard_call_latency_seconds_bucket{model="guard",le="1"} 7541
guard_call_latency_seconds_bucket{model="guard",le="2.5"} 7760
guard_call_latency_seconds_bucket{model="guard",le="5"} 7762
guard_call_latency_seconds_bucket{model="guard",le="10"} 7807
guard_call_latency_seconds_bucket{model="guard",le="+Inf"} 8000
guard_call_latency_seconds_sum{model="guard"} 7725.544
guard_call_latency_seconds_count{model="guard"} 8000
`
	h, err := readers.ReadPrometheusText(strings.NewReader(text), "live_open.prom", readers.HistogramQuery{})
	if err != nil {
		t.Fatal(err)
	}
	hf, err := FitHistogram(h, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ln := hf.Candidates[0]; ln.Name != ModelLogNormal || ln.DF < 1 || !(ln.PValue < rejectLevel) {
		t.Errorf("candidate %s: X² %g on %d df, p %g; want the lognormal, tested and rejected", ln.Name, ln.ChiSquare, ln.DF, ln.PValue)
	}
	if got := hf.Best().Name; got != "mixture-2" {
		t.Fatalf("chose %s; want mixture-2 (the lognormal is rejected: p %g)", got, hf.Candidates[0].PValue)
	}
	for _, p := range hf.Percentiles {
		if p.P <= 0.95 && !p.Inside {
			t.Errorf("p%g = %g s lies outside the data's bucket (%g, %g]", 100*p.P, p.Model, p.Lo, p.Hi)
		}
	}
	if w := strings.Join(hf.Warnings, "\n"); !strings.Contains(w, "the chosen mixture-2 is not tested") {
		t.Errorf("warnings do not say the pick is untested:\n%s", w)
	}
}

// TestDefaultNameKeepsScripts: a file name's letters of any script are
// kept (model names may use any), each other character becoming one "-":
// 日本.csv was "------", a dash per byte, and every two-character
// Japanese name collided with it.
func TestDefaultNameKeepsScripts(t *testing.T) {
	for file, want := range map[string]string{
		"dir/日本.csv":            "日本",
		"中国.csv":                "中国",
		"my log (1).csv":        "my-log--1-",
		"together_13b.json":     "together_13b",
		"Ελληνικά-β.jsonl":      "Ελληνικά-β",
		"caf\xe9.csv":           "caf-",
		".csv":                  "model",
		"a.b.csv":               "a-b",
		"x\u00a0y\u200bz.csv":   "x-y-z",
		"\U0001F600smile.jsonl": "-smile",
	} {
		if got := DefaultName(file); got != want {
			t.Errorf("DefaultName(%q) = %q, want %q", file, got, want)
		}
	}
}

// TestIntervalUnbounded: the observed interval of a percentile the sample
// cannot bound on either side (p50 of 2 rows) prints "n/a", not
// [-Inf, +Inf]; one unbounded below prints 0 there (latencies and speeds
// are positive), and one unbounded above keeps +Inf.
func TestIntervalUnbounded(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{-inf, inf, "n/a"},
		{-inf, 0.456, "[0, 0.456]"},
		{0.123, inf, "[0.123, +Inf]"},
		{0.123, 0.456, "[0.123, 0.456]"},
	} {
		if got := interval(QuantileCheck{Lo: c.lo, Hi: c.hi}); got != c.want {
			t.Errorf("interval [%g, %g] printed %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
}
