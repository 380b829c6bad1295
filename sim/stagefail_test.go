package sim_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
	"gonum.org/v1/gonum/stat/distuv"
)

// forever is a mean period far longer than the runs below (200 s): an
// outage or a degraded period of this mean, entered at the start (the
// process starts in its stationary state: up with probability
// 10 ms ÷ 1000 h ≈ 3·10⁻⁹), covers the run.
const forever = 1000 * time.Hour

// stageFailConfig: 2000 requests at 10/s to model m (constant 0.2 s) on
// provider p, whose failures send a fallback copy at once (nonfatal) to
// model b (constant 0.5 s) on provider q, which never fails.
func stageFailConfig() *sim.Config {
	return &sim.Config{
		Name: "stagefail", Seed: 1, Requests: 2000,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 10},
		Models: []sim.Model{
			{Name: "m", Provider: "p", Latency: dist.Constant{Value: 0.2}},
			{Name: "b", Provider: "q", Latency: dist.Constant{Value: 0.5}},
		},
		Providers: []sim.Provider{{Name: "p"}, {Name: "q"}},
		Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
			Policy: sim.Policy{Primary: 0, Targets: []int{1}, Copies: 1, Delays: []time.Duration{-1}, OnError: sim.NonFatal}}},
	}
}

// stageFailures are the ways stageFailConfig's provider p can fail every
// attempt by its state: a pool's replica down (batching or not: a failed
// attempt is not batched), a replica's own degraded
// period with error rate 1, the provider's degraded period with error
// rate 1 (and with a slowdown of 2) — each for the whole run.
var stageFailures = map[string]func(*sim.Provider){
	"pool down": func(p *sim.Provider) {
		p.Pool = &sim.Pool{Replicas: 1, Down: &sim.Down{MeanUp: sim.MinDegradedPeriod, MeanDown: forever}}
	},
	"batching pool down": func(p *sim.Provider) {
		p.Pool = &sim.Pool{Replicas: 1, Down: &sim.Down{MeanUp: sim.MinDegradedPeriod, MeanDown: forever},
			Batching: &sim.Batching{Base: 30, Contention: 1}}
	},
	"replica degraded": func(p *sim.Provider) {
		p.Pool = &sim.Pool{Replicas: 2, Balancer: sim.RoundRobin,
			Degraded: &sim.Degraded{MeanNormal: sim.MinDegradedPeriod, MeanDegraded: forever, Slowdown: 1, ErrorRate: 1}}
	},
	"provider degraded": func(p *sim.Provider) {
		p.Degraded = &sim.Degraded{MeanNormal: sim.MinDegradedPeriod, MeanDegraded: forever, Slowdown: 1, ErrorRate: 1}
	},
	"provider degraded, slowdown 2": func(p *sim.Provider) {
		p.Degraded = &sim.Degraded{MeanNormal: sim.MinDegradedPeriod, MeanDegraded: forever, Slowdown: 2, ErrorRate: 1}
	},
}

// TestStageFailureAfterErrorLatency: an attempt failed by its provider's
// or replica's state — a replica down, a degraded period with an error
// rate — comes back after its model's server-error latency, as a server
// error (5xx) of the model's own does: with error_latency (or
// failures.server_error's latency) a constant 0.05 s, every request's
// primary fails at 0.05 s and its fallback answers 0.5 s later, at 0.55
// s exactly; without one, the failure comes when the call would have
// completed, at 0.2 s, and the request at 0.7 s. A degraded period's
// slowdown of 2 stretches the failure's time as it does all service: 0.1
// s (0.4 s without an error latency), the request at 0.6 s (0.9 s).
// Constant times: exact.
func TestStageFailureAfterErrorLatency(t *testing.T) {
	t.Parallel()
	errLat := dist.Constant{Value: 0.05}
	for name, fail := range stageFailures {
		for _, v := range []struct {
			name    string
			set     func(*sim.Model)
			primary float64 // when the primary's failure comes back, without a slowdown
		}{
			{"error_latency", func(m *sim.Model) { m.ErrorLatency = errLat }, 0.05},
			{"server_error latency", func(m *sim.Model) {
				m.Failures.ServerError = sim.Failure{Rate: 0.1, Latency: errLat}
			}, 0.05},
			{"no error latency", func(*sim.Model) {}, 0.2},
		} {
			slow := 1.0
			if strings.HasSuffix(name, "slowdown 2") {
				slow = 2
			}
			primary, answeredAt := v.primary*slow, v.primary*slow+0.5
			cfg := stageFailConfig()
			fail(&cfg.Providers[0])
			v.set(&cfg.Models[0])
			if err := cfg.Validate(); err != nil {
				t.Fatalf("%s, %s: %v", name, v.name, err)
			}
			primaries, wrong := 0, 0
			res, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) {
				if r.Attempt != 0 {
					return
				}
				primaries++
				if d := (r.End - r.Start).Seconds(); r.Outcome != "failed" || math.Abs(d-primary) > 1e-9 {
					if wrong++; wrong == 1 {
						t.Errorf("%s, %s: request %d's primary %s after %.9f s; want failed after %v s",
							name, v.name, r.Request, r.Outcome, d, primary)
					}
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			c := &res.Classes[0]
			if primaries != cfg.Requests || c.Answered != int64(cfg.Requests) || c.Attempts.FailedByKind.ServerError != int64(cfg.Requests) {
				t.Errorf("%s, %s: %d primaries, %d answered, %d server errors; want %d of each",
					name, v.name, primaries, c.Answered, c.Attempts.FailedByKind.ServerError, cfg.Requests)
			}
			// Latencies are float32 seconds: within 2⁻²⁴ of 0.55 relative.
			for _, x := range c.Latencies() {
				if math.Abs(x-answeredAt) > 1e-6 {
					t.Errorf("%s, %s: a request answered at %v s; want every one at %v s", name, v.name, x, answeredAt)
					break
				}
			}
		}
	}
}

// TestStageFailurePeriodsOnlyFailTheirAttempts: with outages of mean 10 s
// every 30 s on the replica (and likewise degraded periods with error
// rate 1), a request whose primary starts service in one answers at 0.55
// s (error latency 0.05 s, then the fallback's 0.5 s), every other one at
// 0.2 s, its primary's latency: both kinds occur, and no other latency.
func TestStageFailurePeriodsOnlyFailTheirAttempts(t *testing.T) {
	t.Parallel()
	for name, set := range map[string]func(*sim.Provider){
		"pool down": func(p *sim.Provider) {
			p.Pool = &sim.Pool{Replicas: 1, Down: &sim.Down{MeanUp: 30 * time.Second, MeanDown: 10 * time.Second}}
		},
		"provider degraded": func(p *sim.Provider) {
			p.Degraded = &sim.Degraded{MeanNormal: 30 * time.Second, MeanDegraded: 10 * time.Second, Slowdown: 1, ErrorRate: 1}
		},
	} {
		cfg := stageFailConfig()
		set(&cfg.Providers[0])
		cfg.Models[0].ErrorLatency = dist.Constant{Value: 0.05}
		failed := make([]bool, cfg.Requests)
		res, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) {
			if r.Attempt == 0 && r.Outcome == "failed" {
				failed[r.Request] = true
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		nFailed := 0
		for _, f := range failed {
			if f {
				nFailed++
			}
		}
		if nFailed == 0 || nFailed == cfg.Requests {
			t.Fatalf("%s: %d of %d primaries failed; the test needs both kinds", name, nFailed, cfg.Requests)
		}
		slow, fast := 0, 0
		for _, x := range res.Classes[0].Latencies() {
			switch {
			case math.Abs(x-0.55) < 1e-6:
				slow++
			case math.Abs(x-0.2) < 1e-6:
				fast++
			default:
				t.Fatalf("%s: a request answered at %v s; want 0.2 s or 0.55 s", name, x)
			}
		}
		if slow != nFailed || fast != cfg.Requests-nFailed {
			t.Errorf("%s: %d requests at 0.55 s, %d at 0.2 s; want %d, %d", name, slow, fast, nFailed, cfg.Requests-nFailed)
		}
	}
}

// TestStageFailureDrawsAsModelError: a stage failure's latency is drawn
// from the attempt's own stream where a server error of the model's own
// draws it, right after the attempt's latency, and drawing it changes
// none of the attempt's other draws. With a lognormal latency and a
// uniform error latency, every primary's failure comes back after the
// same time whether the model fails it (error_rate 1, at a provider
// without slow periods) or a stage does (error_rate 0, a degraded
// period with error rate 1 covering the run), and whether the class
// hedges with a fallback or not (common random numbers); and at a
// provider whose degraded periods fail half the attempts, every attempt
// that answers takes the latency it takes where nothing fails.
func TestStageFailureDrawsAsModelError(t *testing.T) {
	t.Parallel()
	base := func() *sim.Config {
		cfg := stageFailConfig()
		cfg.Models[0].Latency = dist.LogNormal{Mu: math.Log(0.3), Sigma: 0.6}
		cfg.Models[0].ErrorLatency = dist.Uniform{Min: 0.05, Max: 0.5}
		return cfg
	}
	primaries := func(cfg *sim.Config) (out []time.Duration, outcome []string) {
		out, outcome = make([]time.Duration, cfg.Requests), make([]string, cfg.Requests)
		if _, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) {
			if r.Attempt == 0 {
				out[r.Request], outcome[r.Request] = r.End-r.Start, r.Outcome
			}
		}); err != nil {
			t.Fatal(err)
		}
		return out, outcome
	}
	own := base()
	own.Models[0].ErrorRate = 1
	byStage := base()
	stageFailures["provider degraded"](&byStage.Providers[0])
	unhedged := base()
	stageFailures["provider degraded"](&unhedged.Providers[0])
	unhedged.Classes[0].Policy = sim.Policy{Primary: 0}
	want, _ := primaries(own)
	for name, cfg := range map[string]*sim.Config{"stage": byStage, "stage, unhedged": unhedged} {
		got, outcome := primaries(cfg)
		for i := range want {
			if got[i] != want[i] || outcome[i] != "failed" {
				t.Fatalf("%s: request %d's primary %s after %v; want failed after %v, as the model's own error", name, i, outcome[i], got[i], want[i])
			}
		}
	}
	plain := base()
	half := base()
	half.Providers[0].Degraded = &sim.Degraded{MeanNormal: sim.MinDegradedPeriod, MeanDegraded: forever, Slowdown: 1, ErrorRate: 0.5}
	want, _ = primaries(plain)
	got, outcome := primaries(half)
	answered := 0
	for i := range want {
		if outcome[i] == "completed" {
			answered++
			if got[i] != want[i] {
				t.Fatalf("request %d's primary answered after %v; want %v, its latency where nothing fails", i, got[i], want[i])
			}
		}
	}
	if answered == 0 || answered == len(want) {
		t.Fatalf("%d of %d primaries answered; the test needs both kinds", answered, len(want))
	}
}

// TestBreakerOutagePaysTimeout: in the shipped breaker-outage.toml every
// call in an outage fails after the models' 5 s error_latency; class
// plain, without a breaker, sends its fallback copy only after that
// failure, so each of its requests that sent the copy takes at least 5 s
// — the share of its latencies at or over 5 s is at least its hedged
// share. The rest reach 5 s only when their primary's own latency does
// (lognormal, median 0.6 s, p95 1.5 s: P(X ≥ 5 s) = 1 − Φ(ln(5/0.6) ÷ σ)
// with σ = ln(1.5/0.6) ÷ 1.645, about 7·10⁻⁵), so the excess stays
// within that share plus 5 binomial standard deviations. Class guarded's
// breaker fails calls at once once open, so fewer of its requests pay
// the 5 s; its p95 is below plain's.
func TestBreakerOutagePaysTimeout(t *testing.T) {
	t.Parallel()
	sc, err := scenario.LoadFS(scenarios.FS, "breaker-outage.toml")
	if err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, &sc.Config) // 200 000 requests: about 5 outage cycles
	over := map[string]int{}
	for i := range res.Classes {
		c := &res.Classes[i]
		for _, x := range c.Latencies() {
			if x >= 5 {
				over[c.Name]++
			}
		}
	}
	var plain, guarded *sim.ClassResult
	for i := range res.Classes {
		switch res.Classes[i].Name {
		case "plain":
			plain = &res.Classes[i]
		case "guarded":
			guarded = &res.Classes[i]
		}
	}
	if plain == nil || guarded == nil {
		t.Fatalf("classes %v; want plain and guarded", res.Classes)
	}
	n := float64(plain.Requests)
	hedged := float64(plain.Hedged) / n
	if hedged < 0.01 {
		t.Fatalf("plain: %.4f of requests hedged; the test needs outages in the run", hedged)
	}
	sigma := math.Log(1.5/0.6) / 1.645
	p := distuv.UnitNormal.Survival(math.Log(5/0.6) / sigma)
	share := float64(over["plain"]) / n
	if tol := p + 5*math.Sqrt(p*(1-p)/n); share < hedged || share > hedged+tol {
		t.Errorf("plain: %.4f of requests took ≥ 5 s, %.4f sent the fallback; want the first in [%.4f, %.4f]",
			share, hedged, hedged, hedged+tol)
	}
	if over["guarded"] >= over["plain"] {
		t.Errorf("guarded: %d requests took ≥ 5 s, plain %d; want fewer behind the breaker", over["guarded"], over["plain"])
	}
	qg, qp := guarded.Quantiles(0.95), plain.Quantiles(0.95)
	if !(qg[0] < qp[0]) {
		t.Errorf("p95: guarded %.3f s, plain %.3f s; want guarded's below", qg[0], qp[0])
	}
}
