package sim_test

import (
	"math"
	"testing"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// tandemMM1 returns n requests of a pipeline of two steps in tandem, each
// call an M/M/1 queue of its own provider (one slot, exponential service
// at 1/s) fed by Poisson arrivals at rho per second. By Burke's theorem
// the second queue's arrivals are Poisson too, so each step's call takes
// a sojourn time exponential at rate 1 − rho: mean 1/(1 − rho), p95
// ln 20/(1 − rho).
func tandemMM1(n int, rho float64) *sim.Config {
	models := []sim.Model{
		{Name: "a", Provider: "one", Latency: dist.Exponential{Rate: 1}},
		{Name: "b", Provider: "two", Latency: dist.Exponential{Rate: 1}},
	}
	b := call(0, sim.FailClosed)
	b.Policy.Primary = 1
	pl := &sim.Pipeline{
		Steps:  []sim.Step{{Name: "a", Call: call(0, sim.FailClosed), FanOut: 1}, {Name: "b", Call: b, FanOut: 1}},
		Stages: []sim.Stage{{Steps: []int{0}}, {Steps: []int{1}}},
	}
	cfg := pipelineConfig(n, models, pl)
	cfg.Arrivals.Rate = rho
	cfg.Providers = []sim.Provider{{Name: "one", Concurrency: 1}, {Name: "two", Concurrency: 1}}
	return cfg
}

// TestPipelineStepRowsBatched: the steps of a pipeline whose calls queue
// (tandemMM1 at ρ = 0.9: each step's p95 is ln 20/0.1 = 29.957 s, its
// mean 10 s) are reported from batches, as the class row is: each step
// row's latency names the batch-means method, its answered share has an
// interval, and its p95 interval is far wider than the order-statistic
// one, which treats the correlated calls as independent (at ρ = 0.9 the
// variance of a quantile estimate is inflated by the queue's memory some
// hundredfold: the half-width is at least 3× the order statistics'). Its
// p95 and mean intervals cover the truth: over 40 seeds at 2·10⁵ requests
// in ≥ 36 per step (a 95 % interval covers in 38 on average; 36 is two
// binomial standard deviations, √(40·0.95·0.05) = 1.38, below); under
// -short over 8 seeds in ≥ 6 (mean 7.6, two standard deviations
// √(8·0.95·0.05) = 0.62 below is 6.4, rounded down).
func TestPipelineStepRowsBatched(t *testing.T) {
	t.Parallel()
	const rho = 0.9
	p95, mean := math.Log(20)/(1-rho), 1/(1-rho)
	seeds, bar := uint64(40), 36
	if testing.Short() {
		seeds, bar = 8, 6
	}
	covP, covM := make([]int, 2), make([]int, 2)
	for seed := uint64(1); seed <= seeds; seed++ {
		cfg := tandemMM1(200_000, rho)
		cfg.Seed = seed
		h := mustRun(t, cfg)
		pr := sim.NewReport(cfg, h, h).Classes[0].Pipeline
		if pr == nil || len(pr.Steps) != 2 {
			t.Fatalf("seed %d: no step rows: %+v", seed, pr)
		}
		for s, st := range pr.Steps {
			l := st.Latency
			if l.CIs == nil || l.CIs.Method != sim.CIMethodBatch || !l.P95CIOK {
				t.Fatalf("seed %d: step %s of a queue is not batched: %+v", seed, st.Step, l.CIs)
			}
			if st.AnsweredShareCI95 == nil || st.KeptCalls <= 0 || st.KeptCalls > st.Calls {
				t.Fatalf("seed %d: step %s: answered share interval %v over %d of %d calls", seed, st.Step, st.AnsweredShareCI95, st.KeptCalls, st.Calls)
			}
			if seed == 1 {
				lo, hi, _ := h.Classes[0].Pipeline.Steps[s].QuantileCI(0.95, 0.95)
				hw, ow := (l.P95CI95[1]-l.P95CI95[0])/2, (hi-lo)/2
				t.Logf("step %s: p95 %.3f, batched [%.3f, %.3f] (half-width %.3f), order statistics [%.3f, %.3f] (%.3f)",
					st.Step, l.P95, l.P95CI95[0], l.P95CI95[1], hw, lo, hi, ow)
				if !(hw >= 3*ow) {
					t.Errorf("step %s: batched p95 half-width %.3f s is not 3× the order statistics' %.3f s", st.Step, hw, ow)
				}
			}
			if c := l.P95CI95; c[0] <= p95 && p95 <= c[1] {
				covP[s]++
			}
			if m := l.CIs.Mean; m[0] <= mean && mean <= m[1] {
				covM[s]++
			}
		}
	}
	t.Logf("p95 %.3f s covered by step a in %d/%d seeds, step b in %d; mean %g s in %d and %d", p95, covP[0], seeds, covP[1], mean, covM[0], covM[1])
	for s := range 2 {
		if covP[s] < bar || covM[s] < bar {
			t.Errorf("step %d: coverage p95 %d/%d, mean %d/%d; want ≥ %d each", s, covP[s], seeds, covM[s], seeds, bar)
		}
	}
}
