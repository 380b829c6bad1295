package optimize_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// rareAloneScenario has two independent classes at 10 requests/s: "rare",
// at a share of 10⁻⁹ (10⁻⁸ requests/s), is swept alone, and its requests
// would be 10⁸ s apart in simulated time.
const rareAloneScenario = `requests = 2000
[arrivals]
rate = 10
[models.m]
latency = { kind = "lognormal", median = 1.0, p95 = 3.0 }
price_per_request = 0.001
[[classes]]
name = "big"
share = 1.0
[classes.hedge]
delay = "2s"
[[classes]]
name = "rare"
share = 1e-9
[classes.hedge]
delay = "1s"
`

// TestRareClassSweptAloneSaysWhy: a class swept alone runs at its share of
// the arrival rate, so a share of 10⁻⁹ at 10 requests/s puts 100 requests
// over 10¹⁰ s of simulated time, past the 100 years (3.15·10⁹ s) a run may
// span. The other class is optimized; the rare one is not simulated and is
// reported like a class no request fell in: no hedging its only candidate,
// its latencies unknown (NaN, JSON null), its verdict undecided, saying
// its share, the time its requests would span, and what it would need —
// the 110 requests a p95 interval needs span 1.1·10¹⁰ s at its rate, past
// the limit too. Once, the whole optimize failed. Asked for alone
// (Settings.Only), it still fails, as a bad configuration (exit 2 in the
// CLI), naming the class, its share and --classes.
func TestRareClassSweptAloneSaysWhy(t *testing.T) {
	sc, err := scenario.Parse("tiny.toml", []byte(rareAloneScenario))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 100, 0
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 1})
	if len(rep.Classes) != 2 || rep.Classes[0].Class != "big" || rep.Classes[1].Class != "rare" {
		t.Fatalf("classes %+v; want big and rare", rep.Classes)
	}
	if big := &rep.Classes[0]; big.Requests != 100 || len(big.Candidates) < 2 || big.NotSimulated() != "" {
		t.Errorf("big: %d requests, %d candidates, not simulated %q; want it swept on 100 requests", big.Requests, len(big.Candidates), big.NotSimulated())
	}
	cr := &rep.Classes[1]
	if cr.Requests != 0 || len(cr.Candidates) != 1 || cr.Candidates[0].Hedging {
		t.Fatalf("rare: %d requests, %d candidates; want no hedging alone, on no requests", cr.Requests, len(cr.Candidates))
	}
	if l := cr.Candidates[0].Latency; !math.IsNaN(l.P50) || !math.IsNaN(l.P95) || !math.IsNaN(l.P99) || !math.IsNaN(l.Mean) {
		t.Errorf("rare: latencies %+v; want NaN (unknown)", l)
	}
	why := "the class was not simulated: swept alone at its share 1e-09 of 10 requests/s (1e-08 per second), its 100 requests would span 1e+10 s (317 years) of simulated time, past the 100 years a run may span"
	if got := cr.NotSimulated(); got != why {
		t.Errorf("NotSimulated() = %q; want %q", got, why)
	}
	wantVerdict := "cannot tell: " + why + ", and a 95% interval on p95 needs at least 110: 110 requests at its rate would span 1.1e+10 s, past that limit too: raise its share or the arrival rate"
	if !cr.Verdict.Undecided || cr.Verdict.Label != optimize.LabelUndecided || cr.Verdict.Reason != wantVerdict {
		t.Errorf("rare: verdict %+v; want undecided: %q", cr.Verdict, wantVerdict)
	}
	if w := strings.Join(cr.Warnings, "\n"); !strings.Contains(w, why+": its latencies are unknown") {
		t.Errorf("rare: warnings %q; want one saying it was not simulated", w)
	}
	var js, text strings.Builder
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Classes []struct {
			Candidates []struct {
				Latency map[string]any `json:"latency_s"`
			} `json:"candidates"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(js.String()), &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"mean", "p50", "p95", "p99"} {
		if v := back.Classes[1].Candidates[0].Latency[k]; v != nil {
			t.Errorf("rare in JSON: %s = %v; want null", k, v)
		}
	}
	if err := rep.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "100 requests per candidate (rare: not simulated)") {
		t.Errorf("text does not say rare was not simulated:\n%s", text.String())
	}

	// Under objective answered, which judges no hedging against itself
	// "don't hedge", the verdict is undecided all the same.
	answered := s
	answered.Each(func(se *optimize.Search) {
		se.Objective.Goal, se.Objective.Target = optimize.MostAnswered, 2*time.Second
	})
	if v := mustRun(t, &sc.Config, answered, optimize.Options{Workers: 1}).Classes[1].Verdict; !v.Undecided || v.Reason != wantVerdict {
		t.Errorf("rare under objective answered: verdict %+v; want undecided: %q", v, wantVerdict)
	}

	s.Only = []string{"rare"}
	_, err = optimize.Run(&sc.Config, s, optimize.Options{Workers: 1})
	if !errors.Is(err, sim.ErrInvalidConfig) {
		t.Fatalf("rare alone: error %v; want a sim.ErrInvalidConfig", err)
	}
	for _, want := range []string{`class "rare"`, "share 1e-09", "--classes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// TestRareClassAdviceFits: a class too rare to sweep alone at the
// requests asked, but whose 110 requests for a p95 interval fit in the
// 100 years at its rate, is advised the --requests that do: at 10⁻⁶
// requests/s, 3153 requests span 3.1536·10⁹ s, the limit.
func TestRareClassAdviceFits(t *testing.T) {
	sc, err := scenario.Parse("tiny.toml", []byte(strings.Replace(rareAloneScenario, "share = 1e-9", "share = 1e-7", 1)))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 5000, 0
	s.Each(func(se *optimize.Search) { se.Delays = []time.Duration{time.Second} })
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 1})
	cr := &rep.Classes[1]
	want := "a 95% interval on p95 needs at least 110: rerun with --requests from 110 to 3153, which at its rate span at most 100 years"
	if cr.NotSimulated() == "" || !cr.Verdict.Undecided || !strings.HasSuffix(cr.Verdict.Reason, want) {
		t.Errorf("rare: not simulated %q, verdict %+v; want undecided, ending %q", cr.NotSimulated(), cr.Verdict, want)
	}
}

// TestRarePipelineSweptAlone: a pipeline class too rare to sweep alone is
// not simulated either, and reported undecided like a one-call class,
// while the other class is optimized. Once, the whole optimize failed.
func TestRarePipelineSweptAlone(t *testing.T) {
	sc, err := scenario.Parse("pipe.toml", []byte(`requests = 400
[arrivals]
rate = 10
[models.m]
latency = { kind = "lognormal", median = 0.3, p95 = 1.0 }
price_per_request = 0.001
[[classes]]
name = "big"
share = 1.0
[classes.hedge]
delay = "2s"
[[classes]]
name = "rarepipe"
share = 1e-9
[[classes.steps]]
name = "a"
[classes.steps.hedge]
primary = "m"
delay = "0.5s"
[[classes.steps]]
name = "b"
[classes.steps.hedge]
primary = "m"
`))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 400, 0
	s.Each(func(se *optimize.Search) { se.Delays = []time.Duration{time.Second} })
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 1})
	if big := &rep.Classes[0]; big.Requests != 400 || len(big.Candidates) != 2 {
		t.Errorf("big: %d requests, %d candidates; want 400 and 2", big.Requests, len(big.Candidates))
	}
	cr := &rep.Classes[1]
	why := "the class was not simulated: swept alone at its share 1e-09 of 10 requests/s (1e-08 per second), its 400 requests would span 4e+10 s (1.27e+03 years)"
	if cr.Class != "rarepipe" || !strings.HasPrefix(cr.NotSimulated(), why) || !cr.Verdict.Undecided || cr.Requests != 0 {
		t.Errorf("%s: not simulated %q, verdict %+v, %d requests; want undecided, not simulated: %q", cr.Class, cr.NotSimulated(), cr.Verdict, cr.Requests, why)
	}
}
