package sim_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// erlangB returns the blocking probability of an M/M/c/c loss system
// with offered load a = λ/μ: B(c, a) = (aᶜ/c!) / Σₖ₌₀ᶜ aᵏ/k! (Erlang's
// loss formula; Kleinrock, Queueing Systems vol. 1, §3.6).
func erlangB(c int, a float64) float64 {
	term, sum := 1.0, 1.0
	for k := 1; k <= c; k++ {
		term *= a / float64(k)
		sum += term
	}
	return term / sum
}

// mmck returns the blocking probability and the mean time in system of
// admitted customers of an M/M/c/K queue: πₙ ∝ aⁿ/n! for n ≤ c and
// aᶜ/c!·ρⁿ⁻ᶜ for c < n ≤ K (ρ = a/c), P_block = π_K, W = L/(λ(1 − π_K))
// with L = Σ n·πₙ (Little's law; Kleinrock vol. 1, §3.7).
func mmck(lambda, mu float64, c, k int) (block, w float64) {
	a := lambda / mu
	pi := make([]float64, k+1)
	pi[0] = 1
	for n := 1; n <= k; n++ {
		if n <= c {
			pi[n] = pi[n-1] * a / float64(n)
		} else {
			pi[n] = pi[n-1] * a / float64(c)
		}
	}
	var sum, l float64
	for n, p := range pi {
		sum += p
		l += float64(n) * p
	}
	block = pi[k] / sum
	return block, l / sum / (lambda * (1 - block))
}

func TestLossFormulas(t *testing.T) {
	// B(1, a) = a/(1 + a); B(4, 3) = 3.375/16.375.
	if b := erlangB(1, 2); math.Abs(b-2.0/3) > 1e-12 {
		t.Errorf("B(1, 2) = %v, want 2/3", b)
	}
	if b := erlangB(4, 3); math.Abs(b-3.375/16.375) > 1e-12 {
		t.Errorf("B(4, 3) = %v", b)
	}
	// M/M/c/c is M/M/c/K with K = c; its admitted customers never wait.
	if b, w := mmck(3, 1, 4, 4); math.Abs(b-erlangB(4, 3)) > 1e-12 || math.Abs(w-1) > 1e-12 {
		t.Errorf("M/M/4/4: block %v, W %v; want B(4, 3) and 1/μ", b, w)
	}
}

// rejectedInOrder runs cfg (no hedging) and returns, in arrival order, 1
// for each request whose attempt was rejected and 0 otherwise, and the
// time in system of each admitted request.
func rejectedInOrder(t *testing.T, cfg *sim.Config) (rejected, admitted []float64) {
	t.Helper()
	rejected = make([]float64, cfg.Requests)
	res, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) {
		switch r.Outcome {
		case "rejected":
			rejected[r.Request] = 1
		case "completed":
			admitted = append(admitted, (r.End - r.Start).Seconds())
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	checkAttempts(t, res)
	return rejected, admitted
}

// TestRejectWhenFullMatchesErlangB: a provider with c slots and no queue
// (queue limit 0) under Poisson arrivals and exponential service rejects
// the Erlang B share of attempts. Tolerance: 5 standard errors by batch
// means over the rejection indicators in arrival order (rejections come
// in runs, so they are not independent), after a warm-up of 10 %.
func TestRejectWhenFullMatchesErlangB(t *testing.T) {
	n := 200_000
	if testing.Short() {
		n = 50_000
	}
	for _, tc := range []struct {
		lambda, mu float64
		c          int
	}{{3, 1, 4}, {0.8, 1, 1}, {20, 2, 12}} {
		t.Run(fmt.Sprintf("λ=%v μ=%v c=%d", tc.lambda, tc.mu, tc.c), func(t *testing.T) {
			cfg := queueConfig(n, tc.lambda, tc.mu, tc.c)
			cfg.Providers[0].RejectWhenFull = true
			rej, adm := rejectedInOrder(t, cfg)
			got, tol := batchMeanTol(rej[n/10:])
			want := erlangB(tc.c, tc.lambda/tc.mu)
			t.Logf("rejected share %.4f, Erlang B %.4f ± %.4f", got, want, tol)
			if math.Abs(got-want) > tol {
				t.Errorf("rejected share %.4f, want B(%d, %.3g) = %.4f ± %.4f", got, tc.c, tc.lambda/tc.mu, want, tol)
			}
			// Nothing waits: an admitted attempt's time in system is its service.
			if w, tol := batchMeanTol(adm); math.Abs(w-1/tc.mu) > tol {
				t.Errorf("admitted mean time in system %.4f, want 1/μ = %.4f ± %.4f", w, 1/tc.mu, tol)
			}
		})
	}
}

// TestBoundedQueueMatchesMMcK: with a queue limit, the provider is an
// M/M/c/K queue (K = c + limit): blocking probability and mean time in
// system of admitted requests as the formula says, tolerances as above.
func TestBoundedQueueMatchesMMcK(t *testing.T) {
	n := 200_000
	if testing.Short() {
		n = 50_000
	}
	for _, tc := range []struct {
		lambda, mu float64
		c, limit   int
	}{{2, 1, 2, 3}, {3, 1, 2, 3}, {0.9, 1, 1, 5}} {
		t.Run(fmt.Sprintf("λ=%v μ=%v c=%d limit=%d", tc.lambda, tc.mu, tc.c, tc.limit), func(t *testing.T) {
			cfg := queueConfig(n, tc.lambda, tc.mu, tc.c)
			cfg.Providers[0].RejectWhenFull = true
			cfg.Providers[0].QueueLimit = tc.limit
			rej, adm := rejectedInOrder(t, cfg)
			wantBlock, wantW := mmck(tc.lambda, tc.mu, tc.c, tc.c+tc.limit)
			got, tol := batchMeanTol(rej[n/10:])
			t.Logf("rejected share %.4f, M/M/c/K %.4f ± %.4f", got, wantBlock, tol)
			if math.Abs(got-wantBlock) > tol {
				t.Errorf("rejected share %.4f, want %.4f ± %.4f", got, wantBlock, tol)
			}
			w, tol := batchMeanTol(adm[len(adm)/10:])
			if math.Abs(w-wantW) > tol {
				t.Errorf("admitted mean time in system %.4f, want %.4f ± %.4f", w, wantW, tol)
			}
		})
	}
}

// TestOverloadRejectionIsAnErrorApartFrom429: a provider with one slot and
// no queue, a 1 s call every 0.6 s: every other request finds the slot
// busy and is rejected at once. The rejection follows the class's error
// rule — fatal ends the request with an error, non-fatal sends the copy to
// a second provider at once — and is counted apart from 429s.
func TestOverloadRejectionIsAnErrorApartFrom429(t *testing.T) {
	const n = 100
	mk := func(rule sim.ErrorRule) *sim.Config {
		return &sim.Config{
			Name: "overload", Seed: 1, Requests: n,
			Arrivals: sim.Arrivals{Process: sim.Constant, Rate: 1 / 0.6},
			Models: []sim.Model{
				{Name: "a", Provider: "p", Latency: dist.Constant{Value: 1}},
				{Name: "b", Provider: "q", Latency: dist.Constant{Value: 0.1}},
			},
			Providers: []sim.Provider{{Name: "p", Concurrency: 1, RejectWhenFull: true}, {Name: "q"}},
			Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
				Policy: sim.Policy{Targets: []int{1}, Copies: 1, Delays: []time.Duration{-1}, OnError: rule}}},
		}
	}
	res, ends := requestEnds(t, mk(sim.Fatal))
	checkAttempts(t, res)
	c := res.Classes[0]
	if c.Attempts.Rejected != n/2 || c.Rejected != n/2 || c.Errors != n/2 || c.RateLimited != 0 || c.Attempts.RateLimited != 0 {
		t.Errorf("fatal: attempts rejected %d, requests rejected %d, errors %d, 429s %d; want %d, %d, %d, 0",
			c.Attempts.Rejected, c.Rejected, c.Errors, c.RateLimited, n/2, n/2, n/2)
	}
	for i := 1; i < n; i += 2 {
		if ends[i] != 0 {
			t.Fatalf("fatal: request %d ended after %vs, want 0 (rejected at once)", i, ends[i])
		}
	}
	if p := provider(t, res, "p"); p.Rejected != n/2 || p.RateLimited != 0 {
		t.Errorf("provider p: %d rejected, %d 429s; want %d and 0", p.Rejected, p.RateLimited, n/2)
	}
	res = mustRun(t, mk(sim.NonFatal))
	checkAttempts(t, res)
	c = res.Classes[0]
	if c.Answered != n || c.Errors != 0 || math.Abs(c.Quantile(0.5)-0.1) > 1e-9 {
		t.Errorf("non-fatal: answered %d, errors %d, median %v; want all answered, half of them by the copy in 0.1 s", c.Answered, c.Errors, c.Quantile(0.5))
	}
}

// TestIgnoredCancelRunsLosersToCompletion: at a provider that ignores
// cancels, the loser runs to its end and is billed in full, whatever the
// class's cancellation billing; it counts as completed, not cancelled.
func TestIgnoredCancelRunsLosersToCompletion(t *testing.T) {
	const n = 10
	cfg := &sim.Config{
		Name: "no-cancel", Seed: 1, Requests: n,
		Arrivals: sim.Arrivals{Process: sim.Constant, Rate: 0.1},
		Models: []sim.Model{
			{Name: "fast", Provider: "q", Latency: dist.Constant{Value: 0.5}, PricePerRequest: 1},
			{Name: "slow", Provider: "p", Latency: dist.Constant{Value: 2}, PricePerRequest: 1},
		},
		Providers: []sim.Provider{{Name: "p", Concurrency: 1, IgnoresCancel: true}, {Name: "q"}},
		Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
			Policy: sim.Policy{Primary: 1, Targets: []int{0}, Copies: 1, Delays: []time.Duration{time.Second}, CancelBilling: sim.BillNone}}},
	}
	res := mustRun(t, cfg)
	checkAttempts(t, res)
	c := res.Classes[0]
	if c.Attempts.Completed != 2*n || c.Attempts.Cancelled != 0 {
		t.Errorf("attempts %+v, want %d completed and none cancelled", c.Attempts, 2*n)
	}
	if got := c.CostCompletedUSD + c.CostCancelledUSD; math.Abs(got-2*n) > 1e-9 {
		t.Errorf("billed $%v, want $%d (losers in full)", got, 2*n)
	}
	if math.Abs(c.Quantile(1)-1.5) > 1e-9 {
		t.Errorf("latency %v, want 1.5 (the copy wins)", c.Quantile(1))
	}
	// The slot is busy 2 s of every 10 s; the run ends when the last loser does.
	if u := *provider(t, res, "p").Utilisation; math.Abs(u-20.0/92) > 1e-9 {
		t.Errorf("utilisation %v, want 20 s / 92 s", u)
	}
}

// stormConfig: Poisson requests at lambda per second to one model (0.1 s)
// whose provider admits 5 requests per second (a bucket holding 1 s of
// refill); every 429 comes back in 10 ms and is retried at once (non-fatal,
// fallback copies, up to 7).
func stormConfig(n int, lambda float64, countRejected bool) *sim.Config {
	cfg := queueConfig(n, lambda, 10, 0)
	cfg.Models[0].Latency = dist.Constant{Value: 0.1}
	cfg.Providers[0].RateLimit = sim.RateLimit{RequestsPerMinute: 300, Burst: time.Second,
		RejectLatency: 10 * time.Millisecond, CountRejected: countRejected}
	cfg.Classes[0].Policy = sim.Policy{Copies: 7, Delays: []time.Duration{-1}, OnError: sim.NonFatal, OnRateLimited: sim.NonFatal}
	return cfg
}

// TestRejectionsCostingQuotaKeepAStormGoing: instant retries on 429 at an
// offered rate of 10 requests per second against a limit of 5. When
// rejections take nothing from the bucket, it admits the limit's 5 per
// second (tolerance as in TestTokenBucketAdmitsMinRate). When they cost
// quota, the bucket never recovers once the first 429 has come back: each
// request's 8 attempts keep it at its debt floor of −5, and to refill one
// request it needs 1.2 s without any attempt — probability e⁻¹² per
// request, 0.12 expected over the run, so at most 2 admissions after the
// first 429 (Poisson tail 3·10⁻⁴). Below the limit, with the option on,
// the same retries do no harm.
func TestRejectionsCostingQuotaKeepAStormGoing(t *testing.T) {
	const n = 20_000
	const limit = 5.0
	dur := float64(n) / 10 // expected seconds of traffic
	off := mustRun(t, stormConfig(n, 10, false))
	checkAttempts(t, off)
	admitted := float64(off.Providers[0].Completed) / dur
	if tol := (5*math.Sqrt(n) + limit) / dur; math.Abs(admitted-limit) > tol {
		t.Errorf("rejections free: admitted %.3f/s, want the limit %v ± %.3f", admitted, limit, tol)
	}
	first429 := time.Duration(math.MaxInt64)
	var starts []time.Duration
	on, err := sim.RunTrace(stormConfig(n, 10, true), func(r *sim.AttemptRecord) {
		switch r.Outcome {
		case "rate_limited":
			first429 = min(first429, r.End)
		case "completed":
			starts = append(starts, r.Start)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	checkAttempts(t, on)
	after := 0
	for _, s := range starts {
		if s > first429 {
			after++
		}
	}
	t.Logf("admitted per second: %.3f with free rejections; when they cost quota %d before the first 429 (at %v), %d after",
		admitted, len(starts)-after, first429, after)
	if after > 2 {
		t.Errorf("rejections cost quota: %d attempts admitted after the first 429, want the storm to keep the bucket empty", after)
	}
	calm := mustRun(t, stormConfig(n, 2, true)).Classes[0]
	if share := float64(calm.Answered) / n; share < 0.99 {
		t.Errorf("offered rate 2/s below the limit, rejections cost quota: answered %.4f, want ≈ 1", share)
	}
}
