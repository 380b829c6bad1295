package optimize_test

import (
	"math"
	"strings"
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

// queuedDeadline is one class behind an M/M/1 queue at ρ = 0.9 (one
// server, exponential service of mean 0.1 s, Poisson arrivals at 9/s)
// with a 2 s deadline, hedged after 1 s to a second, idle model.
const queuedDeadline = `
seed = 11
requests = 10000
[arrivals]
process = "poisson"
rate = 9.0
[providers.pq]
concurrency = 1
[providers.pr]
[models.q]
provider = "pq"
latency = { kind = "exponential", rate = 10.0 }
[models.r]
provider = "pr"
latency = { kind = "exponential", rate = 10.0 }
[[classes]]
name = "c"
share = 1.0
deadline = "2s"
[classes.hedge]
primary = "q"
targets = ["r"]
delay = "1s"
max_copies = 1
`

// TestCheckAnsweredRisePaired: the rollout check gives, for a class whose
// requests interact, the interval of the paired difference of the
// answered shares with and without hedging over the two runs' batches
// (paired_answered_rise_ci): it holds the difference of the two shares
// and, the runs sharing their random numbers, is narrower than the
// check's own interval of its answered share from batches (seed 11:
// 98.87 % → 100 %, paired [+0.58, +1.69] points, the check's own
// [88.65 %, 100 %], the bound of 30 batch shares all at 1). Independent
// requests (the same class without the queue) have none.
func TestCheckAnsweredRisePaired(t *testing.T) {
	for _, queued := range []bool{true, false} {
		src := queuedDeadline
		if !queued {
			src = strings.Replace(src, "concurrency = 1\n", "", 1)
		}
		sc, err := scenario.Parse("queued.toml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		s := sc.Optimize
		s.Requests, s.CheckRequests = 10000, 10000
		rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
		rc := rep.Rollout.Classes[0]
		if !queued {
			if rc.AnsweredRiseCI != nil {
				t.Errorf("independent requests: a paired difference %v", rc.AnsweredRiseCI)
			}
			continue
		}
		own := rep.Rollout.Report.Classes[0].AnsweredShareCI95
		if rc.AnsweredRiseCI == nil || own == nil || own[0] == nil || own[1] == nil {
			t.Fatalf("queued: paired difference %v, the check's own interval %v; want both", rc.AnsweredRiseCI, own)
		}
		lo, hi, d := *rc.AnsweredRiseCI[0], *rc.AnsweredRiseCI[1], rc.AnsweredShare-rc.NoHedgingAnswered
		t.Logf("answered %.4f → %.4f; paired [%+.4f, %+.4f]; own [%.4f, %.4f]", rc.NoHedgingAnswered, rc.AnsweredShare, lo, hi, *own[0], *own[1])
		if !(lo <= d && d <= hi) || !(hi-lo < *own[1]-*own[0]) {
			t.Errorf("paired [%v, %v]: want it to hold the difference %v and be narrower than the check's own [%v, %v]", lo, hi, d, *own[0], *own[1])
		}
	}
}
