package sim_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
)

// TestColdStartsCountedAlike: a pool's cold_starts counts the starts
// begun, those given up included, with or without autoscaling, and the
// text says how many of them were given up — not "(N more given up)",
// which read as 2N. pools.md's three-request example with give_up
// "cancel": both starts are given up (the requests at 12 and 24 s are let
// go at their 5 s deadline, 5 s into their 10 s starts). An autoscaled
// pool (1 to 6 replicas, 10 s starts, 2 req/s of 1 s work, one slot each)
// counts its scaler's starts, some of which it gives up.
func TestColdStartsCountedAlike(t *testing.T) {
	sc, err := scenario.Parse("s.toml", []byte(strings.Replace(coldNever, "GIVEUP", "cancel", 1)))
	if err != nil {
		t.Fatal(err)
	}
	rep := report(t, &sc.Config)
	p := rep.Pools[0]
	if p.ColdStarts != 2 || p.ColdStartsGivenUp != 2 || p.Replicas[0].ColdStarts != 2 {
		t.Errorf("fixed pool: %d cold starts, %d given up, replica %d: want 2, 2 of them, 2", p.ColdStarts, p.ColdStartsGivenUp, p.Replicas[0].ColdStarts)
	}
	var buf bytes.Buffer
	if err := rep.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), ", 2 cold starts (2 of them given up)") {
		t.Errorf("fixed pool: want \"2 cold starts (2 of them given up)\":\n%s", buf.String())
	}

	sc, err = scenario.Parse("s.toml", []byte(`seed = 5
requests = 4000
[arrivals]
rate = 2.0
[providers.fleet.pool]
concurrency = 1
balancer = "least_outstanding"
[providers.fleet.pool.autoscale]
min_replicas = 1
max_replicas = 6
target_concurrency = 1
[providers.fleet.pool.cold_start]
latency = { kind = "constant", value = 10.0 }
[models.llm]
provider = "fleet"
latency = { kind = "constant", value = 1.0 }
[[classes]]
name = "chat"
`))
	if err != nil {
		t.Fatal(err)
	}
	rep = report(t, &sc.Config)
	p = rep.Pools[0]
	a := p.Autoscale
	var up int64
	for _, r := range p.Replicas {
		up += r.ColdStarts
	}
	if a == nil || a.GivenUp == 0 || p.ColdStarts != a.Starts || p.ColdStartsGivenUp != a.GivenUp || up > a.Starts-a.GivenUp {
		t.Fatalf("autoscaled pool: %d cold starts, %d given up, %d bringing a replica up; scaler %+v: want the scaler's starts and those given up, some", p.ColdStarts, p.ColdStartsGivenUp, up, a)
	}
}
