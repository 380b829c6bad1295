package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestPipelineSharesBatched: a guard step, fail-open at a step deadline of
// 10 s, on an M/M/1 queue at ρ = 0.8 (Poisson 0.8/s, exponential service
// at 1/s) whose provider ignores cancels — so a guard call that times out
// still runs to its end and the queue stays M/M/1 — then a chat step of
// its own. A turn is checked when its guard call's sojourn, exponential at
// rate μ − λ = 0.2/s, is within 10 s: with probability 1 − e⁻² = 0.8647,
// and degraded otherwise. The requests interact, so the shares are
// batched after the end-to-end warm-up cut (shares_ci95_method says so);
// at 5·10⁴ requests, over 40 seeds, the intervals of the checked and the
// degraded share each cover the truth in ≥ 36 (a 95 % interval covers in
// 38 on average; 36 is two binomial standard deviations, √(40·0.05·0.95)
// ≈ 1.4, below), and the four shares sum to 1. Wilson's interval, which
// assumes independent requests, covers the checked share in at most half
// of the seeds. The step rows are batched the same way: the guard step's
// degraded share is the pipeline's, with the same interval (only the
// guard degrades a turn), the chat step's is 0, and the guard step's
// answered share — of its calls kept, answered when within 10 s, with
// probability 1 − e⁻² — has an interval covering it in ≥ 36 seeds too.
// Under -short over 8 seeds: each covers in ≥ 6 (mean 7.6, two standard
// deviations √(8·0.95·0.05) = 0.62 below is 6.4, rounded down), and
// Wilson's in at most 4.
func TestPipelineSharesBatched(t *testing.T) {
	t.Parallel()
	checked := 1 - math.Exp(-2)
	models := []sim.Model{
		{Name: "guard", Provider: "q", Latency: dist.Exponential{Rate: 1}},
		{Name: "chat", Provider: "chat", Latency: dist.Constant{Value: 0.5}},
	}
	guard := call(10*time.Second, sim.FailOpen)
	chat := call(0, sim.FailClosed)
	chat.Policy.Primary = 1
	pl := &sim.Pipeline{
		Steps:  []sim.Step{{Name: "guard", Call: guard, FanOut: 1}, {Name: "chat", Call: chat, FanOut: 1, InputFrom: []sim.TokenRef{{Step: 0}}}},
		Stages: []sim.Stage{{Steps: []int{0}}, {Steps: []int{1}}},
	}
	seeds, bar := uint64(40), 36
	if testing.Short() {
		seeds, bar = 8, 6
	}
	covC, covD, covW, covA := 0, 0, 0, 0
	var half float64
	for seed := uint64(1); seed <= seeds; seed++ {
		cfg := pipelineConfig(50_000, models, pl)
		cfg.Arrivals.Rate = 0.8
		cfg.Providers = []sim.Provider{{Name: "q", Concurrency: 1, IgnoresCancel: true}}
		cfg.Seed = seed
		h := mustRun(t, cfg)
		p := sim.NewReport(cfg, h, h).Classes[0].Pipeline
		if p == nil || p.CheckedShareCI95 == nil || p.DegradedShareCI95 == nil || p.SharesCIMethod != sim.CIMethodPipelineBatch {
			t.Fatalf("seed %d: the shares of a queued pipeline are not batched: %+v", seed, p)
		}
		if s := p.CheckedShare + p.DegradedShare + p.FailedShare + p.TimedOutShare; math.Abs(s-1) > 1e-12 {
			t.Errorf("seed %d: the shares sum to %v", seed, s)
		}
		c, d := p.CheckedShareCI95, p.DegradedShareCI95
		if !(*c[0] <= p.CheckedShare && p.CheckedShare <= *c[1]) {
			t.Fatalf("seed %d: checked share %v outside its interval [%v, %v]", seed, p.CheckedShare, *c[0], *c[1])
		}
		if *c[0] <= checked && checked <= *c[1] {
			covC++
		}
		if *d[0] <= 1-checked && 1-checked <= *d[1] {
			covD++
		}
		half += (*c[1] - *c[0]) / 2 / float64(seeds)
		g, ch := p.Steps[0], p.Steps[1]
		if g.DegradedShareCI95 == nil || ch.DegradedShareCI95 == nil || g.AnsweredShareCI95 == nil {
			t.Fatalf("seed %d: the step rows' shares of a queued pipeline are not batched: %+v", seed, p.Steps)
		}
		if g.DegradedShare != p.DegradedShare || *g.DegradedShareCI95[0] != *d[0] || *g.DegradedShareCI95[1] != *d[1] || ch.DegradedShare != 0 {
			t.Fatalf("seed %d: degraded shares: guard %v %v, chat %v; want the pipeline's %v [%v, %v] and 0", seed, g.DegradedShare, g.DegradedShareCI95, ch.DegradedShare, p.DegradedShare, *d[0], *d[1])
		}
		if a := g.AnsweredShareCI95; *a[0] <= checked && checked <= *a[1] {
			covA++
		}
		if w := sim.WilsonCI(h.Classes[0].Pipeline.Checked, h.Classes[0].Requests); w[0] <= checked && checked <= w[1] {
			covW++
		}
	}
	t.Logf("checked share %.4f covered in %d/%d seeds, degraded %.4f in %d/%d; mean half-width %.4f; Wilson's covers the checked share in %d/%d", checked, covC, seeds, 1-checked, covD, seeds, half, covW, seeds)
	t.Logf("the guard step's answered share covers %.4f in %d/%d seeds", checked, covA, seeds)
	if covC < bar || covD < bar || covA < bar {
		t.Errorf("coverage: checked %d/%d, degraded %d/%d, guard step answered %d/%d; want ≥ %d each", covC, seeds, covD, seeds, covA, seeds, bar)
	}
	if covW > int(seeds)/2 {
		t.Errorf("Wilson's interval covers the checked share in %d/%d seeds: the queue's correlation should make it far too narrow", covW, seeds)
	}
}
