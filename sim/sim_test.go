package sim_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
	"gonum.org/v1/gonum/stat"
)

// endQuantile is the p-quantile (nearest rank) of the time until requests
// ended, answered or not: for tests of when a failure ends a request.
func endQuantile(c *sim.ClassResult, p float64) float64 {
	var end []float64
	for _, x := range c.Latencies() {
		if !math.IsInf(x, 1) {
			end = append(end, x)
		}
	}
	end = append(end, c.MissEnds()...)
	slices.Sort(end)
	return stat.Quantile(p, stat.Empirical, end, nil)
}

// oneModel returns a config with a single class whose requests all go to one
// model with the given latency distribution, no deadline, no token costs.
func oneModel(n int, lat dist.Continuous, copies int, delays ...time.Duration) *sim.Config {
	return &sim.Config{
		Name: "test", Seed: 7, Requests: n,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 50},
		Models:   []sim.Model{{Name: "m", Provider: "p", Latency: lat, PriceInputPerMTok: 1, PriceOutputPerMTok: 2}},
		Classes: []sim.Class{{
			Name: "c", Share: 1,
			InputTokens:  dist.Constant{Value: 100},
			OutputTokens: dist.Constant{Value: 50},
			Policy:       sim.Policy{Copies: copies, Delays: delays, CancelBilling: sim.BillInput},
		}},
	}
}

func mustRun(t testing.TB, cfg *sim.Config) *sim.Result {
	t.Helper()
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// shippedConfigs returns every shipped scenario's configuration with at
// most 20 000 requests (5 000 under -short, and 1 000 for a scenario whose
// pools autoscale: its scalers tick every 2 s over the simulated time,
// which at scale-to-zero's 0.022 requests/s costs more than all the other
// scenarios together; at 1 000 requests its scale-to-zero and hedged
// pools still start a replica over a hundred times each).
func shippedConfigs(t testing.TB) []*sim.Config {
	most := 20_000
	if testing.Short() {
		most = 5_000
	}
	var out []*sim.Config
	for _, s := range shippedCapped(t, most) {
		out = append(out, s.cfg)
	}
	return out
}

// shipped is a shipped scenario's configuration and its file's name.
type shipped struct {
	name string
	cfg  *sim.Config
}

// shippedCapped returns every shipped scenario, in the order of
// scenarios.Names, with at most most requests, and under -short at most
// 1 000 for a scenario whose pools autoscale (see shippedConfigs).
func shippedCapped(t testing.TB, most int) []shipped {
	var out []shipped
	for _, name := range scenarios.Names() {
		s, err := scenario.LoadFS(scenarios.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		cfg := s.Config
		cfg.Requests = min(cfg.Requests, most)
		if testing.Short() && autoscales(&cfg) {
			cfg.Requests = min(cfg.Requests, 1_000)
		}
		out = append(out, shipped{name, &cfg})
	}
	return out
}

// autoscales reports whether a pool of cfg autoscales.
func autoscales(cfg *sim.Config) bool {
	for _, p := range cfg.Providers {
		if p.Pool != nil && p.Pool.Autoscale != nil {
			return true
		}
	}
	return false
}

// tieGrid returns a random latency distribution on a 50 ms grid, from
// rng: constants at 0–100 ms and 50–300 ms and a short uniform, mixed
// evenly, so that responses, timers and deadlines often tie.
func tieGrid(t testing.TB, rng *rand.Rand) dist.Continuous {
	m, err := dist.NewMixture([]float64{1, 1, 1}, []dist.Continuous{
		dist.Constant{Value: 0.05 * float64(rng.IntN(3))}, dist.Constant{Value: 0.05 * float64(1+rng.IntN(6))},
		dist.Uniform{Min: 0.1, Max: 0.1 + 0.3*rng.Float64()},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// survivalAt returns the share of latencies > t.
func survivalAt(lat []float64, t float64) float64 {
	n := 0
	for _, x := range lat {
		if x > t {
			n++
		}
	}
	return float64(n) / float64(len(lat))
}

// binomialTol is the tolerance for an estimated probability p from n
// independent requests: 5 standard errors, so a correct simulator fails a
// single check with probability below 1e-6.
func binomialTol(p float64, n int) float64 {
	return 5*math.Sqrt(p*(1-p)/float64(n)) + 1e-9
}

func bimodal(t testing.TB) dist.Continuous {
	m, err := dist.NewMixture([]float64{0.5, 0.5}, []dist.Continuous{
		dist.Uniform{Min: 0.1, Max: 0.3}, dist.Uniform{Min: 3, Max: 19},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestOrderStatisticOracle checks P(T > t) = ∏ S(t − sᵢ) over the copies
// sent at offsets sᵢ (independent attempts, no queueing), and that the
// share of requests that hedge is S(d) — order statistics of independent copies.
//
// binomialTol sets each tolerance from n: under -short n is 50 000 instead
// of 200 000, at the same five standard errors.
func TestOrderStatisticOracle(t *testing.T) {
	t.Parallel()
	n := 200_000
	if testing.Short() {
		n = 50_000
	}
	cases := []struct {
		name    string
		lat     dist.Continuous
		delays  []time.Duration
		copies  int
		offsets []float64
	}{
		{"lognormal one copy at 1s", dist.LogNormal{Mu: 0, Sigma: 1}, []time.Duration{time.Second}, 1, []float64{0, 1}},
		{"lognormal copies at 0.5s and 1.5s", dist.LogNormal{Mu: 0, Sigma: 1}, []time.Duration{500 * time.Millisecond, time.Second}, 2, []float64{0, 0.5, 1.5}},
		{"bimodal copies at 1s, 2s", bimodal(t), []time.Duration{time.Second}, 2, []float64{0, 1, 2}},
		{"lognormal all at once", dist.LogNormal{Mu: 0, Sigma: 1}, []time.Duration{0}, 2, []float64{0, 0, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := mustRun(t, oneModel(n, tc.lat, tc.copies, tc.delays...))
			c := res.Classes[0]
			surv := func(t float64) float64 {
				p := 1.0
				for _, s := range tc.offsets {
					if t > s {
						p *= tc.lat.Survival(t - s)
					}
				}
				return p
			}
			for _, x := range []float64{0.2, 0.5, 0.9, 1.2, 2, 2.5, 3, 5, 8, 12} {
				want := surv(x)
				got := survivalAt(c.Latencies(), x)
				if math.Abs(got-want) > binomialTol(want, n) {
					t.Errorf("P(T > %v) = %.5f, want %.5f ± %.5f", x, got, want, binomialTol(want, n))
				}
			}
			// A copy is sent iff no attempt answered before the first offset > 0.
			wantHedge := 1.0
			if s1 := tc.offsets[1]; s1 > 0 {
				wantHedge = tc.lat.Survival(s1)
			}
			gotHedge := float64(c.Hedged) / float64(c.Requests)
			if math.Abs(gotHedge-wantHedge) > binomialTol(wantHedge, n) {
				t.Errorf("hedged share %.5f, want S(d) = %.5f", gotHedge, wantHedge)
			}
		})
	}
}

// TestFieldReport1 reproduces field report 1 (README, Background) in code: bimodal
// latency, 3 s budget, copies at 1 s and 2 s: answered w.p. 1 − 0.5³, 1.75
// calls per request; a single call answers w.p. 0.5.
func TestFieldReport1(t *testing.T) {
	const n = 100_000
	cfg := oneModel(n, bimodal(t), 2, time.Second)
	cfg.Classes[0].Deadline = 3 * time.Second
	res := mustRun(t, cfg)
	base := mustRun(t, sim.WithoutHedging(cfg))

	c, b := res.Classes[0], base.Classes[0]
	answered := float64(c.Answered) / n
	if math.Abs(answered-0.875) > binomialTol(0.875, n) {
		t.Errorf("answered within 3 s: %.4f, want 0.875", answered)
	}
	if got := float64(b.Answered) / n; math.Abs(got-0.5) > binomialTol(0.5, n) {
		t.Errorf("one call answered within 3 s: %.4f, want 0.5", got)
	}
	// Attempts per request take 1, 2, 3 w.p. 1/2, 1/4, 1/4: variance 0.6875.
	app := float64(c.Attempts.Sent) / n
	if tol := 5 * math.Sqrt(0.6875/n); math.Abs(app-1.75) > tol {
		t.Errorf("attempts per request %.4f, want 1.75 ± %.4f", app, tol)
	}
	if c.TimeoutsOpen != int64(n)-c.Answered || c.Errors != 0 {
		t.Errorf("timeouts %d, errors %d; want every unanswered request to fail open", c.TimeoutsOpen, c.Errors)
	}
	// Timed-out requests end at their deadline: nothing ends after 3 s;
	// they are misses in the time to a usable answer.
	if max := endQuantile(&c, 1); max != 3 {
		t.Errorf("largest end latency %v, want the deadline 3", max)
	}
	lat := c.Latencies()
	if n := len(c.MissEnds()); int64(n) != c.TimeoutsOpen || !math.IsInf(lat[len(lat)-1], 1) || !math.IsInf(c.Quantile(0.95), 1) {
		t.Errorf("%d misses for %d timeouts, slowest %v, p95 %v: want timeouts as misses (+Inf)", n, c.TimeoutsOpen, lat[len(lat)-1], c.Quantile(0.95))
	}
}

// TestSameSeedSameReport: a run is a function of its config and seed.
func TestSameSeedSameReport(t *testing.T) {
	cfg := oneModel(20_000, bimodal(t), 2, time.Second)
	cfg.Classes[0].Deadline = 3 * time.Second
	var out [2]bytes.Buffer
	for i := range out {
		rep := sim.NewReport(cfg, mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg)))
		if err := rep.WriteJSON(&out[i]); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
		t.Error("two runs with the same seed wrote different JSON")
	}
	cfg.Seed++
	var other bytes.Buffer
	sim.NewReport(cfg, mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg))).WriteJSON(&other)
	if bytes.Equal(out[0].Bytes(), other.Bytes()) {
		t.Error("a different seed wrote the same JSON")
	}
}

// TestCommonRandomNumbers: two policies on the same seed see the same
// arrivals and the same primary latencies.
func TestCommonRandomNumbers(t *testing.T) {
	const n = 5000
	type prim struct{ start, dur time.Duration }
	collect := func(cfg *sim.Config) map[int64]prim {
		m := map[int64]prim{}
		_, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) {
			if r.Attempt == 0 && r.Outcome == "completed" {
				m[r.Request] = prim{r.Start, r.End - r.Start}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a := collect(oneModel(n, dist.LogNormal{Sigma: 1}, 0))
	b := collect(oneModel(n, dist.LogNormal{Sigma: 1}, 2, 300*time.Millisecond))
	if len(a) != n {
		t.Fatalf("no-hedging run completed %d primaries, want %d", len(a), n)
	}
	if len(b) < n/2 {
		t.Fatalf("hedged run completed only %d primaries", len(b))
	}
	for id, pb := range b {
		if pa := a[id]; pa != pb {
			t.Fatalf("request %d: primary (start, latency) %v without hedging, %v with", id, pa, pb)
		}
	}
}
