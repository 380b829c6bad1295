package sim_test

import (
	"math"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// coldTraffic is a user's pair of scenarios (cold.toml and cold2.toml):
// one replica of one slot, a request every 1000 s with 1 s of work, 10 s
// cold starts, 200 requests; POOL is the pool's kind.
const coldTraffic = `name = "cold"
seed = 1
requests = 200
[arrivals]
process = "constant"
rate = 0.001
[providers.p.pool]
concurrency = 1
POOL
[providers.p.pool.cold_start]
latency = { kind = "constant", value = 10.0 }
KEEP
[models.m]
provider = "p"
latency = { kind = "constant", value = 1.0 }
[[classes]]
name = "c"
input_tokens = { kind = "constant", value = 1 }
output_tokens = { kind = "constant", value = 1 }
deadline = "60s"
`

// TestColdStartCountedByPoolKind: the same wait for a cold start is time
// in service at a pool without autoscaling and queue wait at an
// autoscaled one (docs/pools.md). In both the request at 0 finds the
// replica warm (1 s) and each of the 199 others waits a 10 s start, then
// 1 s of work: 11 s, and the run ends at 199 011 s.
//   - kept warm 100 s: each request takes the slot at once (queue wait 0)
//     and holds it through the start: in service 1 + 199 × 11 = 2190 s,
//     utilisation 2190/199 011 = 1.10 %.
//   - autoscaled from 0 to 1 replica: each request waits at the activator
//     for the start (queue wait 199 × 10/200 = 9.95 s, p95 10 s), then is
//     served 1 s: in service 200 s, 200/199 011 of the run, and
//     utilisation 200 s over the replica's time up or starting: up at 0
//     until 92 s (the stable window holds the first request's concurrency
//     until 61 s, the tick at 62 s wants none, the 30 s grace ends at 92
//     s), then from each later request's arrival for 102 s
//     (TestReplicaUtilisationWhileUp), the last until the run's end 11 s
//     after it: 92 + 198 × 102 + 11 = 20 299 s, 0.99 %.
//
// Deterministic: the tolerance is rounding.
func TestColdStartCountedByPoolKind(t *testing.T) {
	const run = 199011.0
	for _, tc := range []struct {
		name, pool, keep          string
		wait, p95, busy, utilised float64
		note                      string
	}{
		{"fixed", "replicas = 1", `keep_warm = "100s"`, 0, 0, 2190, 2190 / run,
			"a cold start: at a pool without autoscaling, time in service, not queue wait"},
		{"autoscaled", "[providers.p.pool.autoscale]\nmin_replicas = 0\nmax_replicas = 1\ntarget_concurrency = 1", "", 9.95, 10, 200, 200.0 / (92 + 198*102 + 11),
			"a cold start: at an autoscaled pool, queue wait of the attempts waiting at the activator"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.NewReplacer("POOL", tc.pool, "KEEP", tc.keep).Replace(coldTraffic)
			s, err := scenario.Parse("cold.toml", []byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			cfg := &s.Config
			for i, lat := range requestLatencies(t, cfg) {
				want := 11.0
				if i == 0 {
					want = 1
				}
				if math.Abs(lat-want) > 1e-9 {
					t.Fatalf("request %d: latency %v s, want %v s", i, lat, want)
				}
			}
			res := mustRun(t, cfg)
			near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Max(1, want) }
			p := res.Pools[0]
			r := p.Replicas[0]
			if p.ColdStarts != 199 || !near(res.Seconds, run) {
				t.Fatalf("%d cold starts over %v s, want 199 over %v s", p.ColdStarts, res.Seconds, run)
			}
			if !near(r.MeanQueueWait, tc.wait) || r.P95QueueWait == nil || !near(*r.P95QueueWait, tc.p95) {
				t.Errorf("queue wait mean %v s, p95 %v s: want %v s, %v s", r.MeanQueueWait, deref(r.P95QueueWait), tc.wait, tc.p95)
			}
			if !near(r.MeanInService, tc.busy/run) {
				t.Errorf("in service %v, want %v s ÷ the run = %v", r.MeanInService, tc.busy, tc.busy/run)
			}
			if r.Utilisation == nil || !near(*r.Utilisation, tc.utilised) {
				t.Errorf("utilisation %v, want %v", deref(r.Utilisation), tc.utilised)
			}
			var b strings.Builder
			if err := sim.NewReport(cfg, res, res).WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if text := strings.Join(strings.Fields(b.String()), " "); !strings.Contains(text, tc.note) {
				t.Errorf("the footnote does not say %q:\n%s", tc.note, b.String())
			}
		})
	}
}
