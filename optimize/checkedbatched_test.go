package optimize_test

import (
	"math"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// queuedTurn is a pipeline turn whose answer step queues: one server
// (concurrency 1) with exponential service of mean 0.1 s under Poisson
// arrivals at 9/s, an M/M/1 queue at ρ = 0.9 (mean time in the system
// 1/(μ − λ) = 1 s, its tail e^{−(μ−λ)t}), behind a fail-open guard.
const queuedTurn = `
seed = 5
requests = 20000
[arrivals]
process = "poisson"
rate = 9.0
[providers.pc]
concurrency = 1
[providers.pg]
[models.g]
provider = "pg"
latency = { kind = "lognormal", mu = -2.5, sigma = 0.5 }
[models.chat]
provider = "pc"
latency = { kind = "exponential", rate = 10.0 }
[[classes]]
name = "turn"
share = 1.0
deadline = "60s"
[[classes.steps]]
name = "guard"
deadline = "0.3s"
on_timeout = "fail_open"
[classes.steps.hedge]
primary = "g"
[[classes.steps]]
name = "answer"
[classes.steps.hedge]
primary = "chat"
`

// TestCheckCheckedShareBatched: under objective checked, the share of a
// pipeline's turns checked within the target, in a run whose requests
// interact (the M/M/1 queue of queuedTurn at ρ = 0.9), gets its interval
// from the 30 batches of the checked end-to-end times
// (sim.PipelineResult.CheckedTimes, sim.BatchShareInterval), as the
// answered share's does, not Wilson's: once it had none (null) and
// retune fell back to Wilson's. Consecutive turns share the queue, so
// the batch shares vary far more than independent turns would (the
// sojourn times of consecutive turns in an M/M/1 queue at ρ = 0.9 are
// strongly correlated): the interval must be at least twice Wilson's
// width; with seed 5 it is about 10 times, ±6.7 points against ±0.68 for
// 20 000 turns. The interval must be the batches' exactly.
func TestCheckCheckedShareBatched(t *testing.T) {
	sc, err := scenario.Parse("queued.toml", []byte(queuedTurn))
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(&sc.Config)
	if err != nil {
		t.Fatal(err)
	}
	r := &res.Classes[0]
	if !r.Batched() || r.Pipeline == nil {
		t.Fatal("premise: the pipeline's requests do not interact")
	}
	o := optimize.Objective{Goal: optimize.MostAnswered, Checked: true, Target: time.Second}
	share, ci, ok := optimize.WithinShare(o, r, 0.95)
	if !ok || ci == nil || ci[0] == nil || ci[1] == nil {
		t.Fatalf("checked within 1 s: %v, interval %v; want one from batches", share, ci)
	}
	ct := r.Pipeline.CheckedTimes()
	if !ct.Batched() {
		t.Fatal("the checked times are not batched")
	}
	_, per, _, _ := ct.GridShares(1)
	want := sim.BatchShareInterval(share, per, 0.95)
	if *ci[0] != want[0] || *ci[1] != want[1] {
		t.Errorf("interval [%v, %v], want the batches' %v", *ci[0], *ci[1], want)
	}
	z := distuv.UnitNormal.Quantile(0.975)
	hw := z * math.Sqrt(share*(1-share)/float64(r.Requests))
	if w := (*ci[1] - *ci[0]) / 2; !(w > 2*hw) {
		t.Errorf("checked within 1 s %.4f: the batches' half-width %.4f, not over twice Wilson's %.4f", share, w, hw)
	} else {
		t.Logf("checked within 1 s %.4f of %d: batches ±%.4f, Wilson ±%.4f", share, r.Requests, w, hw)
	}
}
