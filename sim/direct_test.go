package sim_test

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// TestDirectMatchesEventLoop: on every shipped scenario whose requests are
// independent, Run (the lane where it applies, else one request at a time)
// and the one-at-a-time event handlers (RunDirect) write exactly the JSON
// report — byte for byte — that the event loop in one global time order
// writes, hedged and without hedging.
func TestDirectMatchesEventLoop(t *testing.T) {
	t.Parallel()
	independent := 0
	for _, name := range scenarios.Names() {
		s, err := scenario.LoadFS(scenarios.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		cfg := s.Config
		if !sim.Independent(&cfg) {
			continue
		}
		independent++
		t.Run(name, func(t *testing.T) {
			if testing.Short() {
				cfg.Requests = min(cfg.Requests, 20_000)
			}
			base := sim.WithoutHedging(&cfg)
			direct := reportJSON(t, &cfg, mustRun(t, &cfg), mustRun(t, base))
			handlers := reportJSON(t, &cfg, sim.RunDirect(&cfg), sim.RunDirect(base))
			loop := reportJSON(t, &cfg, sim.RunEventLoop(&cfg), sim.RunEventLoop(base))
			if !bytes.Equal(direct, loop) {
				t.Errorf("Run and event loop reports differ:\n%s\n%s", direct, loop)
			}
			if !bytes.Equal(handlers, loop) {
				t.Errorf("one-at-a-time and event loop reports differ:\n%s\n%s", handlers, loop)
			}
		})
	}
	if independent < 2 {
		t.Fatalf("only %d shipped scenarios are independent; the test checks too little", independent)
	}
}

func reportJSON(t *testing.T, cfg *sim.Config, hedged, base *sim.Result) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := sim.NewReport(cfg, hedged, base).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestLaneMatchesEventLoopOnRandomPolicies: on random independent
// configurations — every winner rule, error rule, fallback and zero gaps,
// prefill speeds,
// cancel latencies and billing, providers that ignore cancels, "a new
// provider" targets, deadlines or none — with latencies on a coarse grid so
// that responses, timers and deadlines often fall at the same instant, the
// lane, the one-at-a-time handlers and the global event loop give
// identical results.
func TestLaneMatchesEventLoopOnRandomPolicies(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	prng := rand.New(rand.NewPCG(3, 4))
	grid := func() dist.Continuous { // latencies on a 50 ms grid: many ties
		w := []float64{1 + rng.Float64(), 1 + rng.Float64(), 1 + rng.Float64()}
		m, err := dist.NewMixture(w, []dist.Continuous{
			dist.Constant{Value: 0.05 * float64(rng.IntN(3))}, dist.Constant{Value: 0.05 * float64(1+rng.IntN(6))},
			dist.Uniform{Min: 0.1, Max: 0.1 + 0.3*rng.Float64()},
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	gaps := []time.Duration{0, 50 * time.Millisecond, 100 * time.Millisecond, 150 * time.Millisecond, -1}
	n := 300
	if testing.Short() {
		n = 60
	}
	for i := range n {
		cfg := &sim.Config{
			Name: "random", Seed: uint64(i), Requests: 1500,
			Arrivals:  sim.Arrivals{Process: sim.Poisson, Rate: 100},
			Providers: []sim.Provider{{Name: "pa", IgnoresCancel: rng.IntN(3) == 0}},
		}
		for m := range 3 {
			md := sim.Model{Name: string(rune('a' + m)), Provider: []string{"pa", "pb", "pc"}[m],
				ErrorRate: []float64{0, 0.1, 0.4}[rng.IntN(3)], InvalidRate: []float64{0, 0.1, 0.3}[rng.IntN(3)],
				PriceInputPerMTok: 1, PriceOutputPerMTok: 3, PricePerRequest: 0.001}
			if rng.IntN(2) == 0 {
				md.Latency = grid()
			} else {
				md.TTFT = grid()
				md.TokensPerSecond = dist.Constant{Value: []float64{100, 500}[rng.IntN(2)]}
				// A prefill speed on some streamed models, from its own
				// generator so the other configurations stay as they were:
				// 100 input tokens take 50 or 100 ms, on the grid.
				if v := prng.IntN(3); v > 0 {
					md.PrefillTokensPerSecond = dist.Constant{Value: []float64{1000, 2000}[v-1]}
				}
			}
			if rng.IntN(2) == 0 {
				md.ErrorLatency = dist.Constant{Value: 0.05 * float64(rng.IntN(3))}
			}
			cfg.Models = append(cfg.Models, md)
		}
		for c := range 1 + rng.IntN(3) {
			p := sim.Policy{
				Primary: rng.IntN(3), Targets: []int{rng.IntN(3), rng.IntN(3)}, NewProvider: rng.IntN(3) == 0,
				Copies: rng.IntN(4), Delays: []time.Duration{gaps[rng.IntN(len(gaps))], gaps[rng.IntN(len(gaps))]},
				Winner:  sim.WinnerRule(rng.IntN(3)),
				OnError: sim.ErrorRule(rng.IntN(3)), OnInvalid: sim.ErrorRule(rng.IntN(3)),
				CancelLatency: []time.Duration{0, 50 * time.Millisecond, 120 * time.Millisecond}[rng.IntN(3)],
				CancelBilling: sim.Billing(rng.IntN(4)),
			}
			cfg.Classes = append(cfg.Classes, sim.Class{
				Name: string(rune('x' + c)), Share: 1, Policy: p,
				InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Uniform{Min: 10, Max: 60},
				Deadline:  []time.Duration{0, 150 * time.Millisecond, 300 * time.Millisecond}[rng.IntN(3)],
				OnTimeout: sim.TimeoutRule(rng.IntN(2)),
			})
		}
		for c := range cfg.Classes {
			cfg.Classes[c].Share = 1 / float64(len(cfg.Classes))
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("config %d: %v", i, err)
		}
		lane, loop := mustRun(t, cfg), sim.RunEventLoop(cfg)
		if !reflect.DeepEqual(sim.Canonical(lane), sim.Canonical(loop)) {
			t.Fatalf("config %d: lane and event loop differ:\n%+v\n%+v\npolicies %+v", i, lane.Overall, loop.Overall, cfg.Classes)
		}
		if one := sim.RunDirect(cfg); !reflect.DeepEqual(sim.Canonical(one), sim.Canonical(loop)) {
			t.Fatalf("config %d: one-at-a-time and event loop differ:\n%+v\n%+v", i, one.Overall, loop.Overall)
		}
	}
}
