package sim_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// batchMeanTol returns 5 standard errors of the mean of xs estimated by
// batch means (50 batches), which stays honest when consecutive values are
// correlated, as queueing delays are.
func batchMeanTol(xs []float64) (mean, tol float64) {
	const b = 50
	size := len(xs) / b
	var means [b]float64
	for i := range b {
		s := 0.0
		for _, x := range xs[i*size : (i+1)*size] {
			s += x
		}
		means[i] = s / float64(size)
		mean += means[i] / b
	}
	v := 0.0
	for _, m := range means {
		v += (m - mean) * (m - mean)
	}
	return mean, 5 * math.Sqrt(v/(b-1)/b)
}

// requestLatencies returns each request's latency in arrival order.
func requestLatencies(t *testing.T, cfg *sim.Config) []float64 {
	t.Helper()
	arr := make([]time.Duration, cfg.Requests)
	won := make([]time.Duration, cfg.Requests)
	_, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) {
		if r.Attempt == 0 {
			arr[r.Request] = r.Start // the primary is sent on arrival
		}
		if r.Won {
			won[r.Request] = r.End
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	lat := make([]float64, cfg.Requests)
	for i := range lat {
		lat[i] = (won[i] - arr[i]).Seconds()
	}
	return lat
}

func queueConfig(n int, lambda, mu float64, c int) *sim.Config {
	return &sim.Config{
		Name: "queue", Seed: 11, Requests: n,
		Arrivals:  sim.Arrivals{Process: sim.Poisson, Rate: lambda},
		Models:    []sim.Model{{Name: "m", Provider: "p", Latency: dist.Exponential{Rate: mu}}},
		Providers: []sim.Provider{{Name: "p", Concurrency: c}},
		Classes: []sim.Class{{Name: "c", Share: 1,
			InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}}},
	}
}

// erlangC returns the mean time in system of an M/M/c queue: the Erlang C
// probability of waiting C(c, a) with a = λ/μ, then W = C/(cμ − λ) + 1/μ
// (Kleinrock, Queueing Systems vol. 1, §3.5).
func erlangC(lambda, mu float64, c int) float64 {
	a := lambda / mu
	rho := a / float64(c)
	term, sum := 1.0, 1.0 // a^k/k!, summed for k < c
	for k := 1; k < c; k++ {
		term *= a / float64(k)
		sum += term
	}
	last := term * a / float64(c) / (1 - rho) // a^c/c! · 1/(1−ρ)
	pWait := last / (sum + last)
	return pWait/(float64(c)*mu-lambda) + 1/mu
}

func TestErlangCFormula(t *testing.T) {
	// The numbers: λ = 10/s, μ = 4/s, c = 3.
	if w := erlangC(10, 4, 3); math.Abs(w-0.601124) > 1e-6 {
		t.Fatalf("erlangC(10, 4, 3) = %v, want 0.601124", w)
	}
	if w := erlangC(0.5, 1, 1); math.Abs(w-2) > 1e-12 {
		t.Fatalf("M/M/1 = %v, want 1/(μ−λ) = 2", w)
	}
}

// TestQueueOracles: one provider with a FIFO queue, no hedging, matches
// M/M/1 (1/(μ−λ)) and M/M/c (Erlang C).
func TestQueueOracles(t *testing.T) {
	n := 400_000
	if testing.Short() {
		n = 100_000
	}
	for _, tc := range []struct {
		lambda, mu float64
		c          int
	}{{0.5, 1, 1}, {10, 4, 3}} {
		cfg := queueConfig(n, tc.lambda, tc.mu, tc.c)
		lat := requestLatencies(t, cfg)
		mean, tol := batchMeanTol(lat[n/10:]) // drop the warm-up from an empty system
		want := erlangC(tc.lambda, tc.mu, tc.c)
		if math.Abs(mean-want) > tol {
			t.Errorf("λ=%v μ=%v c=%d: mean time in system %.4f, want %.4f ± %.4f", tc.lambda, tc.mu, tc.c, mean, want, tol)
		}
		res := mustRun(t, cfg)
		if u, want := *res.Providers[0].Utilisation, tc.lambda/tc.mu/float64(tc.c); math.Abs(u-want) > 0.02 {
			t.Errorf("utilisation %.3f, want ρ = %.3f", u, want)
		}
	}
}

// TestFullRedundancy: every request goes to k = 2 single-server providers
// at once; the first to finish wins and the other copy is cancelled at
// once, queued or in service. Mean time in system is 1/(kμ − λ).
func TestFullRedundancy(t *testing.T) {
	n := 200_000
	cfg := &sim.Config{
		Name: "redundant", Seed: 5, Requests: n,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 1},
		Models: []sim.Model{
			{Name: "a", Provider: "pa", Latency: dist.Exponential{Rate: 1}},
			{Name: "b", Provider: "pb", Latency: dist.Exponential{Rate: 1}},
		},
		Providers: []sim.Provider{{Name: "pa", Concurrency: 1}, {Name: "pb", Concurrency: 1}},
		Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
			Policy: sim.Policy{Targets: []int{1}, Copies: 1, Delays: []time.Duration{0}}}},
	}
	lat := requestLatencies(t, cfg)
	mean, tol := batchMeanTol(lat[n/10:])
	if want := 1 / (2*1.0 - 1); math.Abs(mean-want) > tol {
		t.Errorf("mean time in system %.4f, want %.4f ± %.4f", mean, want, tol)
	}
}

// TestTokenBucketAdmitsMinRate: a rejecting bucket of rate r admits
// Poisson arrivals at λ at the long-run rate min(λ, r).
func TestTokenBucketAdmitsMinRate(t *testing.T) {
	const n = 100_000
	for _, lambda := range []float64{2, 10} {
		const r = 5.0 // per second
		cfg := queueConfig(n, lambda, 100, 0)
		cfg.Providers[0].RateLimit = sim.RateLimit{RequestsPerMinute: r * 60, Burst: 2 * time.Second, RejectLatency: 10 * time.Millisecond}
		res := mustRun(t, cfg)
		p := res.Providers[0]
		dur := float64(n) / lambda // expected run length in seconds
		admitted := float64(p.Completed) / dur
		want := math.Min(lambda, r)
		// Arrivals in the run are Poisson(n): 5·√n of slack in the count,
		// plus the bucket's capacity (2 s of refill).
		tol := (5*math.Sqrt(n) + 2*r) / dur
		if math.Abs(admitted-want) > tol {
			t.Errorf("λ=%v: admitted %.3f/s, want %.3f ± %.3f", lambda, admitted, want, tol)
		}
		if p.Completed+p.RateLimited != p.Sent {
			t.Errorf("λ=%v: completed %d + 429 %d ≠ sent %d", lambda, p.Completed, p.RateLimited, p.Sent)
		}
	}
}

// TestCopulaOrthantProbability: with correlation r between two attempts'
// normal scores, P(both above their median) = 1/4 + asin(r)/(2π)
// (Sheppard's formula).
func TestCopulaOrthantProbability(t *testing.T) {
	const n = 100_000
	for _, r := range []float64{0, 0.5, 0.9} {
		cfg := oneModel(n, dist.LogNormal{Mu: 0, Sigma: 1}, 1, 0)
		cfg.Correlation = sim.Correlation{SameModel: r}
		cfg.Classes[0].Policy.CancelLatency = 1000 * time.Hour // losers run to the end
		lat := make([][2]float64, n)
		_, err := sim.RunTrace(cfg, func(rec *sim.AttemptRecord) {
			lat[rec.Request][rec.Attempt] = (rec.End - rec.Start).Seconds()
		})
		if err != nil {
			t.Fatal(err)
		}
		both := 0
		for _, l := range lat {
			if l[0] > 1 && l[1] > 1 { // the median is e^0 = 1
				both++
			}
		}
		got := float64(both) / n
		want := 0.25 + math.Asin(r)/(2*math.Pi)
		if math.Abs(got-want) > binomialTol(want, n) {
			t.Errorf("r=%v: P(both slow) = %.4f, want %.4f", r, got, want)
		}
	}
}

// TestCorrelationOneBuysNothing: when a copy is exactly as slow as the
// original, hedging leaves every latency as it was and only adds cost.
func TestCorrelationOneBuysNothing(t *testing.T) {
	cfg := oneModel(50_000, dist.LogNormal{Mu: 0, Sigma: 1}, 2, 500*time.Millisecond)
	cfg.Correlation = sim.Correlation{SameModel: 1, SameProvider: 1, CrossProvider: 1}
	h, b := mustRun(t, cfg).Classes[0], mustRun(t, sim.WithoutHedging(cfg)).Classes[0]
	for _, p := range []float64{0.5, 0.95, 0.99} {
		if hq, bq := h.Quantile(p), b.Quantile(p); math.Abs(hq-bq) > 1e-9 {
			t.Errorf("p%v: %v hedged, %v without", 100*p, hq, bq)
		}
	}
	hc, bc := h.CostCompletedUSD+h.CostCancelledUSD, b.CostCompletedUSD+b.CostCancelledUSD
	if !(hc > bc*1.1) {
		t.Errorf("cost %v hedged, %v without: want more", hc, bc)
	}
}

func TestCorrelationNotPSD(t *testing.T) {
	cfg := oneModel(100, dist.LogNormal{Sigma: 1}, 2, time.Second)
	cfg.Models = append(cfg.Models, sim.Model{Name: "b", Provider: "q", Latency: dist.LogNormal{Sigma: 1}})
	cfg.Classes[0].Policy.Targets = []int{1, 0}
	// Attempts 0 and 2 share a model (r = 0), both tied hard to attempt 1.
	cfg.Correlation = sim.Correlation{SameModel: 0, CrossProvider: 0.9}
	if _, err := sim.Run(cfg); err == nil {
		t.Error("a correlation matrix that is not positive semidefinite was accepted")
	}
}

// degradedConfig: provider "pa" is degraded 10 % of the time and then 10×
// slower; "pb" is an independent provider with the same model.
func degradedConfig(target int) *sim.Config {
	lat := dist.LogNormal{Mu: math.Log(0.5), Sigma: 0.3}
	return &sim.Config{
		Name: "degraded", Seed: 9, Requests: 100_000,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 20},
		Models: []sim.Model{
			{Name: "a", Provider: "pa", Latency: lat},
			{Name: "b", Provider: "pb", Latency: lat},
		},
		Providers: []sim.Provider{{Name: "pa", Degraded: &sim.Degraded{
			MeanNormal: 90 * time.Second, MeanDegraded: 10 * time.Second, Slowdown: 10}}},
		Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
			Policy: sim.Policy{Targets: []int{target}, Copies: 1, Delays: []time.Duration{time.Second}}}},
	}
}

// TestSharedSlowdown: during a provider's slowdown a copy to the same
// provider is slow too, so it buys little p95; a copy to a second provider
// cuts p95 to about the delay plus a normal call.
func TestSharedSlowdown(t *testing.T) {
	same := degradedConfig(0)
	base := mustRun(t, sim.WithoutHedging(same)).Classes[0].Quantile(0.95)
	sameP95 := mustRun(t, same).Classes[0].Quantile(0.95)
	crossP95 := mustRun(t, degradedConfig(1)).Classes[0].Quantile(0.95)
	t.Logf("p95: no hedging %.2fs, same provider %.2fs, second provider %.2fs", base, sameP95, crossP95)
	if base < 3 {
		t.Fatalf("no-hedging p95 %.2fs: the slowdown should dominate the tail", base)
	}
	if sameP95 < 0.8*base {
		t.Errorf("same-provider hedge cut p95 from %.2fs to %.2fs; a shared slowdown should leave it high", base, sameP95)
	}
	if crossP95 > 0.5*base || crossP95 > 2 {
		t.Errorf("cross-provider hedge: p95 %.2fs, want about delay + one normal call (< 2 s)", crossP95)
	}
}

// TestHedgingUnderLoadRaisesP95: a provider with 4 servers at 80 %
// utilisation; hedging every slow call to the same provider adds load that
// feeds back into queueing, and p95 gets worse than without hedging.
func TestHedgingUnderLoadRaisesP95(t *testing.T) {
	cfg := queueConfig(100_000, 3.2, 1, 4) // ρ = 0.8
	cfg.Classes[0].Policy = sim.Policy{Copies: 1, Delays: []time.Duration{500 * time.Millisecond}, CancelLatency: 200 * time.Millisecond}
	h, b := mustRun(t, cfg).Classes[0].Quantile(0.95), mustRun(t, sim.WithoutHedging(cfg)).Classes[0].Quantile(0.95)
	t.Logf("p95 %.2fs hedged, %.2fs without", h, b)
	if !(h > 1.2*b) {
		t.Errorf("p95 %.2fs hedged vs %.2fs without: want hedging to make it clearly worse", h, b)
	}
}

// TestProviderAccountingSums: per provider, completed, failed, 429,
// invalid and cancelled attempts add up to those sent, and providers see
// every attempt the classes sent.
func TestProviderAccountingSums(t *testing.T) {
	cfg := degradedConfig(1)
	cfg.Providers = append(cfg.Providers, sim.Provider{Name: "pb", Concurrency: 8,
		RateLimit: sim.RateLimit{RequestsPerMinute: 60, Burst: time.Second}})
	cfg.Classes[0].Policy.OnError = sim.Ignore
	res := mustRun(t, cfg)
	var sent int64
	for _, p := range res.Providers {
		if s := p.Completed + p.Failed + p.RateLimited + p.Invalid + p.Cancelled; s != p.Sent {
			t.Errorf("%s: outcomes sum to %d, sent %d", p.Name, s, p.Sent)
		}
		sent += p.Sent
	}
	if sent != res.Overall.Attempts.Sent {
		t.Errorf("providers saw %d attempts, classes sent %d", sent, res.Overall.Attempts.Sent)
	}
	if res.Providers[1].RateLimited == 0 {
		t.Error("no 429s from a provider limited to 1 request per second")
	}
}

// TestEveryAttemptRejectedWarns: a token bucket smaller than any request
// rejects everything; the report says so instead of leaving it to the
// reader to notice 100 % 429s.
func TestEveryAttemptRejectedWarns(t *testing.T) {
	cfg := queueConfig(100, 1, 10, 0)
	cfg.Classes[0].InputTokens = dist.Constant{Value: 1000}
	cfg.Providers[0].RateLimit = sim.RateLimit{TokensPerMinute: 100, Burst: time.Minute}
	rep := sim.NewReport(cfg, mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg)))
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "every attempt with a 429") || !strings.Contains(rep.Warnings[0], "its rate limit admits none") {
		t.Errorf("warnings %q", rep.Warnings)
	}
}

// TestInjected429sWarnAsFailures: a model that answers every call with a
// 429 of its own (failures.rate_limited = 1) on a provider without any
// rate limit: the warning names the model's injected failures, not a rate
// limit the scenario does not have. With both causes it names both, with
// their counts.
func TestInjected429sWarnAsFailures(t *testing.T) {
	cfg := queueConfig(100, 1, 10, 0)
	cfg.Models[0].Failures.RateLimited.Rate = 1
	rep := sim.NewReport(cfg, mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg)))
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "every attempt with a 429") ||
		strings.Contains(rep.Warnings[0], "admits") || strings.Contains(rep.Warnings[0], "tokens_per_minute") || !strings.Contains(rep.Warnings[0], "failures.rate_limited") {
		t.Errorf("warnings %q; want one naming failures.rate_limited and no rate limit", rep.Warnings)
	}
	cfg.Classes[0].InputTokens = dist.Constant{Value: 1000}
	cfg.Providers[0].RateLimit = sim.RateLimit{TokensPerMinute: 1000, Burst: time.Minute}
	res := mustRun(t, cfg)
	rep = sim.NewReport(cfg, res, mustRun(t, sim.WithoutHedging(cfg)))
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "from a rate limit") || !strings.Contains(rep.Warnings[0], "failures.rate_limited") {
		t.Errorf("warnings %q; want one naming both causes", rep.Warnings)
	}
}
