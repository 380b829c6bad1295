package sim_test

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// streamedModel is a model in TTFT form.
func streamedModel(name string, ttft dist.Continuous, tokensPerS float64) sim.Model {
	return sim.Model{Name: name, TTFT: ttft, TokensPerSecond: dist.Constant{Value: tokensPerS},
		PriceInputPerMTok: 1, PriceOutputPerMTok: 2}
}

// quantileBand returns the interval the nearest-rank p-quantile of n
// draws from the quantile function q lies in with overwhelming
// probability: [q(p − δ), q(p + δ)] with δ = 5·√(p(1−p)/n), five standard
// deviations of the binomial share of draws below the true quantile
// (normal approximation; a miss has probability < 10⁻⁶).
func quantileBand(q func(float64) float64, p float64, n int) (lo, hi float64) {
	d := 5 * math.Sqrt(p*(1-p)/float64(n))
	return q(p - d), q(p + d)
}

// TestStallTTFTTimeoutCutsP99: 5 % of the primary's streams stall 60 s
// before their first token (TTFT otherwise U(0.2, 1) s); a 5 s TTFT
// timeout (the attempt timeout under the first_token winner) sends a
// fallback copy to a model with TTFT U(0.3, 1.5) s. Without the timeout
// (the no-hedging baseline), P(TTFT ≤ t) = 0.95 + 0.05·F(t − 60) for
// t ≥ 1, so p99 = 60 + F⁻¹(0.8) = 60.84 s. With it, P(TTFT ≤ t) = 0.95 +
// 0.05·G(t − 5) for t ≥ 5, so p99 = 5 + G⁻¹(0.8) = 6.26 s. The bands
// around both come from the sample size (quantileBand).
func TestStallTTFTTimeoutCutsP99(t *testing.T) {
	const n = 200_000
	primary := streamedModel("primary", dist.Uniform{Min: 0.2, Max: 1}, 50)
	primary.Stalls = sim.Stalls{Rate: 0.05, Duration: dist.Constant{Value: 60}, At: sim.BeforeFirstToken}
	cfg := &sim.Config{
		Name: "stall-ttft", Seed: 3, Requests: n,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 20},
		Models:   []sim.Model{primary, streamedModel("fallback", dist.Uniform{Min: 0.3, Max: 1.5}, 50)},
		Classes: []sim.Class{{
			Name: "chat", Share: 1, Deadline: 120 * time.Second,
			InputTokens: dist.Constant{Value: 500}, OutputTokens: dist.Constant{Value: 200},
			Policy: sim.Policy{Primary: 0, Targets: []int{1}, Copies: 1, Delays: []time.Duration{-1},
				Winner: sim.FirstToken, AttemptTimeout: 5 * time.Second, OnAttemptTimeout: sim.NonFatal},
		}},
	}
	rep := report(t, cfg)
	c := rep.Classes[0]
	const q = 0.05
	without := func(p float64) float64 { return 60 + 0.2 + 0.8*(p-(1-q))/q }
	with := func(p float64) float64 { return 5 + 0.3 + 1.2*(p-(1-q))/q }
	if lo, hi := quantileBand(without, 0.99, n); !(c.NoHedging.Latency.P99 >= lo && c.NoHedging.Latency.P99 <= hi) {
		t.Errorf("p99 TTFT without the timeout %.4g s, want 60.84 s, in [%.4g, %.4g]", c.NoHedging.Latency.P99, lo, hi)
	}
	if lo, hi := quantileBand(with, 0.99, n); !(c.Latency.P99 >= lo && c.Latency.P99 <= hi) {
		t.Errorf("p99 TTFT with a 5 s TTFT timeout %.4g s, want 6.26 s, in [%.4g, %.4g]", c.Latency.P99, lo, hi)
	}
	// Exactly the stalled primaries time out and send the fallback: a
	// share q of requests, within 5 binomial standard deviations.
	sd := math.Sqrt(q * (1 - q) / n)
	if got := c.HedgedShare; math.Abs(got-q) > 5*sd {
		t.Errorf("hedged share %.5f, want %.2f ± %.5f", got, q, 5*sd)
	}
	if a := c.Attempts; a.TimedOut != int64(c.HedgedShare*n+0.5) || a.Stalled != 0 || c.Answered != n {
		t.Errorf("attempts %+v, answered %d: want every stalled primary timed out, no stream cut, all answered", a, c.Answered)
	}
}

// stallTrace runs cfg and returns its attempts by request and index.
func stallTrace(t *testing.T, cfg *sim.Config) (*sim.Result, map[[2]int64]sim.AttemptRecord) {
	t.Helper()
	recs := map[[2]int64]sim.AttemptRecord{}
	res, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) { recs[[2]int64{r.Request, int64(r.Attempt)}] = *r })
	if err != nil {
		t.Fatal(err)
	}
	return res, recs
}

// constantStream is a class of 100-token answers from a model with a 1 s
// TTFT at 50 tokens/s (a 2 s decode, a token every 20 ms), whose every
// stream stalls once mid-stream for stall seconds, with a fallback copy to
// a model answering in 0.1 s + 100/1000 s.
func constantStream(stall float64, cuts sim.StreamCuts, winner sim.WinnerRule) *sim.Config {
	m := streamedModel("a", dist.Constant{Value: 1}, 50)
	m.Stalls = sim.Stalls{Rate: 1, Duration: dist.Constant{Value: stall}}
	return &sim.Config{
		Name: "stall-gap", Seed: 7, Requests: 2000,
		Arrivals: sim.Arrivals{Process: sim.Constant, Rate: 10},
		Models:   []sim.Model{m, streamedModel("b", dist.Constant{Value: 0.1}, 1000)},
		Classes: []sim.Class{{
			Name: "c", Share: 1, InputTokens: dist.Constant{Value: 10}, OutputTokens: dist.Constant{Value: 100},
			Policy: sim.Policy{Primary: 0, Targets: []int{1}, Copies: 1, Delays: []time.Duration{-1},
				Winner: winner, StreamCuts: cuts},
		}},
	}
}

// TestInterTokenTimeoutCutsAtLastTokenPlusGap: with constant times, a
// stream that stalls 10 s after its j-th token (j uniform in 0…99) under a
// 3 s inter-token timeout is cut exactly at its last token + 3 s, that is
// at send + 1 s + j·20 ms + 3 s, and billed its input and the j tokens it
// streamed; the fallback copy goes at once and answers 0.2 s later. The
// j are uniform: their mean is 49.5 within 5 standard errors (sd of a
// discrete uniform on 100 values: √((100²−1)/12)). A stall of 2 s, under
// the gap, is not cut: the stream ends at 1 + 2 + 2 = 5 s.
func TestInterTokenTimeoutCutsAtLastTokenPlusGap(t *testing.T) {
	cfg := constantStream(10, sim.StreamCuts{InterTokenTimeout: 3 * time.Second, OnStall: sim.NonFatal}, sim.FirstValid)
	res, recs := stallTrace(t, cfg)
	var sum float64
	for i := range int64(cfg.Requests) {
		a, b := recs[[2]int64{i, 0}], recs[[2]int64{i, 1}]
		j := a.BilledOutput
		if a.Outcome != "stalled" || j != math.Floor(j) || j < 0 || j > 99 {
			t.Fatalf("request %d: primary %+v: want stalled after a whole number of tokens in [0, 99]", i, a)
		}
		if want := a.Start + time.Second + time.Duration(j)*20*time.Millisecond + 3*time.Second; a.End != want {
			t.Fatalf("request %d: cut at %v, want last token + 3 s = %v (j = %v)", i, a.End, want, j)
		}
		if a.BilledInput != 10 || b.Start != a.End || b.End != a.End+200*time.Millisecond || !b.Won {
			t.Fatalf("request %d: primary %+v, fallback %+v", i, a, b)
		}
		sum += j
	}
	n := float64(cfg.Requests)
	if se := math.Sqrt((100*100-1)/12.0) / math.Sqrt(n); math.Abs(sum/n-49.5) > 5*se {
		t.Errorf("mean stall position %.2f tokens, want 49.5 ± %.2f", sum/n, 5*se)
	}
	if c := res.Classes[0]; c.Attempts.Stalled != int64(n) || c.Answered != int64(n) || c.Stalled != 0 {
		t.Errorf("attempts %+v, answered %d, stalled requests %d", c.Attempts, c.Answered, c.Stalled)
	}

	// Under first_response a cut is no response: on_stall sends the
	// fallback, which answers.
	cfg = constantStream(10, sim.StreamCuts{InterTokenTimeout: 3 * time.Second, OnStall: sim.NonFatal}, sim.FirstResponse)
	if c := mustRun(t, cfg).Classes[0]; c.Answered != c.Requests || c.Attempts.Stalled != c.Requests || c.Hedged != c.Requests {
		t.Errorf("first_response: answered %d, stalled %d, hedged %d of %d: want every cut primary replaced by its fallback", c.Answered, c.Attempts.Stalled, c.Hedged, c.Requests)
	}

	cfg = constantStream(2, sim.StreamCuts{InterTokenTimeout: 3 * time.Second}, sim.FirstValid)
	res, recs = stallTrace(t, cfg)
	for i := range int64(cfg.Requests) {
		if a := recs[[2]int64{i, 0}]; a.Outcome != "completed" || a.End != a.Start+5*time.Second || a.BilledOutput != 100 {
			t.Fatalf("request %d: a 2 s stall under a 3 s gap: %+v, want completed at 5 s", i, a)
		}
	}
	if c := res.Classes[0]; c.Attempts.Stalled != 0 || c.Hedged != 0 {
		t.Errorf("attempts %+v, hedged %d: want no cut and no copy", c.Attempts, c.Hedged)
	}
}

// TestFirstTokenWinnerCutEndsStalled: under first_token the request is
// decided at the winner's first token (1 s); when that stream is then cut
// for a stall the request counts as a stalled error — a miss, its answer
// truncated — while the winner leaves at its cut.
func TestFirstTokenWinnerCutEndsStalled(t *testing.T) {
	cfg := constantStream(10, sim.StreamCuts{InterTokenTimeout: 3 * time.Second, OnStall: sim.NonFatal}, sim.FirstToken)
	res, recs := stallTrace(t, cfg)
	c := res.Classes[0]
	if c.Errors != c.Requests || c.Stalled != c.Requests || c.Answered != 0 || c.Hedged != 0 {
		t.Fatalf("requests %d: errors %d, stalled %d, answered %d, hedged %d: want all stalled, no copy", c.Requests, c.Errors, c.Stalled, c.Answered, c.Hedged)
	}
	for i := range int64(cfg.Requests) {
		a := recs[[2]int64{i, 0}]
		if !a.Won || a.Outcome != "stalled" || a.End != a.Start+4*time.Second+time.Duration(a.BilledOutput)*20*time.Millisecond {
			t.Fatalf("request %d: %+v", i, a)
		}
	}
	if !math.IsInf(c.Quantile(0.5), 1) {
		t.Errorf("median %v: a truncated answer is a miss", c.Quantile(0.5))
	}
}

// TestSpeedFloorCutsAtWindowEnd: a stream decoding at 5 tokens/s under a
// floor of 10 tokens/s measured over 2 s is cut exactly 2 s after its
// first token (send + 3 s), having streamed 10 tokens; at 20 tokens/s it is
// not cut, nor is a 5-token answer that ends within the window.
func TestSpeedFloorCutsAtWindowEnd(t *testing.T) {
	cut := sim.StreamCuts{MinTokensPerSecond: 10, SpeedWindow: 2 * time.Second, OnStall: sim.Fatal}
	for _, tc := range []struct {
		speed, out float64
		stalled    bool
		end        time.Duration
		billed     float64
	}{
		{5, 100, true, 3 * time.Second, 10},
		{20, 100, false, 6 * time.Second, 100},
		{5, 5, false, 2 * time.Second, 5},
	} {
		cfg := constantStream(0, cut, sim.FirstValid)
		cfg.Models[0] = streamedModel("a", dist.Constant{Value: 1}, tc.speed)
		cfg.Classes[0].OutputTokens = dist.Constant{Value: tc.out}
		res, recs := stallTrace(t, cfg)
		for i := range int64(cfg.Requests) {
			a := recs[[2]int64{i, 0}]
			if (a.Outcome == "stalled") != tc.stalled || a.End != a.Start+tc.end || a.BilledOutput != tc.billed {
				t.Fatalf("%v tokens/s, %v tokens: request %d: %+v, want stalled %v at +%v with %v tokens", tc.speed, tc.out, i, a, tc.stalled, tc.end, tc.billed)
			}
		}
		c := res.Classes[0]
		if tc.stalled && (c.Stalled != c.Requests || c.Hedged != 0) { // fatal: no fallback
			t.Errorf("%v tokens/s: %d of %d requests stalled, %d hedged", tc.speed, c.Stalled, c.Requests, c.Hedged)
		}
	}
}

// TestStallsKeepOtherDraws: stalls draw from streams of their own, so a
// model whose stalls never pause (length 0) gives exactly the run without
// stalls, and stalls on one model leave the other model's attempts as
// they were.
func TestStallsKeepOtherDraws(t *testing.T) {
	mk := func() *sim.Config {
		cfg := twoStreamed()
		return cfg
	}
	plain := mustRun(t, mk())
	cfg := mk()
	cfg.Models[0].Stalls = sim.Stalls{Rate: 1, Duration: dist.Constant{Value: 0}}
	if got := mustRun(t, cfg); !reflect.DeepEqual(sim.Canonical(got), sim.Canonical(plain)) {
		t.Errorf("zero-length stalls changed the run:\n%+v\n%+v", got.Overall, plain.Overall)
	}
	cfg = mk()
	cfg.Models[0].Stalls = sim.Stalls{Rate: 0.5, Duration: dist.Exponential{Rate: 1}}
	_, recs := stallTrace(t, cfg)
	_, base := stallTrace(t, mk())
	for key, r := range base {
		if r.Model == "b" && r.Attempt == 0 && recs[key] != r {
			t.Fatalf("attempt %v to b changed: %+v → %+v", key, r, recs[key])
		}
	}
}

// twoStreamed is two classes over two streamed models with random
// latencies, each class's primary on one model.
func twoStreamed() *sim.Config {
	return &sim.Config{
		Name: "two", Seed: 11, Requests: 3000,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 50},
		Models: []sim.Model{
			{Name: "a", TTFT: dist.LogNormal{Mu: -1, Sigma: 0.5}, TokensPerSecond: dist.Uniform{Min: 20, Max: 80}, PriceOutputPerMTok: 1},
			{Name: "b", TTFT: dist.LogNormal{Mu: -1.2, Sigma: 0.4}, TokensPerSecond: dist.Uniform{Min: 30, Max: 90}, PriceOutputPerMTok: 1},
		},
		Classes: []sim.Class{
			{Name: "x", Share: 0.5, InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Uniform{Min: 1, Max: 300},
				Policy: sim.Policy{Primary: 0, Targets: []int{1}, Copies: 1, Delays: []time.Duration{400 * time.Millisecond}}},
			{Name: "y", Share: 0.5, InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Uniform{Min: 1, Max: 300},
				Policy: sim.Policy{Primary: 1, Copies: 1, Delays: []time.Duration{300 * time.Millisecond}, Winner: sim.FirstToken}},
		},
	}
}

// TestStallsMatchEventLoop: with stalls, stream cuts, attempt timeouts,
// retries of either layer, degraded periods and a concurrency limit or
// none, on random policies
// with times on a coarse grid (many ties), the one-at-a-time path and the
// event loop give identical results, and every run passes the audit.
func TestStallsMatchEventLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 120
	if testing.Short() {
		n = 30
	}
	gaps := []time.Duration{0, 50 * time.Millisecond, 200 * time.Millisecond, -1}
	for i := range n {
		cfg := &sim.Config{Name: "random", Seed: uint64(i), Requests: 1000, Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 50}}
		prov := sim.Provider{Name: "pa", IgnoresCancel: rng.IntN(4) == 0}
		if rng.IntN(3) == 0 {
			prov.Degraded = &sim.Degraded{MeanNormal: time.Second, MeanDegraded: 300 * time.Millisecond, Slowdown: 3}
		}
		if rng.IntN(3) == 0 {
			prov.Concurrency = 4
		}
		cfg.Providers = []sim.Provider{prov}
		for m := range 2 {
			md := streamedModel(string(rune('a'+m)), dist.Constant{Value: 0.05 * float64(1+rng.IntN(4))}, []float64{20, 100, 400}[rng.IntN(3)])
			md.Provider = []string{"pa", "pb"}[m]
			md.InvalidRate = []float64{0, 0.2}[rng.IntN(2)]
			md.ErrorRate = []float64{0, 0.1}[rng.IntN(2)]
			md.Stalls = sim.Stalls{Rate: []float64{0, 0.3, 1}[rng.IntN(3)], At: sim.StallPoint(rng.IntN(2)),
				Duration: dist.Constant{Value: 0.1 * float64(rng.IntN(6))}}
			cfg.Models = append(cfg.Models, md)
		}
		p := sim.Policy{
			Primary: rng.IntN(2), Targets: []int{rng.IntN(2)}, Copies: rng.IntN(3),
			Delays: []time.Duration{gaps[rng.IntN(len(gaps))]}, Winner: sim.WinnerRule(rng.IntN(3)),
			OnError: sim.ErrorRule(rng.IntN(3)), OnInvalid: sim.ErrorRule(rng.IntN(3)),
			CancelLatency: []time.Duration{0, 50 * time.Millisecond}[rng.IntN(2)], CancelBilling: sim.Billing(rng.IntN(4)),
			AttemptTimeout:   []time.Duration{0, 300 * time.Millisecond}[rng.IntN(2)],
			OnAttemptTimeout: sim.ErrorRule(rng.IntN(3)),
			StreamCuts: sim.StreamCuts{
				InterTokenTimeout: []time.Duration{0, 100 * time.Millisecond, 250 * time.Millisecond}[rng.IntN(3)],
				OnStall:           sim.ErrorRule(rng.IntN(3)),
			},
		}
		if rng.IntN(2) == 0 {
			p.MinTokensPerSecond, p.SpeedWindow = 50, 100*time.Millisecond
		}
		cfg.Classes = []sim.Class{{Name: "x", Share: 1, Policy: p, InputTokens: dist.Constant{Value: 10},
			OutputTokens: dist.Uniform{Min: 0, Max: 40}, Deadline: []time.Duration{0, 700 * time.Millisecond}[rng.IntN(2)]}}
		retry := &sim.Retry{MaxAttempts: 2, InitialBackoff: 50 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, Multiplier: 1,
			Jitter: sim.JitterNone, On: sim.DefaultRetryOn | sim.RetryAttemptTimeout | sim.RetryInvalid}
		switch rng.IntN(4) {
		case 1:
			cfg.Classes[0].Retry = retry
		case 2:
			retry.On = sim.DefaultRetryOn
			cfg.Classes[0].AttemptRetry = retry
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("config %d: %v", i, err)
		}
		got, loop := mustRun(t, cfg), sim.RunEventLoop(cfg)
		if !reflect.DeepEqual(sim.Canonical(got), sim.Canonical(loop)) {
			t.Fatalf("config %d: Run and the event loop differ:\n%+v\n%+v\npolicy %+v", i, got.Overall, loop.Overall, p)
		}
	}
}

// TestStallBeforeFirstTokenIsNoGap: a 10 s stall before the first token
// delays the whole stream (first token at 11 s, end at 13 s) and is no gap
// between tokens: neither a 3 s inter-token timeout nor a speed floor of
// 10 tokens/s over 1 s cuts it (50 tokens/s after the first token).
func TestStallBeforeFirstTokenIsNoGap(t *testing.T) {
	cfg := constantStream(10, sim.StreamCuts{InterTokenTimeout: 3 * time.Second, MinTokensPerSecond: 10, SpeedWindow: time.Second}, sim.FirstValid)
	cfg.Models[0].Stalls.At = sim.BeforeFirstToken
	res, recs := stallTrace(t, cfg)
	for i := range int64(cfg.Requests) {
		if a := recs[[2]int64{i, 0}]; a.Outcome != "completed" || a.End != a.Start+13*time.Second || a.BilledOutput != 100 {
			t.Fatalf("request %d: %+v, want completed at +13 s", i, a)
		}
	}
	if c := res.Classes[0]; c.Attempts.Stalled != 0 || c.Quantile(0.5) != 13 {
		t.Errorf("attempts %+v, median %v s: want no cut, 13 s", c.Attempts, c.Quantile(0.5))
	}
}

// TestInterTokenTimeoutCutsACrawl: tokens 4 s apart (0.25 tokens/s) under
// a 3 s inter-token timeout: every gap exceeds it, so the stream is cut
// 3 s after its first token (send + 4 s), with 0.75 of a token streamed —
// none billed.
func TestInterTokenTimeoutCutsACrawl(t *testing.T) {
	cfg := constantStream(0, sim.StreamCuts{InterTokenTimeout: 3 * time.Second, OnStall: sim.Fatal}, sim.FirstValid)
	cfg.Models[0] = streamedModel("a", dist.Constant{Value: 1}, 0.25)
	_, recs := stallTrace(t, cfg)
	for i := range int64(cfg.Requests) {
		if a := recs[[2]int64{i, 0}]; a.Outcome != "stalled" || a.End != a.Start+4*time.Second || a.BilledOutput != 0 || a.BilledInput != 10 {
			t.Fatalf("request %d: %+v, want stalled at +4 s with its input billed", i, a)
		}
	}
}

// TestCancelDuringStallBillsStreamedTokens: a primary that stalls 10 s
// after its j-th token (j uniform in 0…99, a token every 20 ms from 1 s)
// loses to a copy sent at 1.5 s that answers 0.2 s later; cancelled at
// 1.7 s under "generated" billing, it is billed the tokens streamed by
// then: min(j, 35). So no bill exceeds 35 tokens and a share 0.65 of them
// is exactly 35 (within 5 binomial standard deviations).
func TestCancelDuringStallBillsStreamedTokens(t *testing.T) {
	cfg := constantStream(10, sim.StreamCuts{}, sim.FirstValid)
	p := &cfg.Classes[0].Policy
	p.Delays, p.CancelBilling = []time.Duration{1500 * time.Millisecond}, sim.BillGenerated
	_, recs := stallTrace(t, cfg)
	at35 := 0
	for i := range int64(cfg.Requests) {
		a := recs[[2]int64{i, 0}]
		if a.Outcome != "cancelled" || a.End != a.Start+1700*time.Millisecond || a.BilledOutput > 35 {
			t.Fatalf("request %d: %+v, want cancelled at +1.7 s with at most 35 tokens", i, a)
		}
		if a.BilledOutput == 35 {
			at35++
		}
	}
	n := float64(cfg.Requests)
	if got, sd := float64(at35)/n, math.Sqrt(0.65*0.35/n); math.Abs(got-0.65) > 5*sd {
		t.Errorf("share billed 35 tokens %.3f, want 0.65 ± %.3f", got, 5*sd)
	}
}
