package sim_test

import (
	"math"
	"testing"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// prefillConfig is one streamed model whose time to first token is an
// exponential base (mean 0.2 s) plus the input tokens ÷ a lognormal prefill
// speed (median 2000 tokens/s, σ 0.3), and two unhedged classes judged on
// the first token: short prompts (200 tokens) and long ones (8000).
func prefillConfig(n int) *sim.Config {
	return &sim.Config{
		Name: "prefill", Seed: 11, Requests: n,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 50},
		Models: []sim.Model{{Name: "m", Provider: "p",
			TTFT: dist.Exponential{Rate: 5}, TokensPerSecond: dist.Constant{Value: 100},
			PrefillTokensPerSecond: dist.LogNormal{Mu: math.Log(2000), Sigma: 0.3}}},
		Classes: []sim.Class{
			{Name: "short", Share: 0.5, InputTokens: dist.Constant{Value: 200}, OutputTokens: dist.Constant{Value: 50},
				Policy: sim.Policy{Winner: sim.FirstToken}},
			{Name: "long", Share: 0.5, InputTokens: dist.Constant{Value: 8000}, OutputTokens: dist.Constant{Value: 50},
				Policy: sim.Policy{Winner: sim.FirstToken}},
		},
	}
}

// TestPrefillMeanTTFT: the mean time to first token of a class whose
// prompts have I input tokens is E[base] + I·E[1/S] for a prefill speed S;
// for S lognormal(μ, σ), E[1/S] = exp(−μ + σ²/2) and
// Var[1/S] = E[1/S]²·(e^{σ²} − 1). Each class's sample mean is checked
// against that within 4 standard errors, √((Var[base] + I²·Var[1/S]) / n)
// with n the class's requests (a false alarm about once in 16 000 runs of a
// fixed seed that has passed, so a failure means a wrong formula, not
// noise); times are rounded to the nanosecond, far below the tolerance.
// Without the prefill term both classes would have mean 0.2 s and the long
// class would miss its oracle by about 4 s. The same holds under a Gaussian
// copula, which draws the prefill speed at score −z but keeps every
// marginal; there the standard error comes from the sample variance, since
// the coupling adds a covariance term to the formula's.
func TestPrefillMeanTTFT(t *testing.T) {
	const n = 200_000
	const mu, sigma = 7.600902459542082, 0.3 // ln 2000
	inv := math.Exp(-mu + sigma*sigma/2)
	varInv := inv * inv * (math.Exp(sigma*sigma) - 1)
	const meanBase, varBase = 0.2, 0.04
	for _, corr := range []sim.Correlation{{}, {SameModel: 0.6}} {
		cfg := prefillConfig(n)
		cfg.Correlation = corr
		res := mustRun(t, cfg)
		for i, in := range []float64{200, 8000} {
			c := res.Classes[i]
			want := meanBase + in*inv
			got := c.Mean()
			m := float64(c.NumLatencies())
			se := math.Sqrt((varBase + in*in*varInv) / m)
			if corr != (sim.Correlation{}) {
				// The copula couples base and prefill time (a slow base
				// with a slow prefill), adding 2·I·Cov(base, 1/S) to the
				// variance: take it from the sample instead.
				var sum, sum2 float64
				for _, x := range c.Latencies() {
					sum += x
					sum2 += x * x
				}
				se = math.Sqrt((sum2/m - (sum/m)*(sum/m)) / m)
			}
			t.Logf("correlation %+v, %s: mean TTFT %.5f s, oracle %.5f ± %.5f (4 SE)", corr, c.Name, got, want, 4*se)
			if math.Abs(got-want) > 4*se {
				t.Errorf("correlation %+v, %s (%g input tokens): mean TTFT %.5f s over %d requests; want %.5f ± %.5f (4 SE)",
					corr, c.Name, in, got, c.NumLatencies(), want, 4*se)
			}
		}
		if s, l := res.Classes[0].Quantile(0.5), res.Classes[1].Quantile(0.5); !(l > s+3) {
			t.Errorf("correlation %+v: median TTFT of long prompts %.3f s, of short ones %.3f s; want the long ones about 3.9 s slower", corr, l, s)
		}
	}
}

// TestPrefillConstantSpeedIsExact: with constant base TTFT and prefill
// speed, every attempt's time to first token is exactly base + input ÷
// speed — the slowest to the nanosecond, every one as stored (float32) —
// on the lane, one request at a time and in the event loop alike.
func TestPrefillConstantSpeedIsExact(t *testing.T) {
	cfg := prefillConfig(2000)
	cfg.Models[0].TTFT = dist.Constant{Value: 0.25}
	cfg.Models[0].PrefillTokensPerSecond = dist.Constant{Value: 4000}
	for name, res := range map[string]*sim.Result{"run": mustRun(t, cfg), "direct": sim.RunDirect(cfg), "loop": sim.RunEventLoop(cfg)} {
		for i, want := range []float64{0.25 + 200.0/4000, 0.25 + 8000.0/4000} {
			c := res.Classes[i]
			lat := c.Latencies()
			if len(lat) == 0 || lat[0] != want || lat[len(lat)-1] != want || c.MaxAnswered() != want {
				t.Errorf("%s, %s: TTFT from %v to %v (slowest %v exactly); want exactly %v", name, c.Name, lat[0], lat[len(lat)-1], c.MaxAnswered(), want)
			}
		}
	}
}

// TestPrefillValidate: a prefill speed needs the streamed form and must be
// > 0 with probability 1.
func TestPrefillValidate(t *testing.T) {
	cfg := prefillConfig(10)
	cfg.Models[0].PrefillTokensPerSecond = dist.Uniform{Min: -1, Max: 5}
	if err := cfg.Validate(); err == nil {
		t.Error("a prefill speed that can be ≤ 0 passed validation")
	}
	cfg = prefillConfig(10)
	m := &cfg.Models[0]
	m.Latency, m.TTFT, m.TokensPerSecond = dist.Constant{Value: 1}, nil, nil
	if err := cfg.Validate(); err == nil {
		t.Error("a prefill speed on a whole-call latency passed validation")
	}
}

// TestLongPromptsShipped checks the shipped long-prompts scenario against
// closed forms. Without hedging, a class's mean TTFT is E[base] +
// E[input]·E[1/S]: base lognormal with median 0.4 s and p95 2 s (σ =
// ln 5 / 1.645, mean 0.4·e^{σ²/2}), S uniform on [4000, 8000] tokens/s
// (E[1/S] = ln 2 / 4000, E[1/S²] = 1/(4000·8000)), input uniform on the
// class's range; each checked within 4 standard errors of its class's
// sample. Errors (1 %, surfacing when the call would have completed) are
// independent of the draw and leave the mean of the answered requests
// unchanged. With the 800 ms delay, every document request hedges: its
// prompt of ≥ 8000 tokens takes ≥ 1 s to prefill at ≤ 8000 tokens/s.
func TestLongPromptsShipped(t *testing.T) {
	s, err := scenario.LoadFS(scenarios.FS, "long-prompts.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.Config
	res, base := mustRun(t, &cfg), mustRun(t, sim.WithoutHedging(&cfg))
	checkAttempts(t, res)
	sigma := math.Log(5) / 1.6448536269514722
	meanBase := 0.4 * math.Exp(sigma*sigma/2)
	varBase := meanBase * meanBase * (math.Exp(sigma*sigma) - 1)
	inv, inv2 := math.Ln2/4000, 1/(4000.0*8000)
	for i, r := range [][2]float64{{200, 2000}, {8000, 32000}, {8000, 32000}} {
		c := base.Classes[i]
		lo, hi := r[0], r[1]
		ei, ei2 := (lo+hi)/2, (lo*lo+lo*hi+hi*hi)/3
		want := meanBase + ei*inv
		v := varBase + ei2*inv2 - ei*ei*inv*inv
		se := math.Sqrt(v / float64(c.NumLatencies()))
		t.Logf("%s without hedging: mean TTFT %.4f s, oracle %.4f ± %.4f (4 SE)", c.Name, c.Mean(), want, 4*se)
		if got := c.Mean(); math.Abs(got-want) > 4*se {
			t.Errorf("%s without hedging: mean TTFT %.4f s; want %.4f ± %.4f (4 SE)", c.Name, got, want, 4*se)
		}
	}
	if d := res.Classes[1]; d.Name != "docs-800ms" || d.Hedged != d.Requests {
		t.Errorf("%s: %d of %d requests hedged; want every one (prefill ≥ 1 s > 800 ms)", d.Name, d.Hedged, d.Requests)
	}
}
