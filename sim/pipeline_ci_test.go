package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestPipelineSharesWilson: the help-chat turn of TestHelpChatTurnChecksBoth
// (independent requests) is checked with probability 0.875² = 0.765625 and
// degraded otherwise (every turn goes through). At 2000 requests, over 40
// seeds, the report's Wilson intervals of the checked and the degraded
// share each cover the true share in ≥ 36 (a 95 % interval covers in 38 on
// average; 36 is two binomial standard deviations below), and say their
// method.
func TestPipelineSharesWilson(t *testing.T) {
	models, g := guardCheck(t)
	chat := call(0, sim.FailClosed)
	chat.Policy.Primary = 1
	models = append(models, sim.Model{Name: "chat", Provider: "chat", Latency: dist.Uniform{Min: 1, Max: 2}})
	pl := &sim.Pipeline{
		Steps: []sim.Step{
			{Name: "guard-question", Call: g, FanOut: 1},
			{Name: "chat", Call: chat, FanOut: 1, InputFrom: []sim.TokenRef{{Step: 0}}, Visible: true}, // the answer step
			{Name: "guard-answer", Call: g, FanOut: 1, InputFrom: []sim.TokenRef{{Step: 0}, {Step: 1, Output: true}}},
		},
		Stages: []sim.Stage{{Steps: []int{0}}, {Steps: []int{1}}, {Steps: []int{2}}},
	}
	const checked = 0.875 * 0.875
	covC, covD := 0, 0
	for seed := uint64(1); seed <= 40; seed++ {
		cfg := pipelineConfig(2000, models, pl)
		cfg.Seed = seed
		r := sim.NewReport(cfg, mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg)))
		p := r.Classes[0].Pipeline
		if p == nil || p.CheckedShareCI95 == nil || p.DegradedShareCI95 == nil || p.SharesCIMethod == "" {
			t.Fatalf("seed %d: no intervals of the checked and degraded shares: %+v", seed, p)
		}
		if c := p.CheckedShareCI95; *c[0] <= checked && checked <= *c[1] {
			covC++
		}
		if d := p.DegradedShareCI95; *d[0] <= 1-checked && 1-checked <= *d[1] {
			covD++
		}
	}
	t.Logf("checked share %.4f covered in %d/40 seeds, degraded %.4f in %d/40", checked, covC, 1-checked, covD)
	if covC < 36 || covD < 36 {
		t.Errorf("coverage: checked %d/40, degraded %d/40; want ≥ 36 each", covC, covD)
	}
}

// TestPipelineEndToEndBatched: two steps in tandem, each an M/M/1 queue of
// its own at ρ = 0.8 (Poisson 0.8/s, exponential service at 1/s). By
// Burke's theorem a request's sojourns at the two queues are independent,
// each exponential at rate μ − λ = 0.2/s, so its end-to-end time is
// Gamma(2, 0.2/s): mean 10 s, p95 the root of e^{−x}(1 + x) = 0.05 over
// 0.2/s, 23.719 s. The requests interact, so the pipeline's end-to-end
// figures are batched after a warm-up cut (ci95_method says so); at 2·10⁵
// requests, over 40 seeds, the intervals of the mean and of the p95 each
// cover the truth in ≥ 36 (a 95 % interval covers in 38 on average; 36 is
// two binomial standard deviations below).
func TestPipelineEndToEndBatched(t *testing.T) {
	if testing.Short() {
		t.Skip("40 runs of 2·10⁵ pipeline requests")
	}
	const mean, p95 = 10.0, 23.719322591952892
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
	covM, covP := 0, 0
	for seed := uint64(1); seed <= 40; seed++ {
		cfg := pipelineConfig(200_000, models, pl)
		cfg.Arrivals.Rate = 0.8
		cfg.Providers = []sim.Provider{{Name: "one", Concurrency: 1}, {Name: "two", Concurrency: 1}}
		cfg.Seed = seed
		h := mustRun(t, cfg)
		e := sim.NewReport(cfg, h, h).Classes[0].Pipeline.EndToEnd
		if e.CIs == nil || e.CIs.Method != sim.CIMethodBatch || !e.P95CIOK {
			t.Fatalf("seed %d: the end-to-end figures of a queue are not batched: %+v", seed, e.CIs)
		}
		if m := e.CIs.Mean; m[0] <= mean && mean <= m[1] {
			covM++
		}
		if c := e.P95CI95; c[0] <= p95 && p95 <= c[1] {
			covP++
		}
	}
	t.Logf("end to end: the mean's interval covers %g s in %d/40 seeds, the p95's covers %.3f s in %d/40", mean, covM, p95, covP)
	if covM < 36 || covP < 36 {
		t.Errorf("coverage: mean %d/40, p95 %d/40; want ≥ 36 each", covM, covP)
	}
}

// TestPipelineEndToEndMeanIndependent: two independent unhedged steps in
// sequence, U(0, 1) s then Exp(1/s) (TestPipelineSequenceConvolves), under
// an end-to-end deadline of 2 s that cuts the slow ones: a request ends at
// min(U + X, 2), whose mean is ∫₀² P(U + X > t) dt = 2 − ∫₀² F(t) dt with
// F the convolution's CDF. The end-to-end mean counts every request, cut
// ones at the deadline, so its interval needs the squares of the misses'
// times as well as the answered ones' (it was a point before). At 2000
// requests, over 40 seeds, the normal interval covers the mean in ≥ 36 (a
// 95 % interval covers in 38 on average; 36 is two binomial standard
// deviations below) and is never a point.
func TestPipelineEndToEndMeanIndependent(t *testing.T) {
	models, pl := uniformThenExp()
	// F(t) = ∫₀^min(1,t) (1 − e^{−(t−u)}) du = m − e^{−t}(e^m − 1), m = min(1, t);
	// ∫₀² F = ∫₀¹ (t − e^{−t}(e^t − 1)) dt + ∫₁² (1 − e^{−t}(e − 1)) dt
	//       = (1/2 − 1 + (1 − e^{−1})) + (1 − (e − 1)(e^{−1} − e^{−2})).
	e := math.E
	intF := (0.5 - 1 + (1 - 1/e)) + (1 - (e-1)*(1/e-1/(e*e)))
	mean := 2 - intF
	cov := 0
	for seed := uint64(1); seed <= 40; seed++ {
		cfg := pipelineConfig(2000, models, pl)
		cfg.Seed = seed
		cfg.Classes[0].Deadline = 2 * time.Second
		h := mustRun(t, cfg)
		r := sim.NewReport(cfg, h, h).Classes[0].Pipeline.EndToEnd
		if r.CIs == nil || !(r.CIs.Mean[0] < r.CIs.Mean[1]) {
			t.Fatalf("seed %d: the end-to-end mean %.4f has no interval: %+v", seed, r.Mean, r.CIs)
		}
		if m := r.CIs.Mean; m[0] <= mean && mean <= m[1] {
			cov++
		}
	}
	t.Logf("end-to-end mean %.4f s covered in %d/40 seeds", mean, cov)
	if cov < 36 {
		t.Errorf("coverage %d/40; want ≥ 36", cov)
	}
}
