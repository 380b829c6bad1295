package sim_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// sameChain checks that cfg gives the same result, and its attempts end
// in the same order with the same records, with a chain's quick paths
// (callEnded's short hand-on and startNext, and callEnded's end of the
// pipeline at its last answer) and with every answered call held for
// pipeCall, every call started by startCall and every last call ended
// through callDone (pipeClass.quick off). Each is run once
// without a trace too, as the benchmarks run.
func sameChain(t *testing.T, name string, cfg *sim.Config) {
	t.Helper()
	sameWithout(t, name, "the quick hand-on", cfg, sim.RunWithoutQuickChain, true)
}

// sameWithout checks that cfg run with every short path (RunGlobal) and
// by without, which leaves the one named path out, gives the same result
// and the same attempt records in the same order, naming the first
// attempt that differs; untraced runs both once more without a trace, as
// the benchmarks run.
func sameWithout(t *testing.T, name, path string, cfg *sim.Config, without func(*sim.Config, func(*sim.AttemptRecord)) *sim.Result, untraced bool) {
	t.Helper()
	var short, whole []sim.AttemptRecord
	a := sim.RunGlobal(cfg, func(r *sim.AttemptRecord) { short = append(short, *r) })
	b := without(cfg, func(r *sim.AttemptRecord) { whole = append(whole, *r) })
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("%s: %s changed the traced result:\n%+v\n%+v", name, path, a.Classes, b.Classes)
	}
	if !reflect.DeepEqual(short, whole) {
		for i := range min(len(short), len(whole)) {
			if !reflect.DeepEqual(short[i], whole[i]) {
				t.Fatalf("%s: %s changed attempt %d of %d:\n%+v\n%+v", name, path, i, len(whole), short[i], whole[i])
			}
		}
		t.Fatalf("%s: %s changed the attempts: %d with it, %d without", name, path, len(short), len(whole))
	}
	if untraced {
		if a, b := sim.RunGlobal(cfg, nil), without(cfg, nil); !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: %s changed the result:\n%+v\n%+v", name, path, a.Classes, b.Classes)
		}
	}
}

// TestQuickChainIsPipeCall runs every shipped scenario with a pipeline,
// the pipeline benchmark's four-step chain (BenchmarkPipeline), and
// random pipelines — chains of one to four calls, and some stages fanned
// out, grouped or repeated, steps of drawn token counts or reading
// earlier steps' — whose calls share small queues with a plain class,
// with hedges, per-call and end-to-end deadlines, errors and streamed
// answers on a 50 ms grid so that ends tie, with a chain's quick paths
// and without them: results and the attempts' records must be
// identical.
func TestQuickChainIsPipeCall(t *testing.T) {
	t.Parallel()
	for _, s := range shippedCapped(t, 3_000) {
		for _, c := range s.cfg.Classes {
			if c.Pipeline != nil {
				sameChain(t, s.name, s.cfg)
				break
			}
		}
	}
	four := fourSteps(t)
	four.Requests = 3_000
	four.Providers = []sim.Provider{{Name: "chat", Concurrency: 1 << 20}}
	sameChain(t, "four-steps", four)
	four.Providers = []sim.Provider{{Name: "chat", Concurrency: 2}}
	sameChain(t, "four-steps at a full provider", four)

	rng := rand.New(rand.NewPCG(41, 42))
	n := 80
	if testing.Short() {
		n = 24
	}
	for i := range n {
		cfg := &sim.Config{Name: "random", Seed: uint64(i), Requests: 600, Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 40},
			Providers: []sim.Provider{{Name: "a", Concurrency: 1 + rng.IntN(4)}, {Name: "b", Concurrency: 2 + rng.IntN(6)}}}
		for m := range 2 {
			md := sim.Model{Name: string(rune('a' + m)), Provider: string(rune('a' + m)),
				ErrorRate: []float64{0, 0.1}[rng.IntN(2)], PriceInputPerMTok: 1, PriceOutputPerMTok: 3}
			if rng.IntN(4) > 0 {
				md.Latency = tieGrid(t, rng)
			} else {
				md.TTFT = tieGrid(t, rng)
				md.TokensPerSecond = dist.Constant{Value: []float64{100, 500}[rng.IntN(2)]}
			}
			cfg.Models = append(cfg.Models, md)
		}
		chain := rng.IntN(3) > 0 // else stages of every kind
		pl := &sim.Pipeline{}
		for s := range 1 + rng.IntN(4) {
			c := call([]time.Duration{0, 200 * time.Millisecond, 400 * time.Millisecond}[rng.IntN(3)], sim.TimeoutRule(rng.IntN(2)))
			c.Policy.Primary, c.Policy.Copies, c.Policy.Delays = rng.IntN(2), rng.IntN(3), []time.Duration{50 * time.Millisecond}
			c.Policy.OnError = sim.ErrorRule(rng.IntN(3))
			c.Policy.Winner = sim.WinnerRule(rng.IntN(3))
			if rng.IntN(4) == 0 { // drawn token counts: not a plain step
				c.OutputTokens = dist.Uniform{Min: 10, Max: 60}
			}
			st := sim.Step{Name: string(rune('p' + s)), Call: c, FanOut: 1, Visible: s == 1}
			group := false
			if !chain {
				switch rng.IntN(4) {
				case 0:
					st.FanOut = 2 + rng.IntN(3)
				case 1:
					st.Repeat, st.MaxRepeat = dist.Uniform{Min: 0.5, Max: 3.5}, 3
				case 2:
					group = s > 0 && pl.Steps[s-1].Repeat == nil
				}
			}
			pl.Steps = append(pl.Steps, st)
			if group {
				g := &pl.Stages[len(pl.Stages)-1]
				g.Steps = append(g.Steps, s)
			} else {
				pl.Stages = append(pl.Stages, sim.Stage{Steps: []int{s}})
			}
		}
		for g := 1; g < len(pl.Stages); g++ {
			if rng.IntN(5) == 0 { // a step that reads an earlier stage's tokens
				s := pl.Stages[g].Steps[0]
				pl.Steps[s].InputFrom = []sim.TokenRef{{Step: pl.Stages[rng.IntN(g)].Steps[0], Output: rng.IntN(2) == 0}}
			}
		}
		cfg.Classes = []sim.Class{
			{Name: "p", Share: 0.7, Pipeline: pl, Deadline: []time.Duration{0, 500 * time.Millisecond, time.Second}[rng.IntN(3)]},
			{Name: "plain", Share: 0.3, InputTokens: dist.Constant{Value: 10}, OutputTokens: dist.Constant{Value: 5},
				Policy: sim.Policy{Primary: rng.IntN(2), Copies: 1, Delays: []time.Duration{100 * time.Millisecond}, OnInvalid: sim.NonFatal}},
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("config %d: %v", i, err)
		}
		sameChain(t, fmt.Sprintf("config %d (chain %v)", i, chain), cfg)
	}
}
