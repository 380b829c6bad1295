package sim_test

import (
	"math"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// TestStaleRouterShipped checks what docs/pools.md says of the shipped
// stale-router scenario, run in full (seed 1): p2c on load scraped every
// 5 s is within 10 % of p2c on live load at p95; least_outstanding on the
// same view is slower, its p95 interval above p2c's; under latency_ewma
// ranking unmeasured replicas as the fastest, the restarted replicas take
// at least a quarter of the pool's attempts in their first 5 s back (the
// share of a replica drawn into every pair, 2/8, less 5 binomial standard
// deviations of the pooled count), and without hedging p95 is over 4
// times that of the same restarts under "probe", which sends them under
// a twentieth.
func TestStaleRouterShipped(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the scenario in full")
	}
	s, err := scenario.LoadFS(scenarios.FS, "stale-router.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &s.Config
	h := mustRun(t, cfg)
	rep := sim.NewReport(cfg, h, mustRun(t, sim.WithoutHedging(cfg)))
	class := map[string]*sim.ClassReport{}
	for i := range rep.Classes {
		class[rep.Classes[i].Class] = &rep.Classes[i]
	}
	live, polled, jsq := class["live"].Latency, class["polled"].Latency, class["polled-jsq"].Latency
	if !(polled.P95 < 1.1*live.P95) {
		t.Errorf("p2c p95 %.3f s on the polled view, %.3f s live: want within 10 %%", polled.P95, live.P95)
	}
	if !(jsq.P95CI95[0] > polled.P95CI95[1]) {
		t.Errorf("JSQ p95 interval %v, p2c's %v on the same view: want JSQ's above", jsq.P95CI95, polled.P95CI95)
	}
	share := func(provider string) (sent, of int64) {
		for _, p := range h.Pools {
			if p.Provider == provider {
				for _, r := range p.Restarts {
					sent += r.Sent
					of += r.PoolSent
				}
			}
		}
		return sent, of
	}
	sent, of := share("ewma")
	if sd := math.Sqrt(float64(of) * 0.25 * 0.75); of == 0 || float64(sent) < 0.25*float64(of)-5*sd {
		t.Errorf("fastest: restarted replicas got %d of %d attempts in their first 5 s, want at least a quarter less 5 sd (%.0f)", sent, of, 5*sd)
	}
	psent, pof := share("ewma-probe")
	if pof == 0 || !(float64(psent) < float64(pof)/20) {
		t.Errorf("probe: restarted replicas got %d of %d attempts in their first 5 s, want under a twentieth", psent, pof)
	}
	fast, probe := class["ewma"].NoHedging.Latency.P95, class["ewma-probe"].NoHedging.Latency.P95
	if !(fast > 4*probe) {
		t.Errorf("p95 without hedging %.3f s under fastest, %.3f s under probe: want over 4 times", fast, probe)
	}
	t.Logf("p95 live %.2f, polled %.2f, jsq %.2f; restart shares %d/%d, %d/%d; no-hedging p95 %.2f, %.2f",
		live.P95, polled.P95, jsq.P95, sent, of, psent, pof, fast, probe)
}
