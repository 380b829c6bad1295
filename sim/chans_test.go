package sim_test

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// sameOrder runs cfg through the event loop with and without the FIFOs of
// events due in scheduling order and fails unless both give the same
// result and the same attempts, ended in the same order.
func sameOrder(t *testing.T, name string, cfg *sim.Config) {
	t.Helper()
	var fifo, heap []sim.AttemptRecord
	a := sim.RunGlobal(cfg, func(r *sim.AttemptRecord) { fifo = append(fifo, *r) })
	b := sim.RunHeapOnly(cfg, func(r *sim.AttemptRecord) { heap = append(heap, *r) })
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("%s: FIFOs and heap alone give different results:\n%+v\n%+v", name, a.Overall.Attempts, b.Overall.Attempts)
	}
	if !reflect.DeepEqual(fifo, heap) {
		for i := range min(len(fifo), len(heap)) {
			if !reflect.DeepEqual(fifo[i], heap[i]) {
				t.Fatalf("%s: attempt %d of %d differs:\n%+v\n%+v", name, i, len(heap), fifo[i], heap[i])
			}
		}
		t.Fatalf("%s: %d attempts with the FIFOs, %d with the heap alone", name, len(fifo), len(heap))
	}
}

// TestChansKeepEventOrder: the FIFOs that hold timers, deadlines, cancels,
// attempt timeouts, thinks and events due at once change neither the
// result nor the order in which attempts end, on every shipped scenario
// (hedged and not) and on random configurations with shared queues, rate
// limits, budgets, adaptive delays, retry-after hints and closed-loop
// clients, whose times fall on a coarse grid so that events often tie.
// Under -short a shipped scenario whose pools autoscale runs 1 000
// requests (see shippedConfigs), the others 5 000 as in the full run.
func TestChansKeepEventOrder(t *testing.T) {
	t.Parallel()
	for _, s := range shippedCapped(t, 5_000) {
		sameOrder(t, s.name, s.cfg)
		sameOrder(t, s.name+" without hedging", sim.WithoutHedging(s.cfg))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	n := 120
	if testing.Short() {
		n = 30
	}
	for i := range n {
		cfg := randomTieConfig(t, rng, i)
		sameOrder(t, "random config "+string(rune('0'+i%10)), cfg)
	}
}

// keepsDeadSame runs cfg with the losers' dead responses taken out of a
// small heap (dropResponse, the default look) and left to be popped
// (look 0), and fails unless both give the same result and the same
// attempts, ended in the same order. It returns the most events the heap
// held at once with them taken out and with them left.
func keepsDeadSame(t *testing.T, name string, cfg *sim.Config) (int, int) {
	t.Helper()
	var dropped, kept []sim.AttemptRecord
	a, mostDropped := sim.RunLook(cfg, sim.ResponseLook, func(r *sim.AttemptRecord) { dropped = append(dropped, *r) })
	b, mostKept := sim.RunLook(cfg, 0, func(r *sim.AttemptRecord) { kept = append(kept, *r) })
	if !reflect.DeepEqual(sim.Canonical(a), sim.Canonical(b)) {
		t.Fatalf("%s: taking dead responses out changed the result:\n%+v\n%+v", name, a.Overall.Attempts, b.Overall.Attempts)
	}
	if !reflect.DeepEqual(dropped, kept) {
		t.Fatalf("%s: taking dead responses out changed the attempts or their order (%d and %d)", name, len(dropped), len(kept))
	}
	return mostDropped, mostKept
}

// TestDroppedResponsesChangeNothing: a loser let go of in service whose
// response leaves the heap (dropResponse) — with or without a provider
// slot to release, a cancel latency of 0 or more — changes neither the
// result nor the order in which attempts end: on the four-step pipeline
// (BenchmarkPipeline, whose chat step holds provider slots), on every
// shipped scenario and on the random configurations, with ties, of
// TestChansKeepEventOrder. The pipeline's heap, which holds a few dozen
// events, must hold fewer at its most with them taken out: they were.
func TestDroppedResponsesChangeNothing(t *testing.T) {
	t.Parallel()
	pipe := fourSteps(t)
	pipe.Requests = 20_000
	pipe.Providers = []sim.Provider{{Name: "chat", Concurrency: 1 << 20}}
	if d, k := keepsDeadSame(t, "four steps", pipe); d >= k {
		t.Errorf("four steps: the heap held at most %d events with dead responses taken out, %d with them left: none was taken out", d, k)
	}
	for _, s := range shippedCapped(t, 5_000) {
		keepsDeadSame(t, s.name, s.cfg)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	n := 120
	if testing.Short() {
		n = 30
	}
	for i := range n {
		keepsDeadSame(t, "random config "+string(rune('0'+i%10)), randomTieConfig(t, rng, i))
	}
}

// randomTieConfig returns random configuration i of TestChansKeepEventOrder,
// drawn from rng: shared queues, rate limits, budgets, adaptive delays,
// retry-after hints and closed-loop clients, with times on a coarse grid so
// that events often tie.
func randomTieConfig(t *testing.T, rng *rand.Rand, i int) *sim.Config {
	t.Helper()
	grid := func() dist.Continuous { return tieGrid(t, rng) }
	gaps := []time.Duration{0, 50 * time.Millisecond, 100 * time.Millisecond, -1}
	cfg := &sim.Config{
		Name: "random", Seed: uint64(i), Requests: 1500,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 60},
		Providers: []sim.Provider{
			{Name: "pa", Concurrency: 1 + rng.IntN(6), IgnoresCancel: rng.IntN(4) == 0},
			{Name: "pb", RateLimit: sim.RateLimit{RequestsPerMinute: 600, Burst: time.Second, RejectLatency: 50 * time.Millisecond,
				RetryAfter: []time.Duration{0, 100 * time.Millisecond}[rng.IntN(2)]}},
		},
	}
	if rng.IntN(2) == 0 {
		cfg.Providers[0].RejectWhenFull, cfg.Providers[0].QueueLimit = true, 1+rng.IntN(8)
	}
	for m := range 3 {
		md := sim.Model{Name: string(rune('a' + m)), Provider: []string{"pa", "pb", "pa"}[m],
			ErrorRate: []float64{0, 0.1}[rng.IntN(2)], PriceInputPerMTok: 1, PriceOutputPerMTok: 3}
		if rng.IntN(2) == 0 {
			md.Latency = grid()
		} else {
			md.TTFT = grid()
			md.TokensPerSecond = dist.Constant{Value: []float64{100, 500}[rng.IntN(2)]}
		}
		cfg.Models = append(cfg.Models, md)
	}
	for c := range 1 + rng.IntN(3) {
		p := sim.Policy{
			Primary: rng.IntN(3), Targets: []int{rng.IntN(3), rng.IntN(3)},
			Copies: rng.IntN(4), Delays: []time.Duration{gaps[rng.IntN(len(gaps))], gaps[rng.IntN(len(gaps))]},
			Winner:  sim.WinnerRule(rng.IntN(3)),
			OnError: sim.ErrorRule(rng.IntN(3)), OnRateLimited: sim.ErrorRule(rng.IntN(3)),
			CancelLatency:  []time.Duration{0, 50 * time.Millisecond, 100 * time.Millisecond}[rng.IntN(3)],
			AttemptTimeout: []time.Duration{0, 0, 150 * time.Millisecond}[rng.IntN(3)],
		}
		if rng.IntN(4) == 0 {
			p.Budget = sim.Budget{MaxInFlightRatio: 0.2, MinInFlight: 2}
		}
		if rng.IntN(4) == 0 && p.Copies > 0 {
			p.Adaptive = &sim.Adaptive{Percentile: 0.9, Window: 200, Source: sim.FromAttempts, Min: 10 * time.Millisecond}
		}
		cl := sim.Class{
			Name: string(rune('x' + c)), Share: 1, Policy: p,
			InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Constant{Value: 20},
			Deadline: []time.Duration{0, 200 * time.Millisecond, 400 * time.Millisecond}[rng.IntN(3)],
		}
		if c == 0 && rng.IntN(3) == 0 {
			cl.Clients = 1 + rng.IntN(8)
			cl.ThinkTime = []dist.Continuous{dist.Constant{Value: 0.05}, dist.Uniform{Min: 0, Max: 0.1}}[rng.IntN(2)]
		}
		cfg.Classes = append(cfg.Classes, cl)
	}
	open := 0
	for c := range cfg.Classes {
		if cfg.Classes[c].Clients == 0 {
			open++
		}
	}
	for c := range cfg.Classes {
		cfg.Classes[c].Share = 0
		if cfg.Classes[c].Clients == 0 {
			cfg.Classes[c].Share = 1 / float64(open)
		}
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("config %d: %v", i, err)
	}
	return cfg
}
