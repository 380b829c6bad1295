package sim_test

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestPlainCopulaDrawsMatchGeneral: with a copula, the attempts of a model
// that fails in no way and stalls not are drawn by draw's plain branch
// for them; a run gives the result, and ends its attempts in the order,
// that drawing every attempt by the general branch gives — for a one-draw
// latency and a streamed one with a prefill speed, with 429s from a rate
// limit, a request retry on attempt timeouts (re-runs: the first round's
// innovations) and an attempt retry on 429s (retried calls).
func TestPlainCopulaDrawsMatchGeneral(t *testing.T) {
	t.Parallel()
	lat := dist.LogNormal{Mu: math.Log(0.3), Sigma: 0.6}
	base := func() *sim.Config {
		return &sim.Config{
			Name: "providers", Seed: 3, Requests: 10_000,
			Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 25},
			Models: []sim.Model{
				{Name: "a", Provider: "pa", Latency: lat, PriceInputPerMTok: 1},
				{Name: "b", Provider: "pb", Latency: lat, PriceInputPerMTok: 1},
			},
			Providers: []sim.Provider{
				{Name: "pa", Concurrency: 16, Degraded: &sim.Degraded{MeanNormal: time.Minute, MeanDegraded: 5 * time.Second, Slowdown: 3}},
				{Name: "pb", RateLimit: sim.RateLimit{RequestsPerMinute: 300, Burst: 5 * time.Second, RejectLatency: 20 * time.Millisecond}},
			},
			Correlation: sim.Correlation{SameModel: 0.5, SameProvider: 0.5, CrossProvider: 0.2},
			Classes: []sim.Class{{Name: "c", Share: 1, Deadline: 10 * time.Second,
				InputTokens: dist.Constant{Value: 500}, OutputTokens: dist.Uniform{Min: 20, Max: 200},
				Policy: sim.Policy{Targets: []int{1}, Copies: 1, Delays: []time.Duration{400 * time.Millisecond},
					OnError: sim.Ignore, CancelLatency: 50 * time.Millisecond}}},
		}
	}
	streamed := base()
	streamed.Models[1].Latency = nil
	streamed.Models[1].TTFT = dist.LogNormal{Mu: math.Log(0.25), Sigma: 0.5}
	streamed.Models[1].TokensPerSecond = dist.Uniform{Min: 60, Max: 100}
	streamed.Models[1].PrefillTokensPerSecond = dist.Uniform{Min: 2000, Max: 4000}
	retried := base()
	retried.Classes[0].Policy.AttemptTimeout = 700 * time.Millisecond
	retried.Classes[0].Retry = &sim.Retry{MaxAttempts: 3, MaxBackoff: time.Second, Multiplier: 1,
		Jitter: sim.JitterNone, On: sim.RetryAttemptTimeout}
	ar := *streamed
	attemptRetried := &ar
	attemptRetried.Classes = append([]sim.Class(nil), streamed.Classes...)
	attemptRetried.Classes[0].AttemptRetry = &sim.Retry{MaxAttempts: 2, MaxBackoff: 100 * time.Millisecond, Multiplier: 1,
		Jitter: sim.JitterNone, On: sim.DefaultRetryOn}
	for name, cfg := range map[string]*sim.Config{"latency": base(), "streamed": streamed, "retried": retried, "attempt-retried": attemptRetried} {
		if err := cfg.Validate(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plain, general []sim.AttemptRecord
		a := sim.RunGlobal(cfg, func(r *sim.AttemptRecord) { plain = append(plain, *r) })
		b, n := sim.RunGeneralDraws(cfg, func(r *sim.AttemptRecord) { general = append(general, *r) })
		if n != len(cfg.Models) {
			t.Fatalf("%s: %d of %d models drawn plain with the copula: the plain branch went untested", name, n, len(cfg.Models))
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: the plain draws changed the result:\n%+v\n%+v", name, a.Overall.Attempts, b.Overall.Attempts)
		}
		if !reflect.DeepEqual(plain, general) {
			t.Fatalf("%s: the plain draws changed the attempts (%d and %d records)", name, len(plain), len(general))
		}
		if len(plain) == 0 {
			t.Fatalf("%s: no attempt recorded", name)
		}
	}
}
