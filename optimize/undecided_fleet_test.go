package optimize_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// undecidedPools has an autoscaled pool (for --min-replicas) reached by
// class "warm", whose configured 3s hedge is a grid delay, and a pool of
// fixed replicas (for --balancers) reached by class "bulk", whose
// configured 4.321s hedge is not: at 200 requests a candidate neither
// class's p95 has an interval, so both are undecided and their configured
// policies roll out, the one simulated, the other not.
const undecidedPools = `seed = 5
requests = 2000
[arrivals]
rate = 2.0
[providers.fleet.pool]
concurrency = 4
[providers.fleet.pool.autoscale]
min_replicas = 0
max_replicas = 2
target_concurrency = 2
price_per_replica_hour = 2.5
[providers.fleet.pool.cold_start]
latency = { kind = "uniform", min = 1.0, max = 4.0 }
[providers.bat.pool]
replicas = 3
balancer = "p2c"
[providers.hosted]
[models.self]
provider = "fleet"
latency = { kind = "lognormal", median = 1.5, p95 = 5.0 }
[models.batched]
provider = "bat"
latency = { kind = "lognormal", median = 3.0, p95 = 12.0 }
[models.api]
provider = "hosted"
latency = { kind = "lognormal", median = 1.0, p95 = 3.0 }
price_per_request = 0.001
[[classes]]
name = "warm"
share = 0.5
deadline = "30s"
[classes.hedge]
primary = "self"
delay = "3s"
targets = ["api"]
[[classes]]
name = "bulk"
share = 0.5
deadline = "60s"
[classes.hedge]
primary = "batched"
delay = "4.321s"
`

// TestUndecidedFleetAndRoutingSayWhatRollsOut pins the fleet and routing
// tables of undecided classes contradicting what rolls out: the fleet's
// picks read "bulk none" (report.json policy "none", hedged false) and the
// routing table listed no hedging alone under the configured balancer,
// while each class's configured hedge rolls out. Now both name the
// configured policy: its candidate's figures when the sweep simulated it,
// else the rollout check's (fleet) or none (routing).
func TestUndecidedFleetAndRoutingSayWhatRollsOut(t *testing.T) {
	sc, err := scenario.Parse("pools.toml", []byte(undecidedPools))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 200, 400
	s.Search.Delays = []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}
	s.MinReplicas = []int{0, 1}
	s.Balancers = []sim.Balancer{sim.RandomBalancer}
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
	for i := range rep.Classes {
		cr := &rep.Classes[i]
		if !cr.Verdict.Undecided || (cr.RolledOut() == nil) != (cr.Class == "bulk") {
			t.Fatalf("class %s: verdict %+v, rolled out %v: the test needs both undecided, bulk's configured policy not simulated, warm's simulated", cr.Class, cr.Verdict, cr.RolledOut())
		}
	}
	var text, js bytes.Buffer
	if err := rep.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(text.String()), " ")
	for _, want := range []string{"warm configured 3s (p95 ", "bulk configured (p95 "} {
		if !strings.Contains(flat, want) {
			t.Errorf("fleet picks lack %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(flat, "bulk none (p95") || strings.Contains(flat, "warm 3s (p95") {
		t.Errorf("fleet picks name a pick for an undecided class:\n%s", text.String())
	}
	type option struct {
		Class      string `json:"class"`
		Balancer   string `json:"balancer"`
		Configured bool   `json:"configured"`
		Policy     string `json:"policy"`
		Hedged     bool   `json:"hedged"`
	}
	var out struct {
		Fleet struct {
			Settings []struct {
				Picks []option `json:"picks"`
			} `json:"settings"`
		} `json:"fleet"`
		Routing struct {
			Classes []struct {
				Class   string   `json:"class"`
				Options []option `json:"options"`
			} `json:"classes"`
		} `json:"routing"`
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	// What rolls out: warm's configured 3s (a grid candidate), bulk's
	// configured 4.321s (none), both hedges.
	want := map[string]string{"warm": "3s", "bulk": "configured"}
	if len(out.Fleet.Settings) != 2 {
		t.Fatalf("fleet settings %+v", out.Fleet.Settings)
	}
	for _, fs := range out.Fleet.Settings {
		for _, p := range fs.Picks {
			if p.Policy != want[p.Class] || !p.Hedged {
				t.Errorf("fleet pick %+v; want policy %q, hedged", p, want[p.Class])
			}
		}
	}
	found := map[string]bool{}
	for _, rc := range out.Routing.Classes {
		for _, o := range rc.Options {
			if o.Configured && o.Hedged {
				found[rc.Class] = true
				if o.Policy != want[rc.Class] {
					t.Errorf("routing class %s, configured balancer: option %+v; want policy %q", rc.Class, o, want[rc.Class])
				}
			}
		}
	}
	if !found["bulk"] || !found["warm"] {
		t.Errorf("routing: what rolls out under the configured balancer is listed for %v; want bulk and warm:\n%s", found, text.String())
	}
}
