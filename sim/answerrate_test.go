package sim_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// mm1Deadline is an M/M/1 queue (Poisson arrivals at lambda/s, exponential
// service at 1/s, one slot) of n requests on seed, with a deadline of d
// whose provider ignores cancels, so that the queue stays M/M/1: a request
// is answered when its sojourn, exponential at 1 − lambda per second, is
// within d.
func mm1Deadline(n int, seed uint64, lambda float64, d time.Duration) *sim.Config {
	return &sim.Config{
		Name: "queue", Seed: seed, Requests: n,
		Arrivals:  sim.Arrivals{Process: sim.Poisson, Rate: lambda},
		Models:    []sim.Model{{Name: "m", Provider: "p", Latency: dist.Exponential{Rate: 1}, PricePerRequest: 1}},
		Providers: []sim.Provider{{Name: "p", Concurrency: 1, IgnoresCancel: true}},
		Classes: []sim.Class{{Name: "c", Share: 1, Deadline: d,
			InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}}},
	}
}

// TestAnswerRateMM1: open traffic whose requests interact reports its
// measured answers per second after the warm-up cut, with an interval. On
// an M/M/1 queue with no deadline every request is answered and the rate
// is λ: at ρ = 0.9 (λ = 0.9/s), 2·10⁵ requests (the size of the issue's
// M/M/1 oracles), the interval covers 0.9 in ≥ 36 of 40 seeds (a 95 %
// interval covers in 38 on average; 36 is two binomial standard
// deviations, √(40·0.05·0.95) ≈ 1.4, below). At ρ = 0.8 with a 10 s
// deadline (cancels ignored, so the queue stays M/M/1) a request is
// answered with probability 1 − e⁻², and the rate is 0.8·(1 − e⁻²) =
// 0.6917/s: covered as often. Under -short, 10 seeds of 2·10⁴ requests,
// ≥ 9 covering.
func TestAnswerRateMM1(t *testing.T) {
	t.Parallel()
	seeds, n := uint64(40), 200_000
	if testing.Short() {
		seeds, n = 10, 20_000
	}
	for _, tc := range []struct {
		lambda float64
		d      time.Duration
		want   float64
	}{{0.9, 0, 0.9}, {0.8, 10 * time.Second, 0.8 * (1 - math.Exp(-2))}} {
		covered := 0
		var half float64
		for seed := uint64(1); seed <= seeds; seed++ {
			cfg := mm1Deadline(n, seed, tc.lambda, tc.d)
			h := mustRun(t, cfg)
			c := sim.NewReport(cfg, h, h).Classes[0]
			r, ci := c.AnsweredPerSecond, c.AnsweredPerSecondCI95
			if r == nil || ci == nil || ci[0] == nil || ci[1] == nil || c.AnsweredPerSecondCIMethod != sim.CIMethodAnswerRate {
				t.Fatalf("λ %v, seed %d: answers per second %v, interval %v, method %q; want a batched rate", tc.lambda, seed, r, ci, c.AnsweredPerSecondCIMethod)
			}
			if !(*ci[0] < *r && *r < *ci[1]) {
				t.Fatalf("λ %v, seed %d: rate %v outside its interval [%v, %v]", tc.lambda, seed, *r, *ci[0], *ci[1])
			}
			if *ci[0] <= tc.want && tc.want <= *ci[1] {
				covered++
			}
			half += (*ci[1] - *ci[0]) / 2 / float64(seeds)
		}
		t.Logf("λ %v, deadline %v: answers per second %.4f covered in %d/%d seeds, mean half-width %.4f", tc.lambda, tc.d, tc.want, covered, seeds, half)
		if need := int(seeds) - int(seeds)/10; covered < need {
			t.Errorf("λ %v: the rate's interval covers %.4f in %d/%d seeds, want ≥ %d", tc.lambda, tc.want, covered, seeds, need)
		}
	}
}

// TestAnswerRateAbsent: independent requests (no queue) and closed-loop
// clients (which report their throughput) give no answers per second: the
// report's JSON has no answered_per_s.
func TestAnswerRateAbsent(t *testing.T) {
	free := mm1Deadline(2000, 1, 0.9, 0)
	free.Providers[0].Concurrency = 0
	closed := mm1Deadline(2000, 1, 0.9, 0)
	closed.Classes[0].Clients, closed.Classes[0].Share = 4, 0
	for name, cfg := range map[string]*sim.Config{"independent": free, "closed loop": closed} {
		h := mustRun(t, cfg)
		b, err := json.Marshal(sim.NewReport(cfg, h, h))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "answered_per_s") {
			t.Errorf("%s: the report gives answered_per_s", name)
		}
	}
}
