package sim_test

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// sameLetGo checks that cfg gives the same result, and its attempts end
// in the same order with the same records, with serveLetGo and without
// it. It returns the attempts cancelled after they started.
func sameLetGo(t *testing.T, name string, cfg *sim.Config) int64 {
	t.Helper()
	var quick, whole []sim.AttemptRecord
	a := sim.RunGlobal(cfg, func(r *sim.AttemptRecord) { quick = append(quick, *r) })
	b := sim.RunWithoutQuickLetGo(cfg, func(r *sim.AttemptRecord) { whole = append(whole, *r) })
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("%s: serveLetGo changed the result:\n%+v\n%+v", name, a.Classes, b.Classes)
	}
	if !reflect.DeepEqual(quick, whole) {
		t.Fatalf("%s: serveLetGo changed the attempts", name)
	}
	var n int64
	for _, c := range a.Classes {
		n += c.Attempts.Cancelled
	}
	return n
}

// TestServeLetGoIsServeAt runs every shipped scenario, and random
// configurations whose hedged requests queue at a small provider (queued
// losers let go of that reach service before their cancel lands, cancel
// latencies, billings, deadlines, degraded periods without failures,
// streamed models, a provider that ignores cancels), with serveLetGo and
// with every such start through serveAt: results and the attempts'
// records must be identical.
func TestServeLetGoIsServeAt(t *testing.T) {
	t.Parallel()
	for _, s := range shippedCapped(t, 3_000) {
		sameLetGo(t, s.name, s.cfg)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	n := 40
	if testing.Short() {
		n = 12
	}
	var cancelled int64
	for i := range n {
		cfg := &sim.Config{Name: "random", Seed: uint64(i), Requests: 1500,
			Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 14},
			Providers: []sim.Provider{
				{Name: "p", Concurrency: 2 + rng.IntN(4), IgnoresCancel: rng.IntN(5) == 0},
				{Name: "q", Concurrency: 3},
			}}
		if rng.IntN(2) == 0 {
			cfg.Providers[0].Degraded = &sim.Degraded{MeanNormal: 5 * time.Second, MeanDegraded: 2 * time.Second, Slowdown: 2}
		}
		for m := range 3 {
			md := sim.Model{Name: string(rune('a' + m)), Provider: []string{"p", "p", "q"}[m],
				PriceInputPerMTok: 1, PriceOutputPerMTok: 3}
			if rng.IntN(4) == 0 {
				md.TTFT = dist.LogNormal{Mu: -3, Sigma: 0.5}
				md.TokensPerSecond = dist.Uniform{Min: 100, Max: 300}
			} else {
				md.Latency = dist.Gamma{Alpha: 2, Beta: 10}
			}
			cfg.Models = append(cfg.Models, md)
		}
		cfg.Classes = []sim.Class{{Name: "r", Share: 1,
			Deadline:    []time.Duration{0, 400 * time.Millisecond, 3 * time.Second}[rng.IntN(3)],
			InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Uniform{Min: 10, Max: 60},
			Policy: sim.Policy{Primary: 0, Copies: 1 + rng.IntN(2), Targets: []int{rng.IntN(2), 1 + rng.IntN(2)},
				Delays:        []time.Duration{[]time.Duration{0, 30 * time.Millisecond, 100 * time.Millisecond}[rng.IntN(3)]},
				Winner:        []sim.WinnerRule{sim.FirstValid, sim.FirstToken, sim.FirstResponse}[rng.IntN(3)],
				CancelLatency: []time.Duration{0, 20 * time.Millisecond, 150 * time.Millisecond, time.Second}[rng.IntN(4)],
				CancelBilling: sim.Billing(rng.IntN(3))}}}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("config %d: %v", i, err)
		}
		cancelled += sameLetGo(t, "random", cfg)
	}
	if cancelled == 0 {
		t.Fatal("no attempt was cancelled: no loser was let go of")
	}
}
