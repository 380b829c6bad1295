package sim_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// stragglerPool is a pool of 4 replicas of 4 slots under round robin, with
// replica 1 six times slower; calls are lognormal with median 1 s and p95
// 2 s, so E[S] = exp(σ²/2) with σ = ln 2 / z₀.₉₅ (1.0936 s), and the class
// sends no copy (the run and its baseline are the same). Round robin
// sends each replica a quarter of the arrivals whatever its queue, so
// replica 1 is offered ρ₁ = (λ/4)·6·E[S]/4 and the others ρ = (λ/4)·E[S]/4;
// the pool as a whole is at most (3ρ + min(ρ₁, 1))/4.
const stragglerPool = `
seed = 1
requests = 20000
[arrivals]
rate = %v
[providers.vllm.pool]
replicas = 4
concurrency = 4
balancer = "round_robin"
[[providers.vllm.pool.replica]]
index = 1
slowdown = 6.0
[models.llama]
provider = "vllm"
latency = { kind = "lognormal", median = 1.0, p95 = 2.0 }
[[classes]]
name = "chat"
%s
[classes.hedge]
primary = "llama"
`

// stragglerMeanService is E[S] of stragglerPool's calls, in seconds.
var stragglerMeanService = math.Exp(math.Pow(math.Ln2/1.6448536269514722, 2) / 2)

// stragglerReport runs stragglerPool at rate λ with the class line extra,
// and returns the report, the pool's provider result and its pool result.
func stragglerReport(t *testing.T, rate float64, extra string) (*sim.Report, sim.ProviderResult, sim.PoolResult) {
	t.Helper()
	sc, err := scenario.Parse("s.toml", []byte(fmt.Sprintf(stragglerPool, rate, extra)))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &sc.Config
	h := mustRun(t, cfg)
	r := sim.NewReport(cfg, h, mustRun(t, sim.WithoutHedging(cfg)))
	if len(h.Providers) != 1 || len(h.Pools) != 1 {
		t.Fatalf("%d providers, %d pools; want 1 each", len(h.Providers), len(h.Pools))
	}
	return r, h.Providers[0], h.Pools[0]
}

// warningsWith returns the report's warnings that contain s.
func warningsWith(r *sim.Report, s string) []string {
	var out []string
	for _, w := range r.Warnings {
		if strings.Contains(w, s) {
			out = append(out, w)
		}
	}
	return out
}

// TestUnstableReplicaIsNamed: at 2.8 requests/s and no deadline the
// straggler is offered ρ₁ = 0.7·6·1.0936/4 = 1.148 of its capacity while
// the pool as a whole stays under 40 % busy: its queue grows for as long
// as requests arrive. The replica is marked unstable with ρ̂ within 6 % of
// ρ₁ — between the marks it is sent exactly 2 500 attempts (round robin)
// and serves about 2 180, whose count and the half-run's Poisson span
// each vary by about 1 % (σ ≈ 0.44/√2180 and 1/√10000), so 6 % is over
// four standard deviations — and the report names it with its own
// utilisation and the pool's; the other replicas and the pool as a whole
// are stable. At 2.0 requests/s (ρ₁ = 0.82) no queue grows and there is
// no warning.
func TestUnstableReplicaIsNamed(t *testing.T) {
	r, p, pl := stragglerReport(t, 2.8, "")
	rho := 0.7 * 6 * stragglerMeanService / 4
	if u := deref(p.Utilisation); !(u < 0.4) {
		t.Fatalf("pool utilisation %v; want under 40 %%", u)
	}
	if p.Unstable() {
		t.Errorf("the pool as a whole is unstable; its replicas queue apart")
	}
	for j, rr := range pl.Replicas {
		if rr.Unstable() != (j == 1) {
			t.Errorf("replica %d: unstable %v (offered %.3f)", j, rr.Unstable(), rr.OfferedLoad())
		}
	}
	s := &pl.Replicas[1]
	if math.Abs(s.OfferedLoad()/rho-1) > 0.06 {
		t.Errorf("straggler offered %.3f of its capacity; want %.3f within 6 %%", s.OfferedLoad(), rho)
	}
	ws := warningsWith(r, "grows without bound")
	if len(ws) != 1 {
		t.Fatalf("unstable warnings %q; want one", ws)
	}
	for _, want := range []string{
		"replica 1 of the pool of provider vllm",
		fmt.Sprintf("offered %.0f%% of its capacity without hedging", 100*s.OfferedLoad()),
		fmt.Sprintf("utilisation %.1f%%", 100**s.Utilisation),
		"mean queue wait " + sim.FormatSeconds(s.MeanQueueWait),
		fmt.Sprintf("the pool as a whole is at %.1f%% utilisation", 100**p.Utilisation),
		"round_robin",
	} {
		if !strings.Contains(ws[0], want) {
			t.Errorf("warning %q lacks %q", ws[0], want)
		}
	}
	if ws := saturated(r); len(ws) != 0 {
		t.Errorf("saturation warnings %q besides the unstable one; want none", ws)
	}

	r, _, pl = stragglerReport(t, 2.0, "")
	for j, rr := range pl.Replicas {
		if rr.Unstable() {
			t.Errorf("at 2 requests/s replica %d is unstable (offered %.3f)", j, rr.OfferedLoad())
		}
	}
	if ws := warningsWith(r, "replica 1"); len(ws) != 0 {
		t.Errorf("at 2 requests/s: warnings %q; want none about replica 1", ws)
	}
}

// TestSaturatedReplicaIsNamed: with a 30 s deadline the straggler's queue
// cannot grow without bound (requests leave it at their deadline), but the
// straggler offered ρ₁ = 1.148 is busy all the time and its calls wait for
// most of the deadline, while the pool as a whole is under 40 % busy. The
// report names the replica as saturated with its figures and the pool's
// as the tables print them; at 2.0 requests/s (ρ₁ = 0.82) it does not.
func TestSaturatedReplicaIsNamed(t *testing.T) {
	r, p, pl := stragglerReport(t, 2.8, `deadline = "30s"`)
	s := &pl.Replicas[1]
	if deref(s.Utilisation) < sim.SaturatedUtilisation || deref(p.Utilisation) > 0.4 {
		t.Fatalf("straggler utilisation %v, pool %v: the case should saturate the straggler alone", deref(s.Utilisation), deref(p.Utilisation))
	}
	if s.Unstable() {
		t.Fatalf("straggler unstable with a deadline that empties its queue")
	}
	ws := saturated(r)
	if len(ws) != 1 {
		t.Fatalf("saturation warnings %q; want one", ws)
	}
	for _, want := range []string{
		"replica 1 of the replica pool of provider vllm is saturated",
		fmt.Sprintf("utilisation %.1f%%", 100**s.Utilisation),
		"mean queue wait " + sim.FormatSeconds(s.MeanQueueWait),
		fmt.Sprintf("the pool as a whole is at utilisation %.1f%%", 100**p.Utilisation),
		"of the 30.0s deadline of its calls",
	} {
		if !strings.Contains(ws[0], want) {
			t.Errorf("warning %q lacks %q", ws[0], want)
		}
	}

	r, _, _ = stragglerReport(t, 2.0, `deadline = "30s"`)
	if ws := saturated(r); len(ws) != 0 {
		t.Errorf("at 2 requests/s: saturation warnings %q; want none", ws)
	}
}
