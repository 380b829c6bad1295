package optimize_test

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// queueClass is one class on one model with exponential service of mean
// 1 s at a provider with one slot that ignores cancels (a loser runs to
// completion), under Poisson arrivals at rho per second: offered load rho
// without hedging.
func queueClass(rho float64) *sim.Config {
	return &sim.Config{
		Name: "queue", Seed: 5, Requests: 1000,
		Arrivals:  sim.Arrivals{Process: sim.Poisson, Rate: rho},
		Models:    []sim.Model{{Name: "m", Provider: "p", Latency: dist.Exponential{Rate: 1}, PricePerRequest: 0.01}},
		Providers: []sim.Provider{{Name: "p", Concurrency: 1, IgnoresCancel: true}},
		Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
			Policy: sim.Policy{CancelBilling: sim.BillFull}}},
	}
}

// TestUnstableCandidateNeverPicked: at ρ = 0.55 a copy sent at once doubles
// the provider's work (its loser runs on), to ρ ≈ 1.1: that candidate's
// queue grows without bound, so it is marked unstable, never picked, and
// a warning counts it; a copy after 30 s adds little load and stays
// stable.
func TestUnstableCandidateNeverPicked(t *testing.T) {
	s := optimize.DefaultSettings()
	s.Requests = 20_000
	s.CheckRequests = 0
	s.Search.Delays = []time.Duration{0, 30 * time.Second}
	s.Search.Objective.MaxAddedCostPct = 1000
	cr := &mustRun(t, queueClass(0.55), s, optimize.Options{}).Classes[0]
	at0 := candidate(t, cr, 0, 1)
	if !at0.Unstable || len(at0.Loads) != 1 || at0.Loads[0].Name != "provider p" || at0.Loads[0].Offered < 1 || at0.Feasible || at0.Pick {
		t.Errorf("copy at once: unstable %v, loads %+v, feasible %v, pick %v; want unstable on provider p, infeasible, not picked", at0.Unstable, at0.Loads, at0.Feasible, at0.Pick)
	}
	if late := candidate(t, cr, 30*time.Second, 1); late.Unstable || cr.Baseline().Unstable || len(cr.Baseline().Loads) != 0 {
		t.Errorf("late copy unstable %v, baseline loads %+v; want both stable", late.Unstable, cr.Baseline().Loads)
	}
	if w := strings.Join(cr.Warnings, "\n"); !strings.Contains(w, "1 of 3 candidates make the queue of provider p grow without bound") {
		t.Errorf("warnings %q; want one counting the unstable candidate", cr.Warnings)
	}
}

// TestUnstableBaselineUpFront: at ρ = 1.3 the baseline's own queue grows
// without bound: the report says so first, before the summary table,
// naming the provider and its load.
func TestUnstableBaselineUpFront(t *testing.T) {
	s := optimize.DefaultSettings()
	s.Requests = 20_000
	s.CheckRequests = 0
	s.Search.Delays = []time.Duration{10 * time.Second}
	rep := mustRun(t, queueClass(1.3), s, optimize.Options{})
	cr := &rep.Classes[0]
	if l := cr.Baseline().Loads; len(l) != 1 || l[0].Offered < 1.2 || l[0].Offered > 1.4 {
		t.Errorf("baseline loads %+v; want provider p offered about 130%%", l)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	w := strings.Index(text, "warning: c: unstable baseline: without hedging, provider p is offered")
	if w < 0 || w > strings.Index(text, "class  ") || strings.Count(text, "unstable baseline") != 1 {
		t.Errorf("want the unstable baseline once, before the summary table:\n%s", text)
	}
}

// TestRarelyFiringPickLabelled: a model that answers in 100 ms but hangs
// for 100 s on 0.5 % of calls, with a 10 s deadline. A copy after 5 s
// rescues the hung calls — the unanswered share falls from 0.5 % to
// nearly 0 for +0.5 % cost, which the rule accepts — but it goes out for
// only 0.5 % of requests: the verdict calls it effectively no hedging and
// says how rarely it fires.
func TestRarelyFiringPickLabelled(t *testing.T) {
	lat, err := dist.NewMixture([]float64{0.995, 0.005}, []dist.Continuous{dist.Constant{Value: 0.1}, dist.Constant{Value: 100}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := queueClass(10)
	cfg.Providers = nil
	cfg.Models[0].Latency = lat
	cfg.Classes[0].Deadline = 10 * time.Second
	s := optimize.DefaultSettings()
	s.Requests = 100_000
	s.CheckRequests = 0
	s.Search.Delays = []time.Duration{5 * time.Second}
	rep := mustRun(t, cfg, s, optimize.Options{})
	cr := &rep.Classes[0]
	if !cr.Verdict.Hedge || cr.Verdict.Label != optimize.LabelRarely || cr.Picked().HedgedShare >= 0.01 {
		t.Fatalf("verdict %+v, hedged %v; want an accepted pick labelled %q", cr.Verdict, cr.Picked().HedgedShare, optimize.LabelRarely)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	if text := b.String(); !strings.Contains(text, "verdict: effectively no hedging: a copy after 5s goes out for 0.5% of requests") ||
		!strings.Contains(text, "c      effectively no hedging  5s") {
		t.Errorf("text does not label the pick:\n%s", text)
	}
}

// rateLimitedCopies is one class at 10 requests/s on model a (lognormal,
// median 1 s, p95 6 s) hedging to model b, as slow, whose rate limit
// admits 1 request/s (60 a minute, a 60 s burst); a 429 of a copy is
// ignored (the primary goes on). A copy after 1 s goes out for half the
// requests, 5/s: it overloads b; one after 20 s (under 1 %) does not.
func rateLimitedCopies(requests int) *sim.Config {
	lat := dist.LogNormal{Mu: 0, Sigma: math.Log(6) / 1.6448536269514722}
	return &sim.Config{
		Name: "rate", Seed: 9, Requests: requests,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 10},
		Models: []sim.Model{
			{Name: "a", Provider: "pa", Latency: lat, PricePerRequest: 0.01},
			{Name: "b", Provider: "pb", Latency: lat, PricePerRequest: 0.01, RateLimit: sim.RateLimit{RequestsPerMinute: 60}},
		},
		Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
			Policy: sim.Policy{Primary: 0, Targets: []int{1}, Copies: 1, Delays: []time.Duration{time.Second}, OnRateLimited: sim.Ignore}}},
	}
}

// TestOverloadMeasured: a sweep spanning 2000 s (33 refills of b's
// bucket, at least MinRefills) judges the candidate that overloads b on
// its measured figures, 429s included: here it is the fastest and is
// picked, and a note gives the refills and the criterion. A sweep of
// about 500 s (8 refills) cannot measure the overload: the candidate is
// excluded, with the refills in its reason and a warning. With
// ExcludeOverload it is excluded however long the sweep.
func TestOverloadMeasured(t *testing.T) {
	s := optimize.DefaultSettings()
	s.CheckRequests = 0
	s.Search.Delays = []time.Duration{time.Second, 20 * time.Second}
	s.Search.Objective.MaxAddedCostPct = math.Inf(1)
	run := func(requests int, exclude bool) *optimize.ClassReport {
		s.Requests = requests
		s.Rule.ExcludeOverload = exclude
		return &mustRun(t, rateLimitedCopies(requests), s, optimize.Options{}).Classes[0]
	}
	cr := run(20_000, false)
	c := candidate(t, cr, time.Second, 1)
	if !c.OverLimit || c.OverloadExcluded || !c.Pick || len(c.Loads) != 1 || !c.Loads[0].Settled() || c.Loads[0].Refills() < 30 {
		t.Errorf("settled: over %v, excluded %v, pick %v, loads %+v; want the overloading copy at 1s measured and picked", c.OverLimit, c.OverloadExcluded, c.Pick, c.Loads)
	}
	if n := strings.Join(cr.Notes, "\n"); !strings.Contains(n, "1 candidate overloads the rate limit of model b") || !strings.Contains(n, "settled: at least 20") || !strings.Contains(n, "the pick is one of them") {
		t.Errorf("settled: notes %q", cr.Notes)
	}

	cr = run(5000, false)
	c = candidate(t, cr, time.Second, 1)
	r := reasonOf(c, optimize.ReasonOverload)
	if !c.OverloadExcluded || c.Pick || c.Status != optimize.StatusRejected || r == nil || !strings.Contains(r.Text, "refills of its bucket, fewer than the 20 needed") || c.Loads[0].Refills() > 9 || r.Value < 4 || r.Limit != 1 {
		t.Errorf("short: excluded %v, pick %v, %s, reason %+v; want excluded for too few refills, 5 vs 1 req/s", c.OverloadExcluded, c.Pick, c.Status, r)
	}
	if w := strings.Join(cr.Warnings, "\n"); !strings.Contains(w, "fewer than the 20 needed to measure their 429s") {
		t.Errorf("short: warnings %q", cr.Warnings)
	}

	cr = run(20_000, true)
	c = candidate(t, cr, time.Second, 1)
	if r := reasonOf(c, optimize.ReasonOverload); !c.OverloadExcluded || c.Pick || r == nil || !strings.Contains(r.Text, "exclude_overload") {
		t.Errorf("exclude_overload: excluded %v, pick %v, reason %+v", c.OverloadExcluded, c.Pick, r)
	}
}

// reasonOf returns c's reason with the code, or nil.
func reasonOf(c *optimize.Candidate, code string) *optimize.Reason {
	for i := range c.Reasons {
		if c.Reasons[i].Code == code {
			return &c.Reasons[i]
		}
	}
	return nil
}

// TestOverloadReplayAdvice: the warning of an overload too short to
// measure advised "raise --requests" also when the sweep replays its whole
// trace, which --requests cannot go past. rateLimitedCopies' traffic
// replayed from a trace of 5000 arrivals at 10 per second (500 s, 8
// refills of b's bucket) now asks for a longer trace, saying how many
// requests it holds.
func TestOverloadReplayAdvice(t *testing.T) {
	s := optimize.DefaultSettings()
	s.CheckRequests, s.Requests = 0, 5000
	s.Search.Delays = []time.Duration{time.Second, 20 * time.Second}
	s.Search.Objective.MaxAddedCostPct = math.Inf(1)
	cfg := rateLimitedCopies(5000)
	arr := make([]time.Duration, 5000)
	for i := range arr {
		arr[i] = time.Duration(i) * 100 * time.Millisecond
	}
	cfg.Arrivals = sim.Arrivals{Process: sim.Replay, Trace: &sim.Trace{Arrivals: arr}}
	cr := &mustRun(t, cfg, s, optimize.Options{}).Classes[0]
	w := strings.Join(cr.Warnings, "\n")
	if !strings.Contains(w, "fewer than the 20 needed to measure their 429s") {
		t.Fatalf("warnings %q; the test needs an overload too short to measure", cr.Warnings)
	}
	if strings.Contains(w, "raise --requests") || !strings.Contains(w, "the run replays all 5000 requests of its trace, and --requests cannot replay past its end: a longer trace is needed to measure them") {
		t.Errorf("replayed trace: warnings %q; want a longer trace asked for", cr.Warnings)
	}
}
