package sim_test

import (
	"math"
	"testing"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// closedConfig is n requests of one class driven by `clients` closed-loop
// clients with exponential think times of mean z seconds, sent to one
// model with exponential service of rate mu on a provider with concurrency
// c (0 = unlimited).
func closedConfig(n, clients int, z, mu float64, c int) *sim.Config {
	var think dist.Continuous
	if z > 0 {
		think = dist.Exponential{Rate: 1 / z}
	}
	return &sim.Config{
		Name: "closed", Seed: 3, Requests: n,
		Models:    []sim.Model{{Name: "m", Provider: "p", Latency: dist.Exponential{Rate: mu}}},
		Providers: []sim.Provider{{Name: "p", Concurrency: c}},
		Classes: []sim.Class{{Name: "batch", Clients: clients, ThinkTime: think,
			InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}}},
	}
}

// machineRepairman returns the throughput X and mean response time R of
// the closed M/M/1 queue (the machine-repairman model): N clients thinking
// exponential times of rate λ, one server of rate μ.
// p₀ = [Σₙ₌₀ᴺ N!/(N−n)! (λ/μ)ⁿ]⁻¹, X = μ(1 − p₀), R = N/X − 1/λ
// (Kleinrock, Queueing Systems I, §3.10; Gross & Harris, §2.8).
func machineRepairman(n int, lambda, mu float64) (x, r float64) {
	sum, term := 0.0, 1.0
	for k := 0; k <= n; k++ {
		sum += term
		term *= float64(n-k) * lambda / mu
	}
	x = mu * (1 - 1/sum)
	return x, float64(n)/x - 1/lambda
}

// checkLittle checks Little's law N = X·(R + Z) on every closed-loop
// class of a run: X is the throughput over its span [0, T] (m requests
// ended in it), R the mean time until requests ended and Z the mean think
// time of the thinks that led to a request, both over all n requests, and
// maxThink a bound on any single think time; c = max R + maxThink bounds a
// cycle. Each client's cycles (think, then request) ending by T lie
// disjoint in [0, T] and leave at most one cycle's part uncovered, so
// their sum A is in [N·(T − c), N·T]; the n − m cycles ended after T sum
// to B ∈ [0, (n − m)·c]. With X·(R + Z) = (m/T)·(A + B)/n:
// (m/n)·N·(1 − c/T) ≤ X·(R + Z) ≤ N + (n − m)·c/T. Both bounds are exact.
func checkLittle(t *testing.T, res *sim.Result, maxThink float64) {
	t.Helper()
	for _, c := range res.Classes {
		tp := c.Throughput
		if tp == nil {
			t.Fatalf("%s: no throughput in a closed-loop run", c.Name)
		}
		if tp.Clients == 0 || c.Requests == 0 {
			continue
		}
		if got := float64(tp.Requests) / tp.Seconds; got != tp.PerSecond {
			t.Errorf("%s: throughput %v/s is not its span's %d requests ÷ %v s = %v/s", c.Name, tp.PerSecond, tp.Requests, tp.Seconds, got)
		}
		r := c.EndMean()
		cyc := c.EndQuantiles(1)[0] + maxThink
		n := float64(tp.Clients)
		got := tp.PerSecond * (r + tp.MeanThink)
		m, all := float64(tp.Requests), float64(c.Requests)
		lo, hi := m/all*n*(1-cyc/tp.Seconds), n+(all-m)*cyc/tp.Seconds
		if got > hi*(1+1e-9) || got < lo*(1-1e-9) {
			t.Errorf("%s: Little's law: X·(R + Z) = %.4g·(%.4g + %.4g) = %.5g; want N = %v, within [%.5g, %.5g]",
				c.Name, tp.PerSecond, r, tp.MeanThink, got, n, lo, hi)
		}
	}
}

// TestMachineRepairman reproduces the closed M/M/1 queue: 5 clients with
// exponential think times of mean 1 s, one server (concurrency 1) with
// exponential service of mean 250 ms. Throughput and mean response time
// must match the textbook formulas within 5 standard errors (batch means,
// which stay honest for the correlated response times of a queue).
func TestMachineRepairman(t *testing.T) {
	n := 200_000
	if testing.Short() {
		n = 40_000
	}
	const clients, z, mu = 5, 1.0, 4.0
	cfg := closedConfig(n, clients, z, mu, 1)
	res := mustRun(t, cfg)
	checkLittle(t, res, 25*z) // P(one of n exponential thinks > 25 z) = n·e⁻²⁵ < 10⁻⁵
	wantX, wantR := machineRepairman(clients, 1/z, mu)
	c := res.Classes[0]
	tp := c.Throughput
	// The 95 % interval's half-width is 1.96 standard errors: 5 standard
	// errors is 5/1.96 of it.
	if tol := 5 / 1.96 * (tp.CI95[1] - tp.CI95[0]) / 2; math.Abs(tp.PerSecond-wantX) > tol {
		t.Errorf("throughput %.4f/s [%.4f, %.4f]; machine-repairman X = %.4f/s (tolerance %.4f)", tp.PerSecond, tp.CI95[0], tp.CI95[1], wantX, tol)
	}
	if !(tp.CI95[0] < wantX && wantX < tp.CI95[1]) {
		t.Logf("note: the 95 %% interval [%.4f, %.4f] misses X = %.4f (expected in 1 run of 20)", tp.CI95[0], tp.CI95[1], wantX)
	}
	r, tol := batchMeanTol(requestLatencies(t, cfg))
	if math.Abs(r-wantR) > tol {
		t.Errorf("mean response time %.4f s; machine-repairman R = %.4f s (tolerance %.4f)", r, wantR, tol)
	}
	if got := tp.MeanThink; math.Abs(got-z) > 5*z/math.Sqrt(float64(n)) {
		t.Errorf("mean think time %.4f s; want %v s", got, z)
	}
	t.Logf("X = %.4f/s (oracle %.4f), R = %.4f s (oracle %.4f)", tp.PerSecond, wantX, r, wantR)
}

// TestThroughputOneSpan: a hundred clients with heavy-tailed requests
// (lognormal σ = 1.5 s, mean e^1.125 ≈ 3.08 s) and 100 ms thinks on an
// unlimited provider: the run's last requests drain for tens of seconds
// while the clients stop one by one. The throughput and its interval are
// measured on one span, before the drain, so the estimate lies inside
// its interval; on a longer run (σ = 1) it matches the infinite-server
// closed network's X = N/(E[S] + Z) within 5 standard errors (5/1.96 of
// the interval's half-width, as in TestMachineRepairman).
func TestThroughputOneSpan(t *testing.T) {
	const clients, z = 100, 0.1
	for _, tc := range []struct {
		n     int
		sigma float64
	}{{3000, 1.5}, {30_000, 1}} {
		cfg := closedConfig(tc.n, clients, z, 1, 0)
		lat := dist.LogNormal{Mu: 0, Sigma: tc.sigma}
		cfg.Models[0].Latency = lat
		res := mustRun(t, cfg)
		checkLittle(t, res, 25*z)
		tp := res.Classes[0].Throughput
		if !(tp.CI95[0] <= tp.PerSecond && tp.PerSecond <= tp.CI95[1]) {
			t.Errorf("σ %v, %d requests: throughput %.4f/s lies outside its own interval [%.4f, %.4f]", tc.sigma, tc.n, tp.PerSecond, tp.CI95[0], tp.CI95[1])
		}
		if want, tol := clients/(lat.Mean()+z), 5/1.96*(tp.CI95[1]-tp.CI95[0])/2; tc.n >= 30_000 && math.Abs(tp.PerSecond-want) > tol {
			t.Errorf("σ %v: throughput %.4f/s [%.4f, %.4f]; N/(E[S] + Z) = %.4f/s (tolerance %.4f)", tc.sigma, tp.PerSecond, tp.CI95[0], tp.CI95[1], want, tol)
		}
	}
}

// TestClosedLoopConstant: with constant service and think times and an
// unlimited provider every client's cycle is exactly s + z, so the
// throughput is N/(s + z) and no draw is involved.
func TestClosedLoopConstant(t *testing.T) {
	cfg := closedConfig(10_000, 4, 0, 1, 0)
	cfg.Models[0].Latency = dist.Constant{Value: 0.2}
	cfg.Classes[0].ThinkTime = dist.Constant{Value: 0.3}
	res := mustRun(t, cfg)
	checkLittle(t, res, 0.3)
	if got, want := res.Classes[0].Throughput.PerSecond, 4/0.5; math.Abs(got-want) > 1e-9*want {
		t.Errorf("throughput %v/s; want N/(s + z) = %v/s", got, want)
	}
	if got := res.Overall.Throughput.PerSecond; got != res.Classes[0].Throughput.PerSecond {
		t.Errorf("overall throughput %v differs from the only class's %v", got, res.Classes[0].Throughput.PerSecond)
	}
}

// TestClosedLoopMixed: a closed-loop class beside an open one. The open
// class keeps its Poisson arrivals, the closed one its cycle, and every
// request is simulated once.
func TestClosedLoopMixed(t *testing.T) {
	cfg := closedConfig(20_000, 3, 0, 1, 0)
	cfg.Models[0].Latency = dist.Constant{Value: 0.1}
	cfg.Arrivals = sim.Arrivals{Process: sim.Poisson, Rate: 20}
	cfg.Classes = append(cfg.Classes, sim.Class{Name: "open", Share: 1,
		InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}})
	res := mustRun(t, cfg)
	checkLittle(t, res, 0)
	if got := res.Overall.Requests; got != int64(cfg.Requests) {
		t.Errorf("%d requests; want %d", got, cfg.Requests)
	}
	closed, open := res.Classes[0].Throughput.PerSecond, res.Classes[1].Throughput.PerSecond
	// No think time and 100 ms per request: 3 clients send 30 requests/s;
	// when the requests run out, fewer than 3 may send the last round, a
	// relative shortfall below N/n.
	if tol := 30 * 3 / float64(res.Classes[0].Requests); math.Abs(closed-30) > tol {
		t.Errorf("closed-loop throughput %v/s; want 30/s (tolerance %.2g)", closed, tol)
	}
	// The open class arrives at 20/s: about 8 000 requests.
	if tol := 5 * math.Sqrt(float64(res.Classes[1].Requests)); math.Abs(float64(res.Classes[1].Requests)-8000) > tol {
		t.Errorf("open class: %d requests; want about 8000 (tolerance %.0f)", res.Classes[1].Requests, tol)
	}
	if math.Abs(open-20) > 5*20/math.Sqrt(float64(res.Classes[1].Requests)) {
		t.Errorf("open throughput %v/s; want about 20/s", open)
	}
}

// TestClosedLoopDeterministic: same seed, same result.
func TestClosedLoopDeterministic(t *testing.T) {
	cfg := closedConfig(5_000, 7, 0.5, 3, 2)
	a, b := mustRun(t, cfg), mustRun(t, cfg)
	if a.Overall.Throughput.PerSecond != b.Overall.Throughput.PerSecond || a.Overall.Latencies()[2500] != b.Overall.Latencies()[2500] {
		t.Error("two runs of one closed-loop config differ")
	}
}

// TestMoreClientsThanRequestsWarns: 10 clients over 5 requests cannot all
// send once; the class says so. As many clients as requests do not warn.
func TestMoreClientsThanRequestsWarns(t *testing.T) {
	for _, tt := range []struct {
		clients int
		warn    bool
	}{{10, true}, {5, false}} {
		cfg := &sim.Config{
			Name: "idle", Seed: 1, Requests: 5,
			Models: []sim.Model{{Name: "m", Latency: dist.Constant{Value: 1}}},
			Classes: []sim.Class{{Name: "w", Clients: tt.clients, ThinkTime: dist.Constant{Value: 1},
				InputTokens: dist.Constant{Value: 1}, OutputTokens: dist.Constant{Value: 1}}},
		}
		c := report(t, cfg).Classes[0]
		if got := hasWarning(&c, "the run ended before every client had sent once"); got != tt.warn {
			t.Errorf("%d clients, 5 requests: warned %v, want %v (%q)", tt.clients, got, tt.warn, c.Warnings)
		}
	}
}
