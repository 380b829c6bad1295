package sim_test

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// twoModels: primary "a" always fails after 5 ms; copy to "b" answers in
// 100 ms; one copy after 500 ms. Every request takes the same path, so the
// expected latencies are exact.
func twoModels(rule sim.ErrorRule) *sim.Config {
	return &sim.Config{
		Name: "errors", Seed: 1, Requests: 100,
		Arrivals: sim.Arrivals{Process: sim.Constant, Rate: 1},
		Models: []sim.Model{
			{Name: "a", Latency: dist.Constant{Value: 1}, ErrorRate: 1, ErrorLatency: dist.Constant{Value: 0.005}},
			{Name: "b", Latency: dist.Constant{Value: 0.1}},
		},
		Classes: []sim.Class{{
			Name: "c", Share: 1, Deadline: 10 * time.Second,
			InputTokens: dist.Constant{Value: 10}, OutputTokens: dist.Constant{Value: 10},
			Policy: sim.Policy{Primary: 0, Targets: []int{1}, Copies: 1,
				Delays: []time.Duration{500 * time.Millisecond}, OnError: rule},
		}},
	}
}

func TestErrorRules(t *testing.T) {
	cases := []struct {
		rule     sim.ErrorRule
		latency  float64
		answered int64
		errors   int64
		attempts float64
	}{
		{sim.Fatal, 0.005, 0, 100, 1},    // the error ends the request at once
		{sim.NonFatal, 0.105, 100, 0, 2}, // the copy goes out at 5 ms
		{sim.Ignore, 0.6, 100, 0, 2},     // the copy waits for its timer
	}
	for _, tc := range cases {
		t.Run(tc.rule.String(), func(t *testing.T) {
			c := mustRun(t, twoModels(tc.rule)).Classes[0]
			if got := endQuantile(&c, 0.5); math.Abs(got-tc.latency) > 1e-9 {
				t.Errorf("end latency %v, want %v", got, tc.latency)
			}
			// A request that ends with an error got no usable answer: a miss.
			if got := c.Quantile(0.5); tc.answered == 0 && !math.IsInf(got, 1) {
				t.Errorf("time to a usable answer %v, want a miss (+Inf)", got)
			}
			if c.Answered != tc.answered || c.Errors != tc.errors {
				t.Errorf("answered %d errors %d, want %d and %d", c.Answered, c.Errors, tc.answered, tc.errors)
			}
			if got := float64(c.Attempts.Sent) / float64(c.Requests); got != tc.attempts {
				t.Errorf("attempts per request %v, want %v", got, tc.attempts)
			}
		})
	}
}

// TestNothingLeftEndsAtOnce: when every attempt fails and no copy is left,
// the request ends with the error at the last failure, not at its deadline.
func TestNothingLeftEndsAtOnce(t *testing.T) {
	for _, rule := range []sim.ErrorRule{sim.NonFatal, sim.Ignore} {
		cfg := twoModels(rule)
		cfg.Models[1].ErrorRate = 1
		cfg.Models[1].ErrorLatency = dist.Constant{Value: 0.02}
		c := mustRun(t, cfg).Classes[0]
		want := 0.025 // nonfatal: copy at 5 ms fails 20 ms later
		if rule == sim.Ignore {
			want = 0.52
		}
		if c.Errors != c.Requests || math.Abs(endQuantile(&c, 1)-want) > 1e-9 {
			t.Errorf("%v: errors %d/%d, end latency %v; want all errors at %v", rule, c.Errors, c.Requests, endQuantile(&c, 1), want)
		}
	}
}

// TestCancellationBilling: the primary takes 2 s, a copy to a model that
// answers in 0.5 s goes out at 1 s and wins at 1.5 s; the primary, which
// has streamed its output linearly since it started, is cancelled 100 ms
// later, at 1.6 s = 80 % of its run.
func TestCancellationBilling(t *testing.T) {
	const in, out = 1000.0, 500.0
	cases := []struct {
		billing             sim.Billing
		cancelledOutputToks float64
		cancelledInput      bool
	}{
		{sim.BillNone, 0, false},
		{sim.BillInput, 0, true},
		{sim.BillGenerated, 0.8 * out, true},
		{sim.BillFull, out, true},
	}
	for _, tc := range cases {
		t.Run(tc.billing.String(), func(t *testing.T) {
			cfg := &sim.Config{
				Name: "billing", Seed: 1, Requests: 10,
				Arrivals: sim.Arrivals{Process: sim.Constant, Rate: 0.1},
				Models: []sim.Model{
					{Name: "slow", Latency: dist.Constant{Value: 2}, PriceInputPerMTok: 3, PriceOutputPerMTok: 15, PricePerRequest: 0.001},
					{Name: "fast", Latency: dist.Constant{Value: 0.5}, PriceInputPerMTok: 1, PriceOutputPerMTok: 2},
				},
				Classes: []sim.Class{{
					Name: "c", Share: 1,
					InputTokens: dist.Constant{Value: in}, OutputTokens: dist.Constant{Value: out},
					Policy: sim.Policy{Targets: []int{1}, Copies: 1, Delays: []time.Duration{time.Second},
						CancelLatency: 100 * time.Millisecond, CancelBilling: tc.billing},
				}},
			}
			c := mustRun(t, cfg).Classes[0]
			winner := (in*1 + out*2) / 1e6
			var loser float64
			if tc.cancelledInput {
				loser = (in*3+tc.cancelledOutputToks*15)/1e6 + 0.001
			}
			if got := c.CostCompletedUSD / 10; math.Abs(got-winner) > 1e-12 {
				t.Errorf("completed cost per request %v, want %v", got, winner)
			}
			if got := c.CostCancelledUSD / 10; math.Abs(got-loser) > 1e-12 {
				t.Errorf("cancelled cost per request %v, want %v", got, loser)
			}
			if c.Attempts.Cancelled != 10 || c.Attempts.Completed != 10 {
				t.Errorf("attempts %+v, want 10 completed and 10 cancelled", c.Attempts)
			}
			if got := c.WastedOutputTokens / 10; got != tc.cancelledOutputToks {
				t.Errorf("wasted output tokens per request %v, want %v", got, tc.cancelledOutputToks)
			}
			if got := c.Quantile(0.5); math.Abs(got-1.5) > 1e-9 {
				t.Errorf("latency %v, want 1.5", got)
			}
		})
	}
}

// TestLoserCompletingBeforeCancelIsBilled: a cancel latency longer than the
// loser's remaining time lets it complete; it is billed in full and counted
// as completed, not cancelled.
func TestLoserCompletingBeforeCancelIsBilled(t *testing.T) {
	cfg := twoModels(sim.Fatal)
	cfg.Models[0] = sim.Model{Name: "a", Latency: dist.Constant{Value: 0.65}, PriceOutputPerMTok: 1e6}
	cfg.Classes[0].Policy.CancelLatency = 100 * time.Millisecond // copy wins at 0.6 s, cancel would land at 0.7 s
	c := mustRun(t, cfg).Classes[0]
	if c.Attempts.Completed != 200 || c.Attempts.Cancelled != 0 {
		t.Errorf("attempts %+v, want 200 completed", c.Attempts)
	}
	if got := c.CostCompletedUSD / 100; math.Abs(got-10) > 1e-9 {
		t.Errorf("cost per request %v, want the loser's 10 output tokens at $1 each", got)
	}
}

// TestFirstTokenWins: with streamed models, "first token" ends the request at
// the earliest TTFT and "first valid" at the earliest complete answer.
func TestFirstTokenWins(t *testing.T) {
	cfg := &sim.Config{
		Name: "stream", Seed: 1, Requests: 10,
		Arrivals: sim.Arrivals{Process: sim.Constant, Rate: 0.1},
		Models: []sim.Model{
			// primary: first token at 0.3 s, 100 tokens at 50/s → done at 2.3 s
			{Name: "a", TTFT: dist.Constant{Value: 0.3}, TokensPerSecond: dist.Constant{Value: 50}},
			// copy at 0.2 s: first token at 0.2+0.4, 100 tokens at 200/s → done at 1.1 s
			{Name: "b", TTFT: dist.Constant{Value: 0.4}, TokensPerSecond: dist.Constant{Value: 200}},
		},
		Classes: []sim.Class{{
			Name: "c", Share: 1,
			InputTokens: dist.Constant{Value: 10}, OutputTokens: dist.Constant{Value: 100},
			Policy: sim.Policy{Targets: []int{1}, Copies: 1, Delays: []time.Duration{200 * time.Millisecond}},
		}},
	}
	for _, tc := range []struct {
		w    sim.WinnerRule
		want float64
	}{{sim.FirstToken, 0.3}, {sim.FirstValid, 1.1}} {
		cfg.Classes[0].Policy.Winner = tc.w
		if got := mustRun(t, cfg).Classes[0].Quantile(0.5); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%v: latency %v, want %v", tc.w, got, tc.want)
		}
	}
}

// TestFirstResponseLetsInvalidWin: the naive rule returns a fast invalid
// answer; first-valid waits for the valid one.
func TestFirstResponseLetsInvalidWin(t *testing.T) {
	cfg := twoModels(sim.NonFatal)
	cfg.Models[0] = sim.Model{Name: "a", Latency: dist.Constant{Value: 0.05}, InvalidRate: 1}
	cfg.Classes[0].Policy.OnInvalid = sim.Ignore
	cfg.Classes[0].Policy.Winner = sim.FirstResponse
	c := mustRun(t, cfg).Classes[0]
	if c.Invalid != c.Requests {
		t.Errorf("first response: %d of %d invalid, want all", c.Invalid, c.Requests)
	}
	cfg.Classes[0].Policy.Winner = sim.FirstValid
	c = mustRun(t, cfg).Classes[0]
	if c.Answered != c.Requests || math.Abs(c.Quantile(0.5)-0.6) > 1e-9 {
		t.Errorf("first valid: answered %d of %d at %v, want all at 0.6", c.Answered, c.Requests, c.Quantile(0.5))
	}
}

func TestValidateRejects(t *testing.T) {
	good := func() *sim.Config { return oneModel(10, dist.Constant{Value: 1}, 1, time.Second) }
	cases := map[string]func(*sim.Config){
		"no requests":        func(c *sim.Config) { c.Requests = 0 },
		"zero rate":          func(c *sim.Config) { c.Arrivals.Rate = 0 },
		"bad primary":        func(c *sim.Config) { c.Classes[0].Policy.Primary = 3 },
		"copies no delay":    func(c *sim.Config) { c.Classes[0].Policy.Delays = nil },
		"too many copies":    func(c *sim.Config) { c.Classes[0].Policy.Copies = sim.MaxCopies + 1 },
		"bad percentile":     func(c *sim.Config) { c.Classes[0].Policy.Adaptive = &sim.Adaptive{Percentile: 1.5, Window: 10} },
		"bad throttle":       func(c *sim.Config) { c.Classes[0].Policy.Budget.Throttle = &sim.Throttle{} },
		"error rate > 1":     func(c *sim.Config) { c.Models[0].ErrorRate = 1.5 },
		"shares":             func(c *sim.Config) { c.Classes[0].Share = 0.5 },
		"both latency kinds": func(c *sim.Config) { c.Models[0].TTFT = dist.Constant{Value: 1} },
		"reject without concurrency": func(c *sim.Config) {
			c.Providers = []sim.Provider{{Name: "p", RejectWhenFull: true}}
		},
		"negative queue limit": func(c *sim.Config) {
			c.Providers = []sim.Provider{{Name: "p", Concurrency: 2, RejectWhenFull: true, QueueLimit: -1}}
		},
		"queue limit without rejecting": func(c *sim.Config) {
			c.Providers = []sim.Provider{{Name: "p", Concurrency: 2, QueueLimit: 3}}
		},
		"zero decode speed": func(c *sim.Config) {
			c.Models[0].Latency = nil
			c.Models[0].TTFT = dist.Constant{Value: 1}
			c.Models[0].TokensPerSecond = dist.Constant{Value: 0}
		},
	}
	if _, err := sim.Run(good()); err != nil {
		t.Fatalf("good config rejected: %v", err)
	}
	for name, mutate := range cases {
		cfg := good()
		mutate(cfg)
		if _, err := sim.Run(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestReplay: a trace's arrival times, token counts and classes are used
// exactly.
func TestReplay(t *testing.T) {
	cfg := oneModel(3, dist.Constant{Value: 0.5}, 0)
	cfg.Models[0].PriceInputPerMTok, cfg.Models[0].PriceOutputPerMTok = 1e6, 0
	cfg.Classes = append(cfg.Classes, cfg.Classes[0])
	cfg.Classes[0].Share, cfg.Classes[1].Share = 0.5, 0.5
	cfg.Classes[1].Name = "d"
	cfg.Arrivals = sim.Arrivals{Process: sim.Replay, Trace: &sim.Trace{
		Arrivals: []time.Duration{0, 2 * time.Second, 2 * time.Second},
		Input:    []float64{1, 20, 300},
		Class:    []int{1, 1, 0},
	}}
	var starts []time.Duration
	res, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) { starts = append(starts, r.Start) })
	if err != nil {
		t.Fatal(err)
	}
	if want := []time.Duration{0, 2 * time.Second, 2 * time.Second}; !slices.Equal(starts, want) {
		t.Errorf("starts %v, want %v", starts, want)
	}
	// Input tokens cost $1 each: class d saw 1 + 20, class c saw 300.
	if got := [2]float64{res.Classes[0].CostCompletedUSD, res.Classes[1].CostCompletedUSD}; got != [2]float64{300, 21} {
		t.Errorf("cost by class %v, want [300 21]", got)
	}
	cfg.Requests = 4
	if _, err := sim.Run(cfg); err == nil {
		t.Error("more requests than the trace holds: accepted")
	}
}
