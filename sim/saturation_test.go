package sim_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// saturationReport runs the scenario in text and its baseline, and returns
// the report and the hedged run's provider named prov.
func saturationReport(t *testing.T, text, prov string) (*sim.Report, sim.ProviderResult) {
	t.Helper()
	sc, err := scenario.Parse("s.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &sc.Config
	h := mustRun(t, cfg)
	r := sim.NewReport(cfg, h, mustRun(t, sim.WithoutHedging(cfg)))
	for _, p := range h.Providers {
		if p.Name == prov {
			return r, p
		}
	}
	t.Fatalf("no provider %s", prov)
	return nil, sim.ProviderResult{}
}

func deref(x *float64) float64 {
	if x == nil {
		return math.NaN()
	}
	return *x
}

// saturated returns the report's saturation warnings.
func saturated(r *sim.Report) []string {
	var out []string
	for _, w := range r.Warnings {
		if strings.Contains(w, "is saturated") {
			out = append(out, w)
		}
	}
	return out
}

// saturationPool is a user's pool: 6 replicas of 4 slots (24 in all), calls
// of 0.5–1.5 s (mean 1 s), so it serves at most 24 calls/s; 26 requests/s
// and a copy after 1.5 s offer more than that, and the 30 s deadline keeps
// the queue from growing without bound: requests wait most of it.
const saturationPool = `
seed = 1
requests = 20000
[arrivals]
process = "poisson"
rate = %v
[providers.vllm.pool]
replicas = 6
concurrency = 4
balancer = "random"
[models.llama]
provider = "vllm"
latency = { kind = "uniform", min = 0.5, max = 1.5 }
price_per_request = 0.001
[[classes]]
name = "chat"
deadline = "30s"
[classes.hedge]
primary = "llama"
delay = "1.5s"
`

// TestSaturatedPoolIsNamed: the overloaded pool (offered 26 of 24 calls/s)
// runs at ≥ 95 % utilisation with a mean queue wait over half the 30 s
// deadline, and the report names it with both figures as the provider
// table shows them; at 6 requests/s (a quarter of its capacity) there is no
// warning.
func TestSaturatedPoolIsNamed(t *testing.T) {
	r, p := saturationReport(t, fmt.Sprintf(saturationPool, 26.0), "vllm")
	if p.Utilisation == nil || *p.Utilisation < sim.SaturatedUtilisation || p.MeanQueueWait <= 15 {
		t.Fatalf("utilisation %v, mean queue wait %v s: the case should be saturated both ways", p.Utilisation, p.MeanQueueWait)
	}
	ws := saturated(r)
	if len(ws) != 1 {
		t.Fatalf("saturation warnings %q; want one", ws)
	}
	for _, want := range []string{
		"the replica pool of provider vllm is saturated",
		fmt.Sprintf("utilisation %.1f%%", 100**p.Utilisation),
		"mean queue wait " + sim.FormatSeconds(p.MeanQueueWait),
		"of the 30.0s deadline of its calls",
	} {
		if !strings.Contains(ws[0], want) {
			t.Errorf("warning %q lacks %q", ws[0], want)
		}
	}

	r, p = saturationReport(t, fmt.Sprintf(saturationPool, 6.0), "vllm")
	// Utilisation ≈ offered load: 6/s × (1 s + the copies' share) ÷ 24 slots,
	// well under 95 % whatever the copies add (at most doubling it).
	if p.Utilisation == nil || *p.Utilisation > 0.5 {
		t.Errorf("at 6 requests/s utilisation %v; want at most 0.5", p.Utilisation)
	}
	if ws := saturated(r); len(ws) != 0 {
		t.Errorf("at 6 requests/s: saturation warnings %q; want none", ws)
	}
}

// TestSaturatedByQueueWait: one slot serving 0.9 s calls at 1 request/s
// (offered load 0.9, under 95 %) queues its calls for seconds — an M/D/1
// queue at ρ = 0.9 waits ρ·S/(2(1−ρ)) = 4.05 s on average
// (Pollaczek–Khinchine); the live class's requests that give up at their
// 2 s deadline shorten it — over half the 2 s deadline of the live class,
// so the provider is named by its queue wait alone. Its utilisation is the
// served calls' work over the run: 0.9 s × completed ÷ sent per request.
func TestSaturatedByQueueWait(t *testing.T) {
	r, p := saturationReport(t, `
seed = 1
requests = 20000
[arrivals]
process = "poisson"
rate = 1.0
[providers.api]
concurrency = 1
[models.m]
provider = "api"
latency = { kind = "constant", value = 0.9 }
[[classes]]
name = "batch"
share = 0.9
[classes.hedge]
primary = "m"
[[classes]]
name = "live"
share = 0.1
deadline = "2s"
[classes.hedge]
primary = "m"
`, "api")
	// λ·S·(completed ÷ sent), within 0.02: the run's span and its Poisson
	// count of arrivals vary by about 1/√20000 (0.7 %).
	want := 0.9 * float64(p.Completed) / float64(p.Sent)
	if p.Utilisation == nil || *p.Utilisation >= sim.SaturatedUtilisation || math.Abs(*p.Utilisation-want) > 0.02 {
		t.Fatalf("utilisation %v; want about %.3f (λ·S of the calls served), under 95 %%", deref(p.Utilisation), want)
	}
	if p.MeanQueueWait <= 1 {
		t.Fatalf("mean queue wait %v s; want over half the 2 s deadline (M/D/1: 4.05 s)", p.MeanQueueWait)
	}
	ws := saturated(r)
	if len(ws) != 1 || !strings.Contains(ws[0], "provider api is saturated") ||
		!strings.Contains(ws[0], fmt.Sprintf("utilisation %.1f%%", 100**p.Utilisation)) ||
		!strings.Contains(ws[0], "of the 2.00s deadline of its calls") {
		t.Errorf("saturation warnings %q; want one naming api with its utilisation and the 2s deadline", ws)
	}
}
