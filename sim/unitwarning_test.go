package sim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestMillisecondsWarning: a TTFT written in milliseconds (p50 = 600 where
// 0.6 was meant) against a 3 s deadline makes every request miss; the
// report says the values are seconds and what was likely meant. The same
// model in seconds gets no warning, and a latency truly longer than a
// deadline that no reading in milliseconds would meet gets only the
// warning that its median is past the deadline.
func TestMillisecondsWarning(t *testing.T) {
	ttft, err := dist.NewQuantileTable([]float64{0.5, 0.99}, []float64{600, 2400})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &sim.Config{
		Name: "ms", Seed: 1, Requests: 200,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 10},
		Models:   []sim.Model{{Name: "chat", TTFT: ttft, TokensPerSecond: dist.Constant{Value: 50}}},
		Classes: []sim.Class{{Name: "c", Share: 1, Deadline: 3 * time.Second,
			InputTokens: dist.Constant{Value: 10}, OutputTokens: dist.Constant{Value: 10},
			Policy: sim.Policy{Winner: sim.FirstToken}}},
	}
	c := report(t, cfg).Classes[0]
	want := "model chat's ttft has a median of 600 s, at or past the class's 3s deadline, so nearly every request misses it: values are seconds; did you mean 0.6 (600 ms)?"
	if c.AnsweredShare != 0 || !hasWarning(&c, want) {
		t.Errorf("answered %v, warnings %q; want %q", c.AnsweredShare, c.Warnings, want)
	}
	cfg.Models[0].TTFT = dist.Constant{Value: 0.6}
	if c := report(t, cfg).Classes[0]; hasWarning(&c, "values are seconds") {
		t.Errorf("TTFT 0.6 s: %q", c.Warnings)
	}
	// 3.2 h against a 3 s deadline: 11.5 s even in milliseconds, so not a
	// unit slip; the median is past the deadline all the same.
	cfg.Models[0].TTFT, cfg.Models[0].TokensPerSecond = nil, nil
	cfg.Models[0].Latency = dist.Constant{Value: 11_500}
	cfg.Classes[0].Policy.Winner = sim.FirstValid
	if c := report(t, cfg).Classes[0]; hasWarning(&c, "values are seconds") || c.AnsweredShare != 0 ||
		!hasWarning(&c, "model chat's latency has a median of 11500 s, at or past the class's 3s deadline, so at least half of the attempts on it miss the deadline") {
		t.Errorf("latency 11 500 s: answered %v, %q", c.AnsweredShare, c.Warnings)
	}
	cfg.Models[0].Latency = dist.Constant{Value: 900}
	if c := report(t, cfg).Classes[0]; !hasWarning(&c, "model chat's latency has a median of 900 s") || !strings.Contains(strings.Join(c.Warnings, "\n"), "did you mean 0.9 (900 ms)?") {
		t.Errorf("latency 900 s: %q", c.Warnings)
	}
}

// TestMillisecondsWarningMixture: guard-check's bimodal latency moved to
// 80 % slow (what retune --write-scenario writes for its field report)
// has a median of 3 + 0.3/0.8 × 16 = 9 s past the 3 s deadline, but its
// fast path (0.1–0.3 s) lies within it: a plausible latency, not a unit
// slip, so no hint (validate --strict would fail on it). The same mixture
// shape written in milliseconds, every path past the deadline, still gets
// one.
// Regression: the hint judged a mixture by its median alone.
func TestMillisecondsWarningMixture(t *testing.T) {
	mix := func(fastLo, fastHi, slowLo, slowHi float64) dist.Continuous {
		m, err := dist.NewMixture([]float64{0.2, 0.8}, []dist.Continuous{dist.Uniform{Min: fastLo, Max: fastHi}, dist.Uniform{Min: slowLo, Max: slowHi}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	cfg := &sim.Config{
		Name: "guard", Seed: 1, Requests: 200,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 10},
		Models:   []sim.Model{{Name: "llama-guard", Latency: mix(0.1, 0.3, 3, 19)}},
		Classes: []sim.Class{{Name: "check", Share: 1, Deadline: 3 * time.Second,
			InputTokens: dist.Constant{Value: 400}, OutputTokens: dist.Constant{Value: 5},
			Policy: sim.Policy{Winner: sim.FirstValid}}},
	}
	if med := cfg.Models[0].Latency.Quantile(0.5); med < 8.999 || med > 9.001 {
		t.Fatalf("median %g s, want 9 s", med)
	}
	c := report(t, cfg).Classes[0]
	if hasWarning(&c, "values are seconds") {
		t.Errorf("80 %% slow guard: %q", c.Warnings)
	}
	// The fast share, 0.2, answers within 3 s (no copies): the mixture is
	// no unit slip. SE of a share of 200 requests ≤ 0.035; 4 SE.
	if c.AnsweredShare < 0.2-0.14 || c.AnsweredShare > 0.2+0.14 {
		t.Errorf("answered %v, want 0.2 ± 0.14", c.AnsweredShare)
	}
	// 0.1–0.3 s and 1–3 s written in milliseconds: median 1000 + 0.3/0.8
	// × 2000 = 1750 (s as read), 1.75 s as meant.
	cfg.Models[0].Latency = mix(100, 300, 1000, 3000)
	want := "model llama-guard's latency has a median of 1750 s, at or past the class's 3s deadline, so nearly every request misses it: values are seconds; did you mean 1.75 (1750 ms)?"
	if c := report(t, cfg).Classes[0]; !hasWarning(&c, want) {
		t.Errorf("the mixture in milliseconds: %q, want %q", c.Warnings, want)
	}
}

// TestMedianPastDeadlineWarning: a model whose median latency is past the
// class's deadline gets a warning whatever the value, and the milliseconds
// hint only when the value is implausible in seconds (30 s or more) and
// fits the deadline read as milliseconds. Regression: a lognormal of median
// 40 000 (and 10⁶) against a 20 s deadline — every request a timeout — got
// no warning, being past the deadline in milliseconds too, and a median of
// 1.5 s against 1.2 s, a plausible latency in seconds, was asked whether it
// meant 1.5 ms.
func TestMedianPastDeadlineWarning(t *testing.T) {
	lognormal := func(median, p95 float64) dist.Continuous {
		d, err := dist.LogNormalFromMedianP95(median, p95)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	cfg := func(lat dist.Continuous, deadline time.Duration) *sim.Config {
		return &sim.Config{
			Name: "hedge2", Seed: 5, Requests: 200,
			Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 5},
			Models:   []sim.Model{{Name: "fast", Latency: lat}},
			Classes: []sim.Class{{Name: "ask", Share: 1, Deadline: deadline,
				InputTokens: dist.Constant{Value: 500}, OutputTokens: dist.Constant{Value: 150},
				Policy: sim.Policy{Winner: sim.FirstValid}}},
		}
	}
	for _, tc := range []struct {
		name     string
		cfg      *sim.Config
		want     string // the warning, "" for none
		answered bool   // whether any request is answered
	}{
		{"40000 against 20s", cfg(lognormal(40_000, 80_000), 20*time.Second),
			"model fast's latency has a median of 40000 s, at or past the class's 20s deadline, so at least half of the attempts on it miss the deadline", false},
		{"1e6 against 20s", cfg(lognormal(1e6, 2e6), 20*time.Second),
			"model fast's latency has a median of 1000000 s, at or past the class's 20s deadline, so at least half of the attempts on it miss the deadline", false},
		{"1.5 against 1.2s", cfg(lognormal(1.5, 6), 1200*time.Millisecond),
			"model fast's latency has a median of 1.5 s, at or past the class's 1.2s deadline, so at least half of the attempts on it miss the deadline", true},
		{"40 against 20s", cfg(lognormal(40, 80), 20*time.Second),
			"model fast's latency has a median of 40 s, at or past the class's 20s deadline, so nearly every request misses it: values are seconds; did you mean 0.04 (40 ms)?", true},
		{"0.5 against 20s", cfg(lognormal(0.5, 2), 20*time.Second), "", true},
	} {
		c := report(t, tc.cfg).Classes[0]
		var got []string
		for _, w := range c.Warnings {
			if strings.Contains(w, "has a median of") {
				got = append(got, w)
			}
		}
		if tc.want == "" && len(got) != 0 || tc.want != "" && (len(got) != 1 || got[0] != tc.want) {
			t.Errorf("%s: median warnings %q, want %q", tc.name, got, tc.want)
		}
		if (c.AnsweredShare > 0) != tc.answered {
			t.Errorf("%s: answered %v", tc.name, c.AnsweredShare)
		}
	}
}

// TestMedianWarningNamesTheStepsDeadline: in a pipeline, a step's call is
// judged against the step's own deadline (0.5 s here, the class has none
// of its own), and the warning called it "the class's 500ms deadline";
// it now says "the step's".
func TestMedianWarningNamesTheStepsDeadline(t *testing.T) {
	models := []sim.Model{
		{Name: "fast", Provider: "p", Latency: dist.Constant{Value: 0.05}},
		{Name: "chat", Provider: "p", Latency: dist.Constant{Value: 0.7}},
	}
	prep := call(0, sim.FailClosed)
	answer := call(500*time.Millisecond, sim.FailClosed)
	answer.Policy.Primary = 1
	cfg := pipelineConfig(100, models, &sim.Pipeline{
		Steps:  []sim.Step{{Name: "prep", Call: prep, FanOut: 1}, {Name: "answer", Call: answer, FanOut: 1}},
		Stages: []sim.Stage{{Steps: []int{0}}, {Steps: []int{1}}},
	})
	want := "step answer: model chat's latency has a median of 0.7 s, at or past the step's 500ms deadline, so at least half of the attempts on it miss the deadline"
	var got []string
	for _, w := range sim.ConfigWarnings(cfg) {
		if strings.Contains(w.Text, "has a median of") {
			got = append(got, w.Text)
		}
	}
	if len(got) != 1 || got[0] != want {
		t.Errorf("median warnings %q; want %q", got, want)
	}
}

// TestMillisecondsWarningWithRescuingCopies: a primary written in
// milliseconds (median 150 where 0.15 was meant) against a 2 s deadline,
// hedged after 300 ms to a model that answers in 80 ms: the attempts on
// the primary miss the deadline, but the copies answer nearly every
// request in time. The warning said "so nearly every request misses it";
// it now says the requests rely on their copies to that model. Hedged to
// the primary itself, every copy misses too, and the warning still says
// nearly every request misses it (none is answered here).
func TestMillisecondsWarningWithRescuingCopies(t *testing.T) {
	cfg := &sim.Config{
		Name: "slip", Seed: 3, Requests: 2000,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 40},
		Models: []sim.Model{
			{Name: "emb-a", Provider: "a", Latency: dist.Constant{Value: 0.08}},
			{Name: "emb-b", Provider: "b", Latency: dist.Constant{Value: 150}},
		},
		Classes: []sim.Class{{Name: "search", Share: 1, Deadline: 2 * time.Second,
			InputTokens: dist.Constant{Value: 200}, OutputTokens: dist.Constant{Value: 1},
			Policy: sim.Policy{Primary: 1, Targets: []int{0}, Copies: 1, Delays: []time.Duration{300 * time.Millisecond},
				Winner: sim.FirstValid, OnError: sim.NonFatal, OnInvalid: sim.NonFatal, CancelBilling: sim.BillInput}}},
	}
	c := report(t, cfg).Classes[0]
	want := "model emb-b's latency has a median of 150 s, at or past the class's 2s deadline, so at least half of the attempts on it miss the deadline, and those requests rely on their copies to emb-a: values are seconds; did you mean 0.15 (150 ms)?"
	if c.AnsweredShare != 1 || !hasWarning(&c, want) {
		t.Errorf("copies to emb-a: answered %v, warnings %q; want every request answered and %q", c.AnsweredShare, c.Warnings, want)
	}
	cfg.Classes[0].Policy.Targets = nil // copies to emb-b, which miss as the primary does
	c = report(t, cfg).Classes[0]
	want = "model emb-b's latency has a median of 150 s, at or past the class's 2s deadline, so nearly every request misses it: values are seconds; did you mean 0.15 (150 ms)?"
	if c.AnsweredShare != 0 || !hasWarning(&c, want) {
		t.Errorf("copies to emb-b: answered %v, warnings %q; want none answered and %q", c.AnsweredShare, c.Warnings, want)
	}
}
