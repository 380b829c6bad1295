package optimize_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// autoscaledScenario is one class on an autoscaled pool whose replicas
// scale with the attempts in flight: copies add attempts, so hedging can
// keep more replicas up.
const autoscaledScenario = `seed = 2
requests = 2000
[arrivals]
rate = 4.0
[providers.p.pool]
concurrency = 4
[providers.p.pool.autoscale]
min_replicas = 1
max_replicas = 8
target_concurrency = 2
price_per_replica_hour = 1.0
[models.m]
provider = "p"
latency = { kind = "lognormal", median = 1.0, p95 = 4.0 }
price_per_request = 0.001
[[classes]]
name = "c"
deadline = "60s"
[classes.hedge]
primary = "m"
delay = "1s"
max_copies = 1
`

// TestReplicaHoursPerCandidate: on an autoscaled pool every candidate
// reports the replica-hours its run kept the pool up or starting — exactly
// what a run of the class under the candidate's policy gives
// (sim.AutoscaleResult.ReplicaHours) — and the text report sets the
// pick's beside no hedging's, noting the added cost leaves them out. On a
// scenario without an autoscaled pool no candidate has any.
func TestReplicaHoursPerCandidate(t *testing.T) {
	sc, err := scenario.Parse("autoscaled.toml", []byte(autoscaledScenario))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 20000, 0
	s.Search.Delays = []time.Duration{0, time.Second, 3 * time.Second}
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
	cr := &rep.Classes[0]
	for _, c := range []*optimize.Candidate{cr.Baseline(), cr.Picked(), &cr.Candidates[len(cr.Candidates)-1]} {
		cfg := sc.Config
		cfg.Requests = s.Requests
		cfg.Classes = append([]sim.Class(nil), sc.Config.Classes...)
		cfg.Classes[0].Policy = c.Policy(sc.Config.Classes[0].Policy)
		res, err := sim.Run(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("candidate %s: replica-hours %v", c.Label, res.Pools[0].Autoscale.ReplicaHours)
		if c.ReplicaHours == nil || *c.ReplicaHours != res.Pools[0].Autoscale.ReplicaHours {
			t.Errorf("candidate %s: replica-hours %v; a run of its policy gives %v", c.Label, c.ReplicaHours, res.Pools[0].Autoscale.ReplicaHours)
		}
	}
	var text bytes.Buffer
	rep.WriteText(&text, false)
	b, p := *cr.Baseline().ReplicaHours, *cr.Picked().ReplicaHours
	want := fmt.Sprintf("  replica-hours of the autoscaled pools: %.2f → %.2f (%+.1f%%), not in the added cost\n", b, p, 100*(p/b-1))
	if !strings.Contains(text.String(), want) {
		t.Errorf("text report has no line %q:\n%s", want, text.String())
	}

	plain := strings.Replace(autoscaledScenario, "[providers.p.pool.autoscale]\nmin_replicas = 1\nmax_replicas = 8\ntarget_concurrency = 2\nprice_per_replica_hour = 1.0\n", "replicas = 4\n", 1)
	sc, err = scenario.Parse("plain.toml", []byte(plain))
	if err != nil {
		t.Fatal(err)
	}
	rep = mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
	for _, c := range rep.Classes[0].Candidates {
		if c.ReplicaHours != nil {
			t.Errorf("pool without autoscaling: candidate %s has replica-hours %v", c.Label, *c.ReplicaHours)
		}
	}
}
