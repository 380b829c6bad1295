package sim_test

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestNonFatal429SendsNextCopyNow: the primary's key is over its quota and
// gets a 429 after 5 ms; the non-fatal rule sends the copy (delay 500 ms)
// at once, to a second model that answers in 100 ms: 105 ms, not 600 ms.
func TestNonFatal429SendsNextCopyNow(t *testing.T) {
	for _, tc := range []struct {
		rule sim.ErrorRule
		want float64
	}{{sim.NonFatal, 0.105}, {sim.Ignore, 0.6}, {sim.Fatal, 0.005}} {
		cfg := twoModels(sim.Fatal)
		cfg.Models[0].ErrorRate = 0
		cfg.Models[0].RateLimit = sim.RateLimit{RequestsPerMinute: 1e-9, Burst: time.Nanosecond, RejectLatency: 5 * time.Millisecond}
		cfg.Classes[0].Policy.OnRateLimited = tc.rule
		c := mustRun(t, cfg).Classes[0]
		if got := endQuantile(&c, 0.5); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%v: end latency %v, want %v", tc.rule, got, tc.want)
		}
		if c.Attempts.RateLimited != c.Requests {
			t.Errorf("%v: %d 429s for %d requests", tc.rule, c.Attempts.RateLimited, c.Requests)
		}
	}
}

// TestRetryAfterDelaysTheCopy: a 429 with a retry-after hint of 50 ms sends
// the next copy 50 ms after the 429.
func TestRetryAfterDelaysTheCopy(t *testing.T) {
	cfg := twoModels(sim.Fatal)
	cfg.Models[0].ErrorRate = 0
	cfg.Models[0].RateLimit = sim.RateLimit{RequestsPerMinute: 1e-9, Burst: time.Nanosecond,
		RejectLatency: 5 * time.Millisecond, RetryAfter: 50 * time.Millisecond}
	cfg.Classes[0].Policy.OnRateLimited = sim.NonFatal
	if got := mustRun(t, cfg).Classes[0].Quantile(0.5); math.Abs(got-0.155) > 1e-9 {
		t.Errorf("latency %v, want 5 ms + 50 ms + 100 ms", got)
	}
}

// TestBudgetNeverRaisesErrors: an in-flight ratio budget (20 %, floor 3)
// under a load spike denies copies, and every request still completes
// through its primary.
func TestBudgetNeverRaisesErrors(t *testing.T) {
	const n = 20_000
	cfg := oneModel(n, dist.LogNormal{Mu: math.Log(0.5), Sigma: 0.8}, 2, 300*time.Millisecond)
	// A spike: 2 000 requests in the first 10 s, then 10/s.
	arr := make([]time.Duration, n)
	for i := range arr {
		if i < 2000 {
			arr[i] = time.Duration(i) * 5 * time.Millisecond
		} else {
			arr[i] = 10*time.Second + time.Duration(i-2000)*100*time.Millisecond
		}
	}
	cfg.Arrivals = sim.Arrivals{Process: sim.Replay, Trace: &sim.Trace{Arrivals: arr}}
	cfg.Classes[0].Policy.Budget = sim.Budget{MaxInFlightRatio: 0.2, MinInFlight: 3}
	c := mustRun(t, cfg).Classes[0]
	if c.Denied.InFlight == 0 {
		t.Fatal("the budget denied nothing during the spike")
	}
	if c.Answered != n || c.Errors != 0 {
		t.Errorf("answered %d of %d, errors %d: a denied copy must not fail its request", c.Answered, n, c.Errors)
	}
	free := mustRun(t, oneModel(n, dist.LogNormal{Mu: math.Log(0.5), Sigma: 0.8}, 2, 300*time.Millisecond)).Classes[0]
	if c.Attempts.Sent >= free.Attempts.Sent {
		t.Errorf("budget sent %d attempts, unbudgeted %d", c.Attempts.Sent, free.Attempts.Sent)
	}
}

// TestInvalidAnswersAndWinnerRule: a model answers invalid 20 % of the
// time. k attempts go out at once. The naive "first response wins" returns
// an invalid answer 20 % of the time; "first valid wins" only when all k
// are invalid: 0.2^k.
func TestInvalidAnswersAndWinnerRule(t *testing.T) {
	const n = 100_000
	for _, k := range []int{2, 3} {
		for _, tc := range []struct {
			w    sim.WinnerRule
			want float64
		}{{sim.FirstResponse, 0.2}, {sim.FirstValid, math.Pow(0.2, float64(k))}} {
			cfg := oneModel(n, dist.Uniform{Min: 0.05, Max: 0.15}, k-1, 0)
			cfg.Models[0].InvalidRate = 0.2
			cfg.Classes[0].Policy.Winner = tc.w
			cfg.Classes[0].Policy.OnInvalid = sim.Ignore
			c := mustRun(t, cfg).Classes[0]
			got := float64(c.Invalid) / n
			if math.Abs(got-tc.want) > binomialTol(tc.want, n) {
				t.Errorf("k=%d %v: invalid share %.4f, want %.4f", k, tc.w, got, tc.want)
			}
		}
	}
}

// TestRetryThrottleStopsAfterFiveFailures: maxTokens 10, tokenRatio 0.1,
// starting full, every attempt fails: copies stop once 5 net failures have
// brought the tokens down to 5 = maxTokens/2.
func TestRetryThrottleStopsAfterFiveFailures(t *testing.T) {
	cfg := oneModel(50, dist.Constant{Value: 0.001}, 1, 10*time.Millisecond)
	cfg.Arrivals = sim.Arrivals{Process: sim.Constant, Rate: 1}
	cfg.Models[0].ErrorRate = 1
	cfg.Classes[0].Policy.OnError = sim.Ignore
	cfg.Classes[0].Policy.Budget.Throttle = &sim.Throttle{MaxTokens: 10, TokenRatio: 0.1}
	var copies []int64
	_, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) {
		if r.Attempt == 1 {
			copies = append(copies, r.Request)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	// Request 0: primary fails (9), copy sent, fails (8); request 1: 7, copy,
	// 6; request 2: primary fails (5): 5 is not above 5, no more copies.
	if len(copies) != 2 || copies[0] != 0 || copies[1] != 1 {
		t.Errorf("copies sent for requests %v, want [0 1]", copies)
	}
}

// TestRetryThrottleCollapse: the token count drifts down once the attempt
// failure rate f exceeds tokenRatio/(1+tokenRatio) = 1/11 ≈ 9.1 %: below it
// hedging goes on, above it the hedge share collapses.
func TestRetryThrottleCollapse(t *testing.T) {
	const n = 50_000
	share := func(f float64) float64 {
		cfg := oneModel(n, dist.LogNormal{Mu: 0, Sigma: 1}, 1, time.Second)
		cfg.Models[0].ErrorRate = f
		cfg.Models[0].ErrorLatency = dist.Constant{Value: 0.01}
		cfg.Classes[0].Policy.OnError = sim.Ignore
		cfg.Classes[0].Policy.Budget.Throttle = &sim.Throttle{MaxTokens: 10, TokenRatio: 0.1}
		c := mustRun(t, cfg).Classes[0]
		return float64(c.Hedged) / n
	}
	low, mid, high := share(0.05), share(0.15), share(0.30)
	t.Logf("hedge share at failure rate 5 %%: %.3f, 15 %%: %.4f, 30 %%: %.4f", low, mid, high)
	// Without throttling, a copy goes out when the primary has not answered
	// in 1 s: S(1) = 0.5 of the successful primaries, plus the failed ones
	// (they fail in 10 ms and are ignored).
	if low < 0.4 {
		t.Errorf("at 5 %% failures hedge share %.3f: throttling should not bite below 1/11", low)
	}
	if mid > 0.05 || high > 0.01 {
		t.Errorf("above 1/11 failures hedge share %.4f (15 %%) and %.4f (30 %%): want a collapse", mid, high)
	}
}

// TestHedgeRateCapBoundsCost: a +200 ms shift on every call (all draws in
// 0.45–0.65 s) with a fixed 400 ms delay: every request hedges and p95 does
// not improve; a hedges-per-second cap bounds the copies, so the added
// cost is at most cap × duration copies.
func TestHedgeRateCapBoundsCost(t *testing.T) {
	const n = 50_000
	mk := func() *sim.Config {
		cfg := oneModel(n, dist.Uniform{Min: 0.45, Max: 0.65}, 1, 400*time.Millisecond)
		cfg.Arrivals.Rate = 50
		return cfg
	}
	free := mk()
	h, b := mustRun(t, free).Classes[0], mustRun(t, sim.WithoutHedging(free)).Classes[0]
	if share := float64(h.Hedged) / n; share < 0.99 {
		t.Errorf("uncapped hedge share %.3f, want ≈ 1", share)
	}
	if h.Quantile(0.95) < b.Quantile(0.95)-1e-9 {
		t.Errorf("uncapped p95 %.3f below no-hedging %.3f: a copy sent at 400 ms cannot beat a primary that is done by 650 ms", h.Quantile(0.95), b.Quantile(0.95))
	}
	capped := mk()
	capped.Classes[0].Policy.Budget = sim.Budget{HedgesPerSecond: 5, Burst: 10}
	c := mustRun(t, capped).Classes[0]
	duration := float64(n) / 50 // seconds of traffic
	if maxCopies := 5*duration + 10 + 5*math.Sqrt(n)/50*5; float64(c.Hedged) > maxCopies {
		t.Errorf("capped run sent %d copies, bound %.0f", c.Hedged, maxCopies)
	}
	costOf := func(r sim.ClassResult) float64 { return r.CostCompletedUSD + r.CostCancelledUSD }
	addedFree, addedCap := costOf(h)-costOf(b), costOf(c)-costOf(b)
	if !(addedCap < addedFree/5) {
		t.Errorf("added cost capped %.4f vs uncapped %.4f: the cap should bound it", addedCap, addedFree)
	}
}

// TestFailingHedgeTargetCreatesErrors: a hedge target that always fails at
// once (a misconfigured key). Under the fatal rule the request error rate
// rises to the hedge share: hedging created failures. Under "ignore" the
// requests are unharmed.
func TestFailingHedgeTargetCreatesErrors(t *testing.T) {
	const n = 50_000
	mk := func(rule sim.ErrorRule) *sim.Config {
		cfg := oneModel(n, dist.LogNormal{Mu: 0, Sigma: 1}, 1, 2*time.Second)
		cfg.Models = append(cfg.Models, sim.Model{Name: "broken", Provider: "q",
			Latency: dist.Constant{Value: 0.02}, ErrorRate: 1, ErrorLatency: dist.Constant{Value: 0.02}})
		cfg.Classes[0].Policy.Targets = []int{1}
		cfg.Classes[0].Policy.OnError = rule
		return cfg
	}
	c := mustRun(t, mk(sim.Fatal)).Classes[0]
	share, errs := float64(c.Hedged)/n, float64(c.Errors)/n
	// A copy at 2 s fails 20 ms later; the primary still answers first if it
	// finishes in (2, 2.02] s, so errors ≈ S(2.02) while hedges = S(2).
	want := dist.LogNormal{Mu: 0, Sigma: 1}.Survival(2.02)
	if math.Abs(errs-want) > binomialTol(want, n) || errs > share {
		t.Errorf("fatal: error rate %.4f, hedge share %.4f; want errors ≈ %.4f", errs, share, want)
	}
	c = mustRun(t, mk(sim.Ignore)).Classes[0]
	if c.Errors != 0 || c.Answered != n {
		t.Errorf("ignore: %d errors, %d answered of %d", c.Errors, c.Answered, n)
	}
}

// TestCancelBillingFullVersusInput: at the same hedge share, billing the
// cancelled loser in full instead of input only adds exactly the losers'
// output tokens at the output price.
func TestCancelBillingFullVersusInput(t *testing.T) {
	const n = 20_000
	run := func(b sim.Billing) sim.ClassResult {
		cfg := oneModel(n, dist.LogNormal{Mu: 0, Sigma: 1}, 1, time.Second)
		cfg.Classes[0].Policy.CancelBilling = b
		return mustRun(t, cfg).Classes[0]
	}
	in, full := run(sim.BillInput), run(sim.BillFull)
	if in.Hedged != full.Hedged || in.Attempts != full.Attempts {
		t.Fatalf("billing changed the simulation: %+v vs %+v", in.Attempts, full.Attempts)
	}
	// oneModel: 50 output tokens at $2 per million.
	want := float64(full.Attempts.Cancelled) * 50 * 2 / 1e6
	if got := full.CostCancelledUSD - in.CostCancelledUSD; math.Abs(got-want) > 1e-9 {
		t.Errorf("full − input = $%.6f, want $%.6f", got, want)
	}
}

// TestFallbackCopiesOnlyAfterFailure: a negative delay sends the copy only
// when the primary fails (non-fatal), never on a timer.
func TestFallbackCopiesOnlyAfterFailure(t *testing.T) {
	const n = 20_000
	cfg := oneModel(n, dist.LogNormal{Mu: 0, Sigma: 1}, 1, -1)
	cfg.Models[0].ErrorRate = 0.1
	cfg.Models[0].ErrorLatency = dist.Constant{Value: 0.05}
	cfg.Classes[0].Policy.OnError = sim.NonFatal
	c := mustRun(t, cfg).Classes[0]
	share := float64(c.Hedged) / n
	if math.Abs(share-0.1) > binomialTol(0.1, n) {
		t.Errorf("fallback share %.4f, want the failure rate 0.1", share)
	}
	if want := 0.01; math.Abs(float64(c.Errors)/n-want) > binomialTol(want, n) {
		t.Errorf("errors %.4f, want both attempts failing: 0.01", float64(c.Errors)/n)
	}
}

// TestAttemptTimeout: an attempt that exceeds its timeout is abandoned and
// handled by its rule; non-fatal sends the next copy at once.
func TestAttemptTimeout(t *testing.T) {
	cfg := twoModels(sim.Fatal)
	cfg.Models[0] = sim.Model{Name: "a", Latency: dist.Constant{Value: 5}}
	cfg.Classes[0].Policy.Delays = []time.Duration{3 * time.Second}
	cfg.Classes[0].Policy.AttemptTimeout = 200 * time.Millisecond
	cfg.Classes[0].Policy.OnAttemptTimeout = sim.NonFatal
	c := mustRun(t, cfg).Classes[0]
	if got := c.Quantile(0.5); math.Abs(got-0.3) > 1e-9 {
		t.Errorf("latency %v, want 200 ms timeout + 100 ms copy", got)
	}
	if c.Attempts.TimedOut != c.Requests {
		t.Errorf("%d attempts timed out, want %d", c.Attempts.TimedOut, c.Requests)
	}
}

// TestNewProviderTarget: "a different provider than those tried" skips
// listed targets on a provider the request already used.
func TestNewProviderTarget(t *testing.T) {
	cfg := twoModels(sim.Fatal)
	cfg.Models[0] = sim.Model{Name: "a", Provider: "p", Latency: dist.Constant{Value: 5}}
	cfg.Models[1] = sim.Model{Name: "a2", Provider: "p", Latency: dist.Constant{Value: 0.1}}
	cfg.Models = append(cfg.Models, sim.Model{Name: "b", Provider: "q", Latency: dist.Constant{Value: 0.3}})
	cfg.Classes[0].Policy.Targets = []int{1, 2}
	cfg.Classes[0].Policy.NewProvider = true
	var models []string
	sim.RunTrace(cfg, func(r *sim.AttemptRecord) {
		if r.Request == 0 {
			models = append(models, r.Model)
		}
	})
	if len(models) != 2 || models[0] != "b" && models[1] != "b" {
		t.Errorf("request 0 went to %v, want the copy on provider q (model b)", models)
	}
}

// TestAdaptiveWarmUpAndDrift: no copy before the warm-up's samples; fed by
// whole-request latency, which includes the delay itself, the delay drifts
// upward from where primaries alone would put it.
func TestAdaptiveWarmUpAndDrift(t *testing.T) {
	const n = 30_000
	mk := func(src sim.AdaptiveSource) *sim.Config {
		cfg := oneModel(n, dist.LogNormal{Mu: 0, Sigma: 1}, 1, time.Second)
		cfg.Classes[0].Policy.Adaptive = &sim.Adaptive{Percentile: 0.9, Window: 1000, WarmUp: 500, Source: src}
		return cfg
	}
	// No copy may go out before the 500th primary response.
	firstCopy := time.Duration(math.MaxInt64)
	var primaryEnds []time.Duration
	res, err := sim.RunTrace(mk(sim.FromPrimaries), func(r *sim.AttemptRecord) {
		if r.Attempt == 1 {
			firstCopy = min(firstCopy, r.Start)
		}
		if r.Attempt == 0 && r.Outcome == "completed" {
			primaryEnds = append(primaryEnds, r.End)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(primaryEnds)
	if warm := primaryEnds[499]; firstCopy < warm {
		t.Errorf("first copy at %v, before the 500th primary response at %v", firstCopy, warm)
	}
	if res.Classes[0].Denied.WarmUp == 0 {
		t.Error("no copies counted as denied during the warm-up")
	}
	prim := res.Classes[0].AdaptiveDelay
	req := mustRun(t, mk(sim.FromRequests)).Classes[0].AdaptiveDelay
	if len(prim) == 0 || len(req) == 0 {
		t.Fatal("no adaptive delay trace")
	}
	lastP, lastR := prim[len(prim)-1].Delay, req[len(req)-1].Delay
	t.Logf("final adaptive delay: primaries %.2fs, whole requests %.2fs (single-call p90 %.2fs)", lastP, lastR, math.Exp(1.2816))
	if !(lastR > lastP) {
		t.Errorf("whole-request feed %.2fs not above the primaries' %.2fs", lastR, lastP)
	}
}

// TestDeniedLastCopyEndsRequest: the primary fails and is ignored; the only
// copy is then denied by a budget, so nothing is left: the request ends with
// the error at once instead of hanging until its deadline.
func TestDeniedLastCopyEndsRequest(t *testing.T) {
	cfg := twoModels(sim.Ignore)
	cfg.Classes[0].Policy.Budget = sim.Budget{MaxHedgeShare: 1e-9}
	c := mustRun(t, cfg).Classes[0]
	if c.Errors != c.Requests || endQuantile(&c, 1) > 0.5+1e-9 {
		t.Errorf("errors %d of %d, slowest %vs: want every request to end with its error at the 500 ms timer", c.Errors, c.Requests, endQuantile(&c, 1))
	}
}
