package sim_test

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestSkippedDeadlinesChangeNothing: leaving out the deadlines of
// requests certain to end before them (arriveFrom, callEndsBefore), and
// the hedge timers that could never fire, gives the same result and ends
// the attempts in the same order as queueing them all, on random
// configurations of two providers with small queues, every winner rule,
// attempt timeouts (some as long as the deadline, so that a timeout ties
// with it), errors and invalid answers, cancels landing late, and re-runs
// of failed requests (whose deadlines keep their first run's time), on a
// 50 ms grid so that responses tie with deadlines. Some requests time
// out, and some are answered before their deadline.
func TestSkippedDeadlinesChangeNothing(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(43, 44))
	n := 60
	if testing.Short() {
		n = 15
	}
	var timeouts, answered int64
	for i := range n {
		cfg := &sim.Config{Name: "random", Seed: uint64(i), Requests: 600, Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 20 + 20*rng.Float64()},
			Providers: []sim.Provider{{Name: "a", Concurrency: 1 + rng.IntN(4)}, {Name: "b", Concurrency: 2 + rng.IntN(6)}}}
		for m := range 2 {
			md := sim.Model{Name: string(rune('a' + m)), Provider: string(rune('a' + m)),
				ErrorRate: []float64{0, 0.1}[rng.IntN(2)], InvalidRate: []float64{0, 0.1}[rng.IntN(2)], PriceInputPerMTok: 1}
			if rng.IntN(2) == 0 {
				md.Latency = tieGrid(t, rng)
			} else {
				md.TTFT = tieGrid(t, rng)
				md.TokensPerSecond = dist.Constant{Value: []float64{100, 500}[rng.IntN(2)]}
			}
			cfg.Models = append(cfg.Models, md)
		}
		for c := range 1 + rng.IntN(2) {
			d := []time.Duration{150 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond}[rng.IntN(3)]
			cl := sim.Class{Name: string(rune('p' + c)), Share: 1, Deadline: d, OnTimeout: sim.TimeoutRule(rng.IntN(2)),
				InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Constant{Value: 10},
				Policy: sim.Policy{Primary: rng.IntN(2), Copies: rng.IntN(3), Delays: []time.Duration{50 * time.Millisecond},
					Winner: sim.WinnerRule(rng.IntN(3)), OnError: sim.ErrorRule(rng.IntN(3)), OnInvalid: sim.NonFatal,
					CancelLatency: []time.Duration{0, 50 * time.Millisecond}[rng.IntN(2)], CancelBilling: sim.BillInput}}
			switch rng.IntN(4) {
			case 0:
				cl.Policy.AttemptTimeout = 100 * time.Millisecond
			case 1:
				cl.Policy.AttemptTimeout = d
			}
			if rng.IntN(3) == 0 {
				cl.Retry = &sim.Retry{MaxAttempts: 2, InitialBackoff: 50 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, Multiplier: 1,
					On: sim.DefaultRetryOn}
			}
			cfg.Classes = append(cfg.Classes, cl)
		}
		if len(cfg.Classes) == 2 {
			cfg.Classes[0].Share, cfg.Classes[1].Share = 0.5, 0.5
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("config %d: %v", i, err)
		}
		var skip, all []sim.AttemptRecord
		a := sim.RunGlobal(cfg, func(r *sim.AttemptRecord) { skip = append(skip, *r) })
		b := sim.RunAllQueued(cfg, func(r *sim.AttemptRecord) { all = append(all, *r) })
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("config %d: skipping deadlines changed the result:\n%+v\n%+v", i, a.Overall.Attempts, b.Overall.Attempts)
		}
		if !reflect.DeepEqual(skip, all) {
			t.Fatalf("config %d: skipping deadlines changed the order in which attempts end", i)
		}
		for _, c := range a.Classes {
			timeouts += c.TimeoutsOpen + c.TimeoutsClosed
			answered += c.Answered
		}
	}
	if timeouts == 0 || answered == 0 {
		t.Fatalf("%d requests timed out and %d were answered: nothing was checked", timeouts, answered)
	}
}
