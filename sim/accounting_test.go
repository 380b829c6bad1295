package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// checkAttempts fails t unless every attempt sent is counted exactly once:
// per class, overall and per provider, the attempts sent equal the sum of
// those completed, invalid, failed, rate-limited, rejected, timed out,
// stalled and cancelled; requests ended stalled are among the errors; and
// the providers together saw every attempt sent. (Every run
// of this package's tests also audits the engine's own counts.)
func checkAttempts(t *testing.T, res *sim.Result) {
	t.Helper()
	for _, c := range append(append([]sim.ClassResult{}, res.Classes...), res.Overall) {
		a := c.Attempts
		if s := a.Completed + a.Invalid + a.Failed + a.RateLimited + a.Rejected + a.TimedOut + a.Stalled + a.Cancelled; s != a.Sent {
			t.Errorf("class %s: attempts sum to %d, sent %d (%+v)", c.Name, s, a.Sent, a)
		}
		if c.Stalled > c.Errors {
			t.Errorf("class %s: %d requests ended stalled, more than its %d errors", c.Name, c.Stalled, c.Errors)
		}
	}
	var sent int64
	for _, p := range res.Providers {
		if s := p.Completed + p.Invalid + p.Failed + p.RateLimited + p.Rejected + p.TimedOut + p.Stalled + p.Cancelled; s != p.Sent {
			t.Errorf("provider %s: attempts sum to %d, sent %d (%+v)", p.Name, s, p.Sent, p)
		}
		sent += p.Sent
	}
	if sent != res.Overall.Attempts.Sent {
		t.Errorf("providers saw %d attempts, classes sent %d", sent, res.Overall.Attempts.Sent)
	}
}

// provider returns the result of the provider called name.
func provider(t *testing.T, res *sim.Result, name string) sim.ProviderResult {
	t.Helper()
	for _, p := range res.Providers {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no provider %q in %+v", name, res.Providers)
	return sim.ProviderResult{}
}

// TestTimedOutAttemptFreesSlotWhenItsWorkIsDone: an attempt abandoned by
// its attempt timeout, whose cancel would land an hour later, finishes its
// 2 s of work and frees its slot then. Twenty requests, 10 s apart: the
// primary to "slow" (2 s, concurrency 1) times out at 1 s, the fallback
// copy to "backup" answers at 1.5 s, and the primary's slot is busy 2 s of
// every 10 s — 40 s over a run that ends at 192 s, when the last primary
// finishes.
func TestTimedOutAttemptFreesSlotWhenItsWorkIsDone(t *testing.T) {
	cfg := &sim.Config{
		Name: "timeout-slot", Seed: 1, Requests: 20,
		Arrivals: sim.Arrivals{Process: sim.Constant, Rate: 0.1},
		Models: []sim.Model{
			{Name: "backup", Provider: "remote", Latency: dist.Constant{Value: 0.5}},
			{Name: "slow", Provider: "local", Latency: dist.Constant{Value: 2}, PriceOutputPerMTok: 1e6},
		},
		Providers: []sim.Provider{{Name: "local", Concurrency: 1}, {Name: "remote"}},
		Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{Value: 0}, OutputTokens: dist.Constant{Value: 1},
			Policy: sim.Policy{Primary: 1, Targets: []int{0}, Copies: 1, Delays: []time.Duration{-1},
				AttemptTimeout: time.Second, OnAttemptTimeout: sim.NonFatal,
				CancelLatency: time.Hour, CancelBilling: sim.BillInput}}},
	}
	res := mustRun(t, cfg)
	checkAttempts(t, res)
	local := provider(t, res, "local")
	if u := *local.Utilisation; math.Abs(u-40.0/192) > 1e-9 {
		t.Errorf("local utilisation %.4f, want 40 s busy / 192 s = %.4f", u, 40.0/192)
	}
	if local.TimedOut != 20 || local.Cancelled != 0 {
		t.Errorf("local: %d timed out, %d cancelled; want 20 and 0", local.TimedOut, local.Cancelled)
	}
	c := res.Classes[0]
	if c.Answered != 20 || math.Abs(c.Quantile(1)-1.5) > 1e-9 {
		t.Errorf("answered %d, slowest %vs; want all 20 at 1.5 s", c.Answered, c.Quantile(1))
	}
	// The abandoned primary did its work before its cancel landed: billed in
	// full (its one output token at $1), as wasted output.
	if got := c.CostCancelledUSD; math.Abs(got-20) > 1e-9 {
		t.Errorf("cost of the timed-out attempts $%v, want $20 (each billed in full)", got)
	}
}

// queuedLoser: two requests 1 s apart; "slow" (5 s, $1) has one slot, so
// request 1's primary waits in the queue; each request hedges to "fast"
// (0.5 s, $1) after 2 s, which wins.
func queuedLoser(cancelLatency time.Duration) *sim.Config {
	return &sim.Config{
		Name: "queued-loser", Seed: 1, Requests: 2,
		Arrivals: sim.Arrivals{Process: sim.Constant, Rate: 1},
		Models: []sim.Model{
			{Name: "fast", Provider: "remote", Latency: dist.Constant{Value: 0.5}, PricePerRequest: 1},
			{Name: "slow", Provider: "local", Latency: dist.Constant{Value: 5}, PricePerRequest: 1},
		},
		Providers: []sim.Provider{{Name: "local", Concurrency: 1}, {Name: "remote"}},
		Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
			Policy: sim.Policy{Primary: 1, Targets: []int{0}, Copies: 1, Delays: []time.Duration{2 * time.Second},
				CancelLatency: cancelLatency, CancelBilling: sim.BillFull}}},
	}
}

// TestQueuedLoserKeepsItsPlaceUntilTheCancelLands: with cancels that never
// reach the backend in time (1 h), the queued primary of request 1 stays
// in the queue after its copy wins, is served from 5 s to 10 s and billed
// in full: "local" completes 2 attempts, busy 10 s of the run's 10 s, and
// the four attempts cost $4 (not $3 with the queued primary vanishing).
// With cancels that land at once both primaries are cancelled instead:
// request 0's at 2.5 s, which frees the slot for request 1's, cancelled in
// turn at 3.5 s.
func TestQueuedLoserKeepsItsPlaceUntilTheCancelLands(t *testing.T) {
	var rows []sim.AttemptRecord
	res, err := sim.RunTrace(queuedLoser(time.Hour), func(r *sim.AttemptRecord) { rows = append(rows, *r) })
	if err != nil {
		t.Fatal(err)
	}
	checkAttempts(t, res)
	local := provider(t, res, "local")
	if local.Completed != 2 || local.Cancelled != 0 {
		t.Errorf("local completed %d, cancelled %d; want 2 and 0", local.Completed, local.Cancelled)
	}
	if u := *local.Utilisation; math.Abs(u-1) > 1e-9 {
		t.Errorf("local utilisation %v, want 1 (busy 10 s of 10 s)", u)
	}
	c := res.Classes[0]
	if got := c.CostCompletedUSD + c.CostCancelledUSD; math.Abs(got-4) > 1e-9 {
		t.Errorf("billed $%v, want $4", got)
	}
	found := false
	for _, r := range rows {
		if r.Request == 1 && r.Attempt == 0 {
			found = true
			if r.Outcome != "completed" || r.End != 10*time.Second {
				t.Errorf("request 1's primary: %s at %v, want completed at 10s", r.Outcome, r.End)
			}
		}
	}
	if !found {
		t.Error("no trace row for request 1's queued primary")
	}

	res = mustRun(t, queuedLoser(0))
	checkAttempts(t, res)
	if local := provider(t, res, "local"); local.Completed != 0 || local.Cancelled != 2 || math.Abs(local.MeanInService-1) > 1e-9 {
		t.Errorf("cancel latency 0: local completed %d, cancelled %d, in service %v; want 0, 2 and 1 (busy 0–3.5 s of 3.5 s)",
			local.Completed, local.Cancelled, local.MeanInService)
	}
}

// requestEnds runs cfg and returns, per request, the time in seconds from
// its arrival to the end of its last attempt to leave (for requests whose
// attempts all fail, when the request ended).
func requestEnds(t *testing.T, cfg *sim.Config) (*sim.Result, []float64) {
	t.Helper()
	arr := make([]time.Duration, cfg.Requests)
	end := make([]time.Duration, cfg.Requests)
	res, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) {
		if r.Attempt == 0 {
			arr[r.Request] = r.Start // the primary is sent on arrival
		}
		end[r.Request] = max(end[r.Request], r.End)
	})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, cfg.Requests)
	for i := range out {
		out[i] = (end[i] - arr[i]).Seconds()
	}
	return res, out
}

// TestDeniedCopyWithNothingInFlightEndsRequest: a model that always fails
// after 4 ms, errors non-fatal, a copy every second up to 4, a 15 s
// deadline. Once a budget denies the copy that the failure asks for,
// nothing is in flight and the request ends with its error at once (gRPC
// A6), not at the next timer (3.004 s): every request returns at 4 ms
// except the first, which spends the budget.
func TestDeniedCopyWithNothingInFlightEndsRequest(t *testing.T) {
	const n = 200
	for _, tc := range []struct {
		name   string
		budget sim.Budget
		first  float64 // the first request's time to its error, spending the budget
	}{
		// Tokens 10 → 5 over the first request's five failed attempts.
		{"retry throttling", sim.Budget{Throttle: &sim.Throttle{MaxTokens: 10, TokenRatio: 0.1}}, 0.020},
		// The burst of 1 lets request 0 send one copy.
		{"hedges per second", sim.Budget{HedgesPerSecond: 0.001, Burst: 1}, 0.008},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := oneModel(n, dist.Constant{Value: 1}, 4, time.Second)
			cfg.Arrivals = sim.Arrivals{Process: sim.Constant, Rate: 1}
			cfg.Models[0].ErrorRate = 1
			cfg.Models[0].ErrorLatency = dist.Constant{Value: 0.004}
			cfg.Classes[0].Deadline = 15 * time.Second
			cfg.Classes[0].Policy.OnError = sim.NonFatal
			cfg.Classes[0].Policy.Budget = tc.budget
			res, ends := requestEnds(t, cfg)
			checkAttempts(t, res)
			if c := res.Classes[0]; c.Errors != n {
				t.Errorf("errors %d of %d", c.Errors, n)
			}
			if math.Abs(ends[0]-tc.first) > 1e-9 {
				t.Errorf("request 0 ended after %vs, want %vs", ends[0], tc.first)
			}
			for i, e := range ends[1:] {
				if math.Abs(e-0.004) > 1e-9 {
					t.Fatalf("request %d ended after %vs, want 4 ms", i+1, e)
				}
			}
		})
	}
}

// TestEveryAttemptHasOneTraceRow: in a run where attempts end every way —
// answered, invalid, failed, 429, rejected by a full queue, timed out,
// cancelled, losers queued behind a slow cancel or at a provider that
// ignores cancels — each attempt sent has exactly one trace row, and the
// rows by outcome are the result's counts, per provider too.
func TestEveryAttemptHasOneTraceRow(t *testing.T) {
	lat := dist.LogNormal{Mu: math.Log(0.4), Sigma: 0.8}
	cfg := &sim.Config{
		Name: "every-way", Seed: 3, Requests: 30_000,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 25},
		Models: []sim.Model{
			{Name: "a", Provider: "pa", Latency: lat, ErrorRate: 0.03, InvalidRate: 0.03, PriceOutputPerMTok: 1},
			{Name: "b", Provider: "pb", TTFT: lat, TokensPerSecond: dist.Uniform{Min: 30, Max: 90}, ErrorRate: 0.02, PriceInputPerMTok: 1},
			{Name: "c", Provider: "pc", Latency: lat},
		},
		Providers: []sim.Provider{
			{Name: "pa", Concurrency: 10, RejectWhenFull: true, QueueLimit: 4},
			{Name: "pb", Concurrency: 6, IgnoresCancel: true,
				RateLimit: sim.RateLimit{RequestsPerMinute: 180, Burst: 2 * time.Second, RejectLatency: 5 * time.Millisecond, CountRejected: true}},
			{Name: "pc", Concurrency: 3},
		},
		Classes: []sim.Class{
			{Name: "x", Share: 0.6, InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Uniform{Min: 10, Max: 200},
				Deadline: 4 * time.Second,
				Policy: sim.Policy{Targets: []int{1, 2}, Copies: 2, Delays: []time.Duration{300 * time.Millisecond},
					OnError: sim.NonFatal, OnRateLimited: sim.Ignore, OnInvalid: sim.NonFatal,
					AttemptTimeout: 1500 * time.Millisecond, OnAttemptTimeout: sim.NonFatal,
					CancelLatency: 200 * time.Millisecond, CancelBilling: sim.BillGenerated,
					Budget: sim.Budget{MaxInFlightRatio: 0.5, MinInFlight: 2}}},
			{Name: "y", Share: 0.4, InputTokens: dist.Constant{Value: 10}, OutputTokens: dist.Constant{Value: 50},
				Deadline: 2 * time.Second, OnTimeout: sim.FailClosed,
				Policy: sim.Policy{Primary: 2, Targets: []int{0}, Copies: 1, Delays: []time.Duration{250 * time.Millisecond},
					Winner: sim.FirstToken, CancelLatency: time.Second, CancelBilling: sim.BillFull}},
		},
	}
	rows := map[string]int64{}
	byProvider := map[string]map[string]int64{}
	seen := map[[2]int64]bool{}
	provOf := map[string]string{"a": "pa", "b": "pb", "c": "pc"}
	res, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) {
		key := [2]int64{r.Request, int64(r.Attempt)}
		if seen[key] {
			t.Errorf("request %d attempt %d has two trace rows", r.Request, r.Attempt)
		}
		seen[key] = true
		rows[r.Outcome]++
		p := provOf[r.Model]
		if byProvider[p] == nil {
			byProvider[p] = map[string]int64{}
		}
		byProvider[p][r.Outcome]++
	})
	if err != nil {
		t.Fatal(err)
	}
	checkAttempts(t, res)
	a := res.Overall.Attempts
	want := map[string]int64{"completed": a.Completed, "invalid": a.Invalid, "failed": a.Failed, "rate_limited": a.RateLimited,
		"rejected": a.Rejected, "timed_out": a.TimedOut, "cancelled": a.Cancelled}
	for outcome, n := range want {
		if n == 0 {
			t.Errorf("no %s attempts: the run does not exercise every way an attempt ends", outcome)
		}
		if rows[outcome] != n {
			t.Errorf("%s: %d trace rows, %d counted", outcome, rows[outcome], n)
		}
	}
	if int64(len(seen)) != a.Sent {
		t.Errorf("%d trace rows, %d attempts sent", len(seen), a.Sent)
	}
	for _, p := range res.Providers {
		got := byProvider[p.Name]
		for outcome, n := range map[string]int64{"completed": p.Completed, "invalid": p.Invalid, "failed": p.Failed,
			"rate_limited": p.RateLimited, "rejected": p.Rejected, "timed_out": p.TimedOut, "cancelled": p.Cancelled} {
			if got[outcome] != n {
				t.Errorf("provider %s, %s: %d trace rows, %d counted", p.Name, outcome, got[outcome], n)
			}
		}
	}
}

// TestWinnerSlotSkipsItsOwnQueuedCopy: the primary holds the provider's
// only slot and its copy waits behind it. When the primary wins, with
// cancels that land at once, the copy leaves the queue unserved and
// unbilled: the slot the winner frees does not start it first.
func TestWinnerSlotSkipsItsOwnQueuedCopy(t *testing.T) {
	cfg := oneModel(10, dist.Constant{Value: 1}, 1, 200*time.Millisecond)
	cfg.Arrivals = sim.Arrivals{Process: sim.Constant, Rate: 0.1}
	cfg.Models[0].PricePerRequest = 1
	cfg.Providers = []sim.Provider{{Name: "p", Concurrency: 1}}
	res := mustRun(t, cfg)
	checkAttempts(t, res)
	c := res.Classes[0]
	if c.Attempts.Completed != 10 || c.Attempts.Cancelled != 10 || c.CostCancelledUSD != 0 {
		t.Errorf("attempts %+v, cancelled cost $%v; want 10 completed, 10 cancelled unbilled", c.Attempts, c.CostCancelledUSD)
	}
	if p := res.Providers[0]; math.Abs(p.MeanInService-10.0/91) > 1e-9 {
		t.Errorf("mean in service %v, want 10 s busy / 91 s", p.MeanInService)
	}
}

// TestUtilisationOnItsOwnSpan: twenty requests 1 s apart to "a" (0.5 s,
// concurrency 1) with a copy at once to "b" (100 s) on a provider that
// ignores cancels, so b's losers run on to 119 s. Provider a's slot is
// busy 10 s of its own span, which ends when its last attempt does at
// 19.5 s: utilisation 10/19.5, not diluted by b's 100 s of drain to 10/119.
func TestUtilisationOnItsOwnSpan(t *testing.T) {
	cfg := &sim.Config{
		Name: "own-span", Seed: 1, Requests: 20,
		Arrivals: sim.Arrivals{Process: sim.Constant, Rate: 1},
		Models: []sim.Model{
			{Name: "a", Provider: "pa", Latency: dist.Constant{Value: 0.5}},
			{Name: "b", Provider: "pb", Latency: dist.Constant{Value: 100}},
		},
		Providers: []sim.Provider{{Name: "pa", Concurrency: 1}, {Name: "pb", Concurrency: 100, IgnoresCancel: true}},
		Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
			Policy: sim.Policy{Primary: 0, Targets: []int{1}, Copies: 1, Delays: []time.Duration{0}}}},
	}
	res := mustRun(t, cfg)
	checkAttempts(t, res)
	if u := *provider(t, res, "pa").Utilisation; math.Abs(u-10/19.5) > 1e-9 {
		t.Errorf("pa utilisation %.4f, want 10 s busy / 19.5 s = %.4f", u, 10/19.5)
	}
	if m := provider(t, res, "pa").MeanInService; math.Abs(m-10/19.5) > 1e-9 {
		t.Errorf("pa mean in service %.4f, want %.4f", m, 10/19.5)
	}
	if u := *provider(t, res, "pb").Utilisation; math.Abs(u-2000.0/119/100) > 1e-9 {
		t.Errorf("pb utilisation %.4f, want 2000 s busy / 119 s / 100 slots = %.4f", u, 2000.0/119/100)
	}
}
