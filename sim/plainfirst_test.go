package sim_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// samePlainFirst checks that cfg gives the same result, and its attempts
// end in the same order with the same records, with respond's short path
// for first-token answers and without it.
func samePlainFirst(t *testing.T, name string, cfg *sim.Config) {
	t.Helper()
	sameWithout(t, name, "the first-token short path", cfg, sim.RunWithoutPlainFirst, false)
}

// TestPlainFirstIsRespond runs every shipped scenario, and random
// configurations whose classes win at the first token (streamed and
// unstreamed models, queues, rate limits, degraded periods, a pool under
// latency_ewma, deadlines, errors and 429s), with respond's short path
// for a first-token answer (plainFirst) and with every response on
// respond's whole path: results and the attempts' records must be
// identical.
func TestPlainFirstIsRespond(t *testing.T) {
	t.Parallel()
	for _, s := range shippedCapped(t, 3_000) {
		samePlainFirst(t, s.name, s.cfg)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	n := 40
	if testing.Short() {
		n = 12
	}
	var firstWins int64 // answers that won a first-token class, over all configurations
	for i := range n {
		cfg := &sim.Config{Name: "random", Seed: uint64(i), Requests: 1500,
			Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 30},
			Providers: []sim.Provider{
				{Name: "p", Concurrency: 2 + rng.IntN(6), IgnoresCancel: rng.IntN(4) == 0,
					Degraded: &sim.Degraded{MeanNormal: 5 * time.Second, MeanDegraded: 2 * time.Second, Slowdown: 2,
						ErrorRate: []float64{0, 0.3}[rng.IntN(2)]}},
				{Name: "q", RateLimit: sim.RateLimit{RequestsPerMinute: 900, Burst: time.Second, RejectLatency: 30 * time.Millisecond}},
			}}
		if rng.IntN(2) == 0 {
			cfg.Providers[1].Pool = &sim.Pool{Replicas: 3, Concurrency: 2, Balancer: sim.LatencyEWMA}
		}
		for m := range 3 {
			md := sim.Model{Name: string(rune('a' + m)), Provider: []string{"p", "q", "p"}[m],
				ErrorRate: []float64{0, 0.1}[rng.IntN(2)], PriceInputPerMTok: 1, PriceOutputPerMTok: 3}
			if rng.IntN(3) == 0 {
				md.Latency = dist.Gamma{Alpha: 2, Beta: 20}
			} else {
				md.TTFT = dist.LogNormal{Mu: -3, Sigma: 0.5}
				md.TokensPerSecond = dist.Uniform{Min: 100, Max: 300}
			}
			cfg.Models = append(cfg.Models, md)
		}
		for c := range 1 + rng.IntN(2) {
			cl := sim.Class{Name: string(rune('r' + c)), Share: 1, Deadline: []time.Duration{0, 300 * time.Millisecond, 2 * time.Second}[rng.IntN(3)],
				InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Uniform{Min: 10, Max: 60},
				Policy: sim.Policy{Primary: rng.IntN(3), Copies: rng.IntN(3), Targets: []int{rng.IntN(3), rng.IntN(3)},
					Delays:        []time.Duration{[]time.Duration{0, 40 * time.Millisecond}[rng.IntN(2)]},
					Winner:        []sim.WinnerRule{sim.FirstToken, sim.FirstToken, sim.FirstValid}[rng.IntN(3)],
					OnError:       sim.ErrorRule(rng.IntN(3)),
					CancelLatency: []time.Duration{0, 20 * time.Millisecond}[rng.IntN(2)],
					CancelBilling: sim.Billing(rng.IntN(3))}}
			cfg.Classes = append(cfg.Classes, cl)
		}
		if len(cfg.Classes) == 2 {
			cfg.Classes[0].Share, cfg.Classes[1].Share = 0.5, 0.5
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("config %d: %v", i, err)
		}
		samePlainFirst(t, "random", cfg)
		res := sim.RunGlobal(cfg, nil)
		for c, cl := range cfg.Classes {
			if cl.Policy.Winner == sim.FirstToken {
				firstWins += res.Classes[c].Answered
			}
		}
	}
	if firstWins == 0 {
		t.Fatal("no first-token class answered: the short path was not taken")
	}
}
