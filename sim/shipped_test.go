package sim_test

import (
	"math"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// TestShippedScenariosBalance runs every shipped scenario, hedged and
// without hedging, on 20 000 requests (or its trace's length, if shorter):
// each run audits its own accounting (this package's tests turn the audit
// on), and checkAttempts checks the result's counts.
func TestShippedScenariosBalance(t *testing.T) {
	t.Parallel()
	for _, name := range scenarios.Names() {
		t.Run(name, func(t *testing.T) {
			s, err := scenario.LoadFS(scenarios.FS, name)
			if err != nil {
				t.Fatal(err)
			}
			cfg := s.Config
			cfg.Requests = min(cfg.Requests, 20_000)
			for _, c := range []*sim.Config{&cfg, sim.WithoutHedging(&cfg)} {
				res := mustRun(t, c)
				checkAttempts(t, res)
				if res.Overall.Throughput != nil {
					checkLittle(t, res, maxThink(t, c))
				}
			}
		})
	}
}

// maxThink bounds the think times of cfg's closed-loop classes: the
// largest value a draw can take, or, for an unbounded distribution, its
// 1 − 10⁻⁹ quantile.
func maxThink(t *testing.T, cfg *sim.Config) float64 {
	m := 0.0
	for _, c := range cfg.Classes {
		if c.ThinkTime == nil {
			continue
		}
		q, ok := c.ThinkTime.(interface{ Quantile(float64) float64 })
		if !ok {
			t.Fatalf("class %s: think time %T has no Quantile", c.Name, c.ThinkTime)
		}
		m = max(m, q.Quantile(1-1e-9))
	}
	return m
}

// TestOverloadedPoolSpillsOver: in the shipped overloaded-pool scenario,
// every request the pool rejects goes to the hosted API at once and is
// answered there; without the fallback exactly those requests end with an
// error (the pool's behaviour does not depend on the policy, which only
// reacts to its 503s).
func TestOverloadedPoolSpillsOver(t *testing.T) {
	s, err := scenario.LoadFS(scenarios.FS, "overloaded-pool.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.Config
	cfg.Requests = 50_000
	res, base := mustRun(t, &cfg), mustRun(t, sim.WithoutHedging(&cfg))
	checkAttempts(t, res)
	pool, hosted := provider(t, res, "gpu-pool"), provider(t, res, "hosted")
	if pool.Rejected == 0 {
		t.Fatal("the pool rejected nothing: the scenario does not overload it")
	}
	c, b := res.Classes[0], base.Classes[0]
	if hosted.Sent != pool.Rejected || c.Hedged != pool.Rejected || c.Answered != c.Requests {
		t.Errorf("pool rejected %d, hosted got %d, hedged %d, answered %d of %d; want every rejection spilled over and answered",
			pool.Rejected, hosted.Sent, c.Hedged, c.Answered, c.Requests)
	}
	if b.Rejected != pool.Rejected || b.Errors != pool.Rejected || b.Answered != b.Requests-pool.Rejected {
		t.Errorf("without the fallback: %d rejected, %d errors, %d answered; want the pool's %d rejections as errors",
			b.Rejected, b.Errors, b.Answered, pool.Rejected)
	}
}

// TestScaleToZeroScenario checks what docs/pools.md ("Scale to zero or
// hedge?") says of scale-to-zero.toml at its own 20 000 requests (seed 1):
// under scale to zero a cold start of 30–120 s outlives the 60 s timeout
// for most cold requests, so fewer than 70 % are answered (a replica
// stays up about 90 s after a request — the stable window, the grace —
// and the gaps between a class's requests are exponential of mean 200 s,
// so about exp(−90/200) ≈ 64 % find the pool at zero, and a start leaves
// time for the answer with probability about 0.31: 36 % + 64 % × 0.31 ≈
// 56 %); a longer grace or a replica kept up
// answers at least 99.5 %, and so does the hedge to the hosted API. In
// dollars per 1000 requests (the pool's replica cost and the tokens), the
// hedge costs less than scale to zero, which costs less than a replica
// kept up — and keeping it warm 15 minutes at this traffic costs nearly
// as much as keeping it up: within 5 %.
func TestScaleToZeroScenario(t *testing.T) {
	s, err := scenario.LoadFS(scenarios.FS, "scale-to-zero.toml")
	if err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, &s.Config)
	dollars := map[string]float64{}
	answered := map[string]float64{}
	for _, c := range res.Classes {
		p := res.Pools[0]
		for _, q := range res.Pools {
			if q.Provider == c.Name {
				p = q
			}
		}
		if p.Provider != c.Name || p.Autoscale == nil {
			t.Fatalf("class %s: no autoscaled pool of its name", c.Name)
		}
		answered[c.Name] = float64(c.Answered) / float64(c.Requests)
		dollars[c.Name] = (p.Autoscale.CostUSD + c.CostCompletedUSD + c.CostCancelledUSD) / float64(c.Requests) * 1000
	}
	if answered["scale-to-zero"] >= 0.7 {
		t.Errorf("scale to zero answered %.1f%%, want < 70%%", 100*answered["scale-to-zero"])
	}
	for _, name := range []string{"keep-warm", "one-warm", "hedged"} {
		if answered[name] < 0.995 {
			t.Errorf("%s answered %.1f%%, want ≥ 99.5%%", name, 100*answered[name])
		}
	}
	if !(dollars["hedged"] < dollars["scale-to-zero"] && dollars["scale-to-zero"] < dollars["one-warm"]) ||
		math.Abs(dollars["keep-warm"]/dollars["one-warm"]-1) > 0.05 {
		t.Errorf("dollars per 1000 requests %v: want hedged < scale-to-zero < one-warm, keep-warm within 5%% of one-warm", dollars)
	}
	t.Logf("answered %v; dollars per 1000 requests %v", answered, dollars)
}
