package sim_test

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// retryConfig is one class on one model of constant latency 1 s that
// fails with probability p after a constant 200 ms, no deadline, with the
// given hedge copies (gap 500 ms) and retry layers.
func retryConfig(n int, p float64, copies int, outer, inner *sim.Retry) *sim.Config {
	cfg := oneModel(n, dist.Constant{Value: 1}, copies, 500*time.Millisecond)
	cfg.Models[0].ErrorRate = p
	cfg.Models[0].ErrorLatency = dist.Constant{Value: 0.2}
	cfg.Classes[0].Retry = outer
	cfg.Classes[0].AttemptRetry = inner
	return cfg
}

func fixedRetry(attempts int, initial time.Duration, mult float64) *sim.Retry {
	return &sim.Retry{MaxAttempts: attempts, InitialBackoff: initial, MaxBackoff: time.Hour,
		Multiplier: mult, Jitter: sim.JitterNone, On: sim.DefaultRetryOn}
}

// TestRetryStackedLayersMultiply: with every call failing, 3 app-level
// tries of a request each making 4 SDK-level calls give exactly 12 calls
// per request, and the report's calls per request shows it.
func TestRetryStackedLayersMultiply(t *testing.T) {
	const n = 500
	cfg := retryConfig(n, 1, 0, fixedRetry(3, 10*time.Millisecond, 2), fixedRetry(4, time.Millisecond, 2))
	res := mustRun(t, cfg)
	c := &res.Classes[0]
	if c.Attempts.Sent != 12*n || c.Attempts.Failed != 12*n || c.Errors != n {
		t.Fatalf("sent %d, failed %d calls, %d errors; want %d, %d, %d", c.Attempts.Sent, c.Attempts.Failed, c.Errors, 12*n, 12*n, n)
	}
	if r := c.Retries; r == nil || r.RequestsRerun != n || r.Reruns != 2*n || r.Calls != 9*n {
		t.Fatalf("retries %+v; want %d requests re-run, %d re-runs and %d calls retried", r, n, 2*n, 9*n)
	}
	rep := sim.NewReport(cfg, res, mustRun(t, sim.WithoutHedging(cfg)))
	if got := rep.Overall.AttemptsPerRequest; got != 12 {
		t.Errorf("report: %v calls per request; want 12", got)
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	if !strings.Contains(text.String(), "requests re-run  re-runs  calls retried") || !strings.Contains(text.String(), "500     1000           4500") || !strings.Contains(text.String(), "12.000") {
		t.Errorf("the text report shows no retries or not 12 calls per request:\n%s", text.String())
	}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(js, []byte(`"retries":{"requests_rerun":500,"reruns":1000,"calls":4500,"denied":0,"denied_by":{"hedge_share":0,"throttle":0,"in_flight_ratio":0,"hedges_per_second":0,"max_parallel":0,"adaptive_warm_up":0}}`)) {
		t.Errorf("the JSON report does not carry the retries: %s", js)
	}
}

// TestRetryFailureOracle: independent calls failing with probability p,
// no hedging and an app-level retry of n tries: a request fails with
// probability pⁿ and makes (1 − pⁿ)/(1 − p) calls on average (a truncated
// geometric number of tries). The same holds for the attempt-level retry.
// Tolerances: 5 standard errors of the estimate from the sample size.
func TestRetryFailureOracle(t *testing.T) {
	t.Parallel()
	const reqs = 100_000
	for _, p := range []float64{0.3, 0.6} {
		for _, tries := range []int{2, 4} {
			for _, layer := range []string{"retry", "attempt_retry"} {
				rt := fixedRetry(tries, 50*time.Millisecond, 2)
				cfg := retryConfig(reqs, p, 0, rt, nil)
				if layer == "attempt_retry" {
					cfg = retryConfig(reqs, p, 0, nil, rt)
				}
				c := &mustRun(t, cfg).Classes[0]
				pf := math.Pow(p, float64(tries))
				if got := float64(c.Errors) / reqs; math.Abs(got-pf) > binomialTol(pf, reqs) {
					t.Errorf("%s p=%v n=%d: failure share %v; want pⁿ = %v", layer, p, tries, got, pf)
				}
				mean := (1 - pf) / (1 - p)
				// Calls per request K, a geometric truncated at n: P(K ≥ k) =
				// p^(k−1), so E[K²] = Σₖ (2k − 1)·p^(k−1), k = 1 … n.
				var k2 float64
				for k := 1; k <= tries; k++ {
					k2 += float64(2*k-1) * math.Pow(p, float64(k-1))
				}
				sd := math.Sqrt(k2 - mean*mean)
				if got := float64(c.Attempts.Sent) / reqs; math.Abs(got-mean) > 5*sd/math.Sqrt(reqs) {
					t.Errorf("%s p=%v n=%d: %v calls per request; want (1−pⁿ)/(1−p) = %v", layer, p, tries, got, mean)
				}
			}
		}
	}
}

// TestRetryFailingEndsAtSumOfBackoffs: with constant error latency and no
// jitter, a request failing every try ends exactly at the sum of its error
// latencies and backoffs: 4 tries of 200 ms with backoffs 100, 300, 900 ms
// (multiplier 3) end at 0.8 + 1.3 = 2.1 s; a max backoff of 250 ms caps
// them to 100, 250, 250 ms: 1.4 s. Stacked 2 × 3 with every backoff 10 ms:
// 6 calls and 5 backoffs, 1.25 s.
func TestRetryFailingEndsAtSumOfBackoffs(t *testing.T) {
	capped := fixedRetry(4, 100*time.Millisecond, 3)
	capped.MaxBackoff = 250 * time.Millisecond
	for _, tc := range []struct {
		name         string
		outer, inner *sim.Retry
		want         float64
	}{
		{"app", fixedRetry(4, 100*time.Millisecond, 3), nil, 2.1},
		{"sdk", nil, fixedRetry(4, 100*time.Millisecond, 3), 2.1},
		{"capped", capped, nil, 1.4},
		{"stacked", fixedRetry(2, 10*time.Millisecond, 1), fixedRetry(3, 10*time.Millisecond, 1), 1.25},
	} {
		c := &mustRun(t, retryConfig(200, 1, 0, tc.outer, tc.inner)).Classes[0]
		ends := c.MissEnds()
		if len(ends) != 200 {
			t.Fatalf("%s: %d of 200 requests failed; want all", tc.name, len(ends))
		}
		for _, x := range ends {
			if math.Abs(x-tc.want) > 1e-9 {
				t.Fatalf("%s: a request failing every try ended at %v s; want %v", tc.name, x, tc.want)
			}
		}
	}
}

// TestRetryJitterMeans: the mean backoff is d/2 under full jitter and
// 3d/4 under equal jitter (d = 400 ms): one retry after a failing call of
// 200 ms then a success of 1 s, so a request answered on its retry takes
// 1.2 s + its backoff. 5 standard errors of a uniform's mean, d/√12/√n.
func TestRetryJitterMeans(t *testing.T) {
	const d = 0.4
	for _, tc := range []struct {
		jitter     sim.Jitter
		mean, span float64
	}{{sim.JitterFull, d / 2, d}, {sim.JitterEqual, 3 * d / 4, d / 2}, {sim.JitterNone, d, 0}} {
		for _, layer := range []string{"retry", "attempt_retry"} {
			rt := fixedRetry(2, 400*time.Millisecond, 2)
			rt.Jitter = tc.jitter
			cfg := retryConfig(50_000, 0.5, 0, rt, nil)
			if layer == "attempt_retry" {
				cfg = retryConfig(50_000, 0.5, 0, nil, rt)
			}
			c := &mustRun(t, cfg).Classes[0]
			var sum float64
			var m int
			lo, hi := 1.2+tc.mean-tc.span/2, 1.2+tc.mean+tc.span/2
			for _, x := range c.Latencies() {
				if x > 1.1 && !math.IsInf(x, 1) {
					if x < lo-1e-9 || x > hi+1e-9 {
						t.Fatalf("%s %v: latency %v outside [%v, %v]", layer, tc.jitter, x, lo, hi)
					}
					sum += x - 1.2
					m++
				}
			}
			if m < 10_000 {
				t.Fatalf("%s %v: only %d requests answered on their retry", layer, tc.jitter, m)
			}
			tol := 5*tc.span/math.Sqrt(12)/math.Sqrt(float64(m)) + 1e-9
			if got := sum / float64(m); math.Abs(got-tc.mean) > tol {
				t.Errorf("%s %v jitter: mean backoff %v s over %d retries; want %v ± %v", layer, tc.jitter, got, m, tc.mean, tol)
			}
		}
	}
}

// TestRetryAccountingEveryWay: retries of both layers combined with what
// else ends an attempt — queues (bounded and not), rate limits, failures
// by kind with Retry-After, attempt timeouts, deadlines, cancels that land
// late or never, every winner rule, budgets the retries count against, a
// circuit breaker and closed-loop clients — on random configurations: every
// call has one trace row, keyed by (request, round, attempt, try), the
// counts sum (and the engine's audit passes), and a second run is identical.
func TestRetryAccountingEveryWay(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 40
	if testing.Short() {
		n = 10
	}
	pick := func(xs ...time.Duration) time.Duration { return xs[rng.IntN(len(xs))] }
	for i := range n {
		lat := dist.LogNormal{Mu: math.Log(0.3), Sigma: 0.7}
		cfg := &sim.Config{
			Name: "retry-every-way", Seed: uint64(i), Requests: 3000,
			Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 40},
			Models: []sim.Model{
				{Name: "a", Provider: "pa", Latency: lat, ErrorRate: 0.1 * float64(rng.IntN(4)), InvalidRate: 0.05,
					ErrorLatency: dist.Constant{Value: 0.05}, PriceOutputPerMTok: 1,
					Failures: sim.Failures{RateLimited: sim.Failure{Rate: 0.05, RetryAfter: pick(0, 200*time.Millisecond)},
						Timeout: sim.Failure{Rate: 0.05}, ClientError: sim.Failure{Rate: 0.02}}},
				{Name: "b", Provider: "pb", TTFT: lat, TokensPerSecond: dist.Uniform{Min: 30, Max: 90}, ErrorRate: 0.1, PriceInputPerMTok: 1},
			},
			Providers: []sim.Provider{
				{Name: "pa", Concurrency: 8 + rng.IntN(8), RejectWhenFull: rng.IntN(2) == 0, QueueLimit: rng.IntN(4)},
				{Name: "pb", Concurrency: 6, IgnoresCancel: rng.IntN(3) == 0,
					RateLimit: sim.RateLimit{RequestsPerMinute: 1200, Burst: time.Second, RejectLatency: 5 * time.Millisecond, RetryAfter: pick(0, 100*time.Millisecond)}},
			},
		}
		if !cfg.Providers[0].RejectWhenFull {
			cfg.Providers[0].QueueLimit = 0
		}
		if rng.IntN(2) == 0 {
			cfg.Models[0].Breaker = &sim.Breaker{Failures: 3, Cooldown: 500 * time.Millisecond, Probes: 1}
		}
		retry := func(inner bool) *sim.Retry {
			if rng.IntN(3) == 0 {
				return nil
			}
			on := sim.RetryOn(1 + rng.IntN(63))
			if inner {
				on &^= sim.RetryAttemptTimeout | sim.RetryInvalid
				on |= sim.RetryServerError
			}
			return &sim.Retry{MaxAttempts: 1 + rng.IntN(4), InitialBackoff: pick(0, 20*time.Millisecond, 100*time.Millisecond),
				MaxBackoff: time.Second, Multiplier: 1 + rng.Float64(), Jitter: sim.Jitter(rng.IntN(3)), On: on,
				CountsAgainstBudget: rng.IntN(2) == 0}
		}
		for c := range 2 {
			cl := sim.Class{
				Name: string(rune('x' + c)), Share: 0.5, InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Uniform{Min: 10, Max: 100},
				Deadline:  pick(0, 1500*time.Millisecond, 4*time.Second),
				OnTimeout: sim.TimeoutRule(rng.IntN(2)),
				Policy: sim.Policy{Primary: rng.IntN(2), Targets: []int{rng.IntN(2)}, Copies: rng.IntN(3),
					Delays:  []time.Duration{pick(0, 200*time.Millisecond, 500*time.Millisecond, -1)},
					Winner:  sim.WinnerRule(rng.IntN(3)),
					OnError: sim.ErrorRule(rng.IntN(3)), OnRateLimited: sim.ErrorRule(rng.IntN(3)), OnInvalid: sim.ErrorRule(rng.IntN(3)),
					OnUpstreamTimeout: sim.ErrorRule(rng.IntN(3)),
					AttemptTimeout:    pick(0, 800*time.Millisecond), OnAttemptTimeout: sim.ErrorRule(rng.IntN(3)),
					CancelLatency: pick(0, 100*time.Millisecond, time.Second), CancelBilling: sim.Billing(rng.IntN(4))},
				Retry: retry(false), AttemptRetry: retry(true),
			}
			if rng.IntN(2) == 0 {
				cl.Policy.Budget = sim.Budget{HedgesPerSecond: 5, Burst: 3, MaxInFlightRatio: 0.5, MinInFlight: 2}
			}
			if c == 1 && rng.IntN(3) == 0 {
				cl.Share, cl.Clients = 0, 10
				cfg.Classes[0].Share = 1
			}
			cfg.Classes = append(cfg.Classes, cl)
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("config %d: %v", i, err)
		}
		rows := map[[4]int64]bool{}
		res, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) {
			key := [4]int64{r.Request, int64(r.Round), int64(r.Attempt), int64(r.Try)}
			if rows[key] {
				t.Fatalf("config %d: call %v has two trace rows", i, key)
			}
			rows[key] = true
		})
		if err != nil {
			t.Fatal(err)
		}
		checkAttempts(t, res)
		if int64(len(rows)) != res.Overall.Attempts.Sent {
			t.Fatalf("config %d: %d trace rows, %d calls sent", i, len(rows), res.Overall.Attempts.Sent)
		}
		for _, c := range res.Classes {
			if ended := c.Answered + c.TimeoutsOpen + c.TimeoutsClosed + c.Errors + c.Invalid; ended != c.Requests {
				t.Fatalf("config %d class %s: %d requests, %d ended", i, c.Name, c.Requests, ended)
			}
		}
		// The JSON report, not DeepEqual: a result may hold NaN (an
		// undefined CI).
		base := mustRun(t, sim.WithoutHedging(cfg))
		if !bytes.Equal(reportJSON(t, cfg, mustRun(t, cfg), base), reportJSON(t, cfg, res, base)) {
			t.Fatalf("config %d: a second run differs", i)
		}
	}
}

// TestRetryAfterOverridesBackoff: a 429 whose Retry-After hint (1 s) is
// longer than the backoff (100 ms) waits the hint: 3 tries of 200 ms and
// two waits of 1 s end a request at 2.6 s; with a hint of 50 ms the backoff
// stands: 0.6 + 0.2 s.
func TestRetryAfterOverridesBackoff(t *testing.T) {
	for _, tc := range []struct {
		hint time.Duration
		want float64
	}{{time.Second, 2.6}, {50 * time.Millisecond, 0.8}} {
		for _, layer := range []string{"retry", "attempt_retry"} {
			cfg := retryConfig(100, 0, 0, nil, nil)
			cfg.Models[0].Failures.RateLimited = sim.Failure{Rate: 1, Latency: dist.Constant{Value: 0.2}, RetryAfter: tc.hint}
			rt := fixedRetry(3, 100*time.Millisecond, 1)
			if layer == "retry" {
				cfg.Classes[0].Retry = rt
			} else {
				cfg.Classes[0].AttemptRetry = rt
			}
			c := &mustRun(t, cfg).Classes[0]
			if c.RateLimited != 100 || len(c.MissEnds()) != 100 {
				t.Fatalf("%s: %d requests ended by a 429, %d misses; want 100", layer, c.RateLimited, len(c.MissEnds()))
			}
			for _, x := range c.MissEnds() {
				if math.Abs(x-tc.want) > 1e-9 {
					t.Fatalf("%s, hint %v: a request ended at %v s; want %v", layer, tc.hint, x, tc.want)
				}
			}
		}
	}
}

// TestRetryCountsAgainstBudget: with every call failing and a hedge rate
// limit of one token that never refills in the run, a retry that counts
// against the budget is made once (the first request's) and denied for the
// other n − 1 requests; one that does not count is made for all n.
func TestRetryCountsAgainstBudget(t *testing.T) {
	const n = 400
	for _, counts := range []bool{true, false} {
		for _, layer := range []string{"retry", "attempt_retry"} {
			rt := fixedRetry(2, 10*time.Millisecond, 1)
			rt.CountsAgainstBudget = counts
			cfg := retryConfig(n, 1, 0, rt, nil)
			if layer == "attempt_retry" {
				cfg = retryConfig(n, 1, 0, nil, rt)
			}
			cfg.Classes[0].Policy.Budget = sim.Budget{HedgesPerSecond: 1e-6, Burst: 1}
			c := &mustRun(t, cfg).Classes[0]
			made, denied := int64(1), int64(n-1)
			if !counts {
				made, denied = n, 0
			}
			r := c.Retries
			if r.Reruns+r.Calls != made || r.Denied != denied || c.Attempts.Sent != n+made {
				t.Errorf("%s, counts %v: retries %+v, %d calls; want %d made, %d denied, %d calls", layer, counts, r, c.Attempts.Sent, made, denied, n+made)
			}
		}
	}
}

// TestRetryDeadlineSplitSameInBothLayers: calls of 1 s fail with
// probability 0.3 after 0.1 s; 3 tries, backoffs 1 s then 2 s, no jitter,
// a 2 s deadline. A request answered first time (0.7) is answered; one
// whose first call fails retries at 1.1 s and, when that call succeeds
// (0.7), is answered at 2.1 s, past the deadline: a timeout (0.3 × 0.7 =
// 0.21); when it fails too at 1.2 s, the next backoff (2 s) would pass the
// deadline, so no retry is made and the request is an error (0.3 × 0.3 =
// 0.09). The same split in both layers: the SDK's retry loop does not
// sleep past the deadline either. Tolerances: 5 standard errors.
func TestRetryDeadlineSplitSameInBothLayers(t *testing.T) {
	const n = 50_000
	for _, layer := range []string{"retry", "attempt_retry"} {
		rt := fixedRetry(3, time.Second, 2)
		cfg := oneModel(n, dist.Constant{Value: 1}, 0)
		cfg.Models[0].ErrorRate = 0.3
		cfg.Models[0].ErrorLatency = dist.Constant{Value: 0.1}
		cfg.Classes[0].Deadline = 2 * time.Second
		if layer == "retry" {
			cfg.Classes[0].Retry = rt
		} else {
			cfg.Classes[0].AttemptRetry = rt
		}
		c := &mustRun(t, cfg).Classes[0]
		for _, w := range []struct {
			what string
			got  int64
			want float64
		}{
			{"answered", c.Answered, 0.7},
			{"errors", c.Errors, 0.09},
			{"timeouts", c.TimeoutsOpen + c.TimeoutsClosed, 0.21},
		} {
			if got := float64(w.got) / n; math.Abs(got-w.want) > binomialTol(w.want, n) {
				t.Errorf("%s: %s %.4f of requests; want %.2f", layer, w.what, got, w.want)
			}
		}
	}
}

// TestRetryDeniedApartFromCopies: a class that does not hedge, whose
// retries count against a hedge rate limit of one token, has its denials
// reported as retries denied (text and JSON, per budget), none as copies.
func TestRetryDeniedApartFromCopies(t *testing.T) {
	const n = 400
	for _, layer := range []string{"retry", "attempt_retry"} {
		rt := fixedRetry(2, 10*time.Millisecond, 1)
		rt.CountsAgainstBudget = true
		cfg := retryConfig(n, 1, 0, rt, nil)
		if layer == "attempt_retry" {
			cfg = retryConfig(n, 1, 0, nil, rt)
		}
		cfg.Classes[0].Policy.Budget = sim.Budget{HedgesPerSecond: 1e-6, Burst: 1}
		res := mustRun(t, cfg)
		c := &res.Classes[0]
		if c.Denied.Total() != 0 || c.Retries.Denied != n-1 || c.Retries.DeniedBy != (sim.Denied{Rate: n - 1}) {
			t.Errorf("%s: copies denied %+v, retries %+v; want none and %d retries denied by hedges/s", layer, c.Denied, c.Retries, n-1)
		}
		rep := sim.NewReport(cfg, res, mustRun(t, sim.WithoutHedging(cfg)))
		var text bytes.Buffer
		rep.WriteText(&text)
		if want := "c: budgets denied 399 retries (hedges/s 399)"; !strings.Contains(text.String(), want) || strings.Contains(text.String(), "copies (") {
			t.Errorf("%s: text report lacks %q or reports copies denied:\n%s", layer, want, text.String())
		}
		js, err := json.Marshal(rep.Classes[0])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(js, []byte(`"denied":399,"denied_by":{"hedge_share":0,"throttle":0,"in_flight_ratio":0,"hedges_per_second":399`)) ||
			!bytes.Contains(js, []byte(`"denied_hedges":{"hedge_share":0,"throttle":0,"in_flight_ratio":0,"hedges_per_second":0`)) {
			t.Errorf("%s: JSON does not carry the retries denied apart from the copies: %s", layer, js)
		}
	}
}

// TestRetryStallReruns: half the streams stall 100 s mid-stream and a 2 s
// inter-token timeout cuts them (fatal). Without a retry of stalls every
// cut request ends stalled; a class retry of "stall" with 3 tries re-runs
// them, so a request fails only when all 3 tries stall: 0.5³ = 12.5 %
// (tolerance: 5 standard errors at the sample size). Other retryable
// kinds do not take a cut.
func TestRetryStallReruns(t *testing.T) {
	const reqs = 20_000
	m := streamedModel("a", dist.Constant{Value: 0.5}, 10)
	m.Stalls = sim.Stalls{Rate: 0.5, Duration: dist.Constant{Value: 100}, At: sim.MidStream}
	run := func(on sim.RetryOn) *sim.ClassResult {
		rt := fixedRetry(3, 10*time.Millisecond, 1)
		rt.On = on
		cfg := &sim.Config{
			Name: "stall-retry", Seed: 3, Requests: reqs,
			Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 10},
			Models:   []sim.Model{m},
			Classes: []sim.Class{{
				Name: "c", Share: 1, Deadline: 300 * time.Second,
				InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Constant{Value: 20},
				Policy: sim.Policy{StreamCuts: sim.StreamCuts{InterTokenTimeout: 2 * time.Second, OnStall: sim.Fatal}},
				Retry:  rt,
			}},
		}
		return &mustRun(t, cfg).Classes[0]
	}
	others := sim.DefaultRetryOn | sim.RetryAttemptTimeout | sim.RetryInvalid
	if c := run(others); c.Stalled != c.Attempts.Stalled || c.Attempts.Sent != reqs ||
		math.Abs(float64(c.Stalled)/reqs-0.5) > binomialTol(0.5, reqs) {
		t.Errorf("without stall: %d of %d requests ended stalled, %d attempts cut of %d sent; want every cut request ended stalled, none re-run, about half",
			c.Stalled, reqs, c.Attempts.Stalled, c.Attempts.Sent)
	}
	c := run(others | sim.RetryStall)
	if got := float64(c.Stalled) / reqs; math.Abs(got-0.125) > binomialTol(0.125, reqs) {
		t.Errorf("retrying stalls: %v of the requests ended stalled; want 0.5³ = 0.125", got)
	}
	if c.Answered+c.Stalled != reqs {
		t.Errorf("answered %d + stalled %d ≠ %d requests", c.Answered, c.Stalled, reqs)
	}
}
