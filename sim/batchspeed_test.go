package sim_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestBatchingDecodeSpeedIsTheModels: the batching table gives how a
// sequence slows with the batch, speed(n) ÷ speed(1), not its speed: a
// sequence decodes at its model's own tokens/s × that ratio ÷ its
// replica's slowdown, and the report's decode speed is that speed, not
// the table's. Every case is worked out by hand; the tolerance is
// rounding only.
func TestBatchingDecodeSpeedIsTheModels(t *testing.T) {
	// A request every 100 s to 2 replicas in turn, replica 1 twice as
	// slow, a flat formula of 50 tokens/s and a model of 10 tokens/s with
	// 100 output tokens and no time to the first token: each request is
	// alone, 10 s at replica 0 (10 tokens/s), 20 s at replica 1 (5). The
	// pool's speed is its tokens ÷ its seconds decoding: 200 ÷ 30.
	t.Run("alone", func(t *testing.T) {
		cfg := &sim.Config{
			Name: "bspeed", Seed: 1, Requests: 200,
			Arrivals: sim.Arrivals{Process: sim.Constant, Rate: 0.01},
			Models: []sim.Model{{Name: "m", Provider: "p", TTFT: dist.Constant{},
				TokensPerSecond: dist.Constant{Value: 10}}},
			Providers: []sim.Provider{{Name: "p", Pool: &sim.Pool{
				Replicas: 2, Concurrency: 4, Balancer: sim.RoundRobin, Decay: 0.9,
				Overrides: []sim.ReplicaOverride{{Replica: 1, Slowdown: 2}},
				Batching:  &sim.Batching{Base: 50}}}},
			Classes: []sim.Class{{Name: "c", Share: 1, Deadline: time.Minute,
				InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Constant{Value: 100}}},
		}
		for i, lat := range requestLatencies(t, cfg) {
			if want := 10.0 * float64(1+i%2); math.Abs(lat-want) > 1e-9 {
				t.Fatalf("request %d: latency %v s, want %v s", i, lat, want)
			}
		}
		res := mustRun(t, cfg)
		p := res.Pools[0]
		for i, want := range []float64{10, 5} {
			if r := p.Replicas[i]; r.DecodeSpeed == nil || math.Abs(*r.DecodeSpeed-want) > 1e-9*want {
				t.Errorf("replica %d (slowdown %v): decode speed %v tokens/s, want %v", i, r.Slowdown, deref(r.DecodeSpeed), want)
			}
		}
		if want := 200.0 / 30; p.DecodeSpeed == nil || math.Abs(*p.DecodeSpeed-want) > 1e-9*want {
			t.Errorf("pool decode speed %v tokens/s, want %v", deref(p.DecodeSpeed), want)
		}
		var b strings.Builder
		if err := sim.NewReport(cfg, res, res).WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "mean batch 1.00 at 6.667 tokens/s per sequence") {
			t.Errorf("the pool line does not give 6.667 tokens/s per sequence:\n%s", b.String())
		}
	})
	// Two requests at 0 s to one replica of a table [50, 25]: together
	// each goes at 25/50 of its model's pace. A time to the first token of
	// 1 s and 100 tokens at 10 tokens/s are 11 s of work, done in 22 s;
	// decoding takes 20 s of them: 100 tokens ÷ 20 s = 5 tokens/s, the
	// model's 10 × 25/50 (the table would say 25).
	t.Run("together", func(t *testing.T) {
		cfg := &sim.Config{
			Name: "bspeed2", Seed: 1, Requests: 2,
			Arrivals: sim.Arrivals{Process: sim.Replay, Trace: &sim.Trace{
				Arrivals: []time.Duration{0, 0}, Input: []float64{0, 0}, Output: []float64{100, 100}, Class: []int{0, 0}}},
			Models: []sim.Model{{Name: "m", Provider: "p", TTFT: dist.Constant{Value: 1},
				TokensPerSecond: dist.Constant{Value: 10}}},
			Providers: []sim.Provider{{Name: "p", Pool: &sim.Pool{
				Replicas: 1, Concurrency: 2, Balancer: sim.RandomBalancer, Decay: 0.9,
				Batching: &sim.Batching{TokensPerSecond: []float64{50, 25}}}}},
			Classes: []sim.Class{{Name: "c", Share: 1, Deadline: time.Minute,
				InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}}},
		}
		for i, lat := range requestLatencies(t, cfg) {
			if math.Abs(lat-22) > 1e-9 {
				t.Errorf("request %d: latency %v s, want 22 s", i, lat)
			}
		}
		p := mustRun(t, cfg).Pools[0]
		if p.MeanBatch == nil || *p.MeanBatch != 2 || p.DecodeSpeed == nil || math.Abs(*p.DecodeSpeed-5) > 1e-9*5 {
			t.Errorf("mean batch %v at %v tokens/s, want 2 at 5", deref(p.MeanBatch), deref(p.DecodeSpeed))
		}
	})
	// A loser counts the share of its tokens decoded until its cancel
	// lands. byHand's hedged request with its model at 4 tokens/s and 8
	// tokens (2 s of work, as at 2 tokens/s with 4) under ideal sharing at
	// a base of 2: the primary decodes alone to 0.5 s, then beside its
	// copy at half pace, and ends at 3.5 s (8 tokens in 3.5 s); the copy,
	// let go at 3.5 s, has done 1.5 s of work and 0.1 s more alone until
	// its cancel lands at 3.6 s: 1.6 ÷ 2 of 8 tokens in 3.1 s. The pool:
	// (8 + 6.4) ÷ (3.5 + 3.1) tokens/s.
	t.Run("loser", func(t *testing.T) {
		cfg := byHand([]time.Duration{0}, []float64{8}, []int{0}, 0, 100*time.Millisecond)
		cfg.Models[0].TokensPerSecond = dist.Constant{Value: 4}
		var loser sim.AttemptRecord
		if _, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) {
			if r.Attempt == 1 {
				loser = *r
			}
		}); err != nil {
			t.Fatal(err)
		}
		if loser.End != 3600*time.Millisecond {
			t.Fatalf("the copy ends at %v, want 3.6s (its cancel)", loser.End)
		}
		p := mustRun(t, cfg).Pools[0]
		if want := 14.4 / 6.6; p.DecodeSpeed == nil || math.Abs(*p.DecodeSpeed-want) > 1e-9*want {
			t.Errorf("pool decode speed %v tokens/s, want %v", deref(p.DecodeSpeed), want)
		}
	})
}

// TestBatchingSpeedWarning: a streamed model at a batching pool whose
// speed at batch size 1 is more than 10 % from the model's median
// tokens_per_s earns a configuration warning at the model's tokens_per_s
// naming both speeds — the run decodes at the model's — and the report
// lists it; speeds that agree within 10 %, and a model with one latency
// distribution, earn none.
func TestBatchingSpeedWarning(t *testing.T) {
	const text = "model m decodes at a median 10 tokens/s alone (its tokens_per_s), and provider p's pool batching gives 50 tokens/s at batch size 1"
	cfg := func(model sim.Model, b sim.Batching) *sim.Config {
		return &sim.Config{
			Name: "bwarn", Seed: 1, Requests: 100,
			Arrivals:  sim.Arrivals{Process: sim.Constant, Rate: 0.01},
			Models:    []sim.Model{model},
			Providers: []sim.Provider{{Name: "p", Pool: &sim.Pool{Replicas: 2, Concurrency: 2, Balancer: sim.RoundRobin, Decay: 0.9, Batching: &b}}},
			Classes: []sim.Class{{Name: "c", Share: 1, Deadline: time.Minute,
				InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Constant{Value: 100}}},
		}
	}
	streamed := func(speed float64) sim.Model {
		return sim.Model{Name: "m", Provider: "p", TTFT: dist.Constant{}, TokensPerSecond: dist.Constant{Value: speed}}
	}
	warned := func(c *sim.Config) []sim.ConfigWarning {
		var out []sim.ConfigWarning
		for _, w := range sim.ConfigWarnings(c) {
			if w.Field == "tokens_per_s" {
				out = append(out, w)
			}
		}
		return out
	}
	c := cfg(streamed(10), sim.Batching{Base: 50})
	ws := warned(c)
	if len(ws) != 1 || ws[0].Model != 0 || ws[0].Provider != 0 || !strings.HasPrefix(ws[0].Text, text) {
		t.Fatalf("a 10 tokens/s model at a pool of speed(1) = 50: warnings %+v; want one at model 0's tokens_per_s starting %q", ws, text)
	}
	res := mustRun(t, c)
	if rep := sim.NewReport(c, res, res); !strings.Contains(strings.Join(rep.Classes[0].Warnings, "\n"), text) {
		t.Errorf("the report's class warnings %q lack it", rep.Classes[0].Warnings)
	}
	if ws := warned(cfg(streamed(10), sim.Batching{TokensPerSecond: []float64{50, 25}})); len(ws) != 1 || !strings.HasPrefix(ws[0].Text, text) {
		t.Errorf("the same against a table [50, 25]: warnings %+v, want one starting %q", ws, text)
	}
	for name, c := range map[string]*sim.Config{
		"equal":       cfg(streamed(50), sim.Batching{Base: 50}),
		"within 10 %": cfg(streamed(45.5), sim.Batching{TokensPerSecond: []float64{50, 25}}),
		"one latency": cfg(sim.Model{Name: "m", Provider: "p", Latency: dist.Constant{Value: 1}}, sim.Batching{Base: 50}),
		"not batching": func() *sim.Config {
			c := cfg(streamed(10), sim.Batching{Base: 50})
			c.Providers[0].Pool.Batching = nil
			return c
		}(),
	} {
		if ws := warned(c); len(ws) != 0 {
			t.Errorf("%s: warnings %+v, want none", name, ws)
		}
	}
}
