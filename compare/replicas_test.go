package compare

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestComparePoolReplicaCosts: an autoscaled pool's replicas cost nothing
// in any class's cost per 1000 requests, so a comparison lists them per
// pool. A pool held at one replica (min = max = 1) at $1 a replica-hour
// against one held at two, over the same run, costs exactly twice as
// much: +100 %.
func TestComparePoolReplicaCosts(t *testing.T) {
	cfg := func(n int) *sim.Config {
		c := mm1(2000, 1, 0.5, 1, "c")
		c.Providers = []sim.Provider{{Name: "p", Pool: &sim.Pool{Replicas: n, Concurrency: 1, Balancer: sim.PowerOfTwo,
			Autoscale: &sim.Autoscale{Min: n, Initial: n, Target: 1, Tick: 2 * time.Second, StableWindow: time.Minute,
				PanicWindow: 6 * time.Second, PanicThreshold: 2, PricePerReplicaHour: 1},
			ColdStart: &sim.ColdStart{Latency: dist.Constant{Value: 1}}}}}
		return c
	}
	a, b := runJSONOf(t, cfg(1)), runJSONOf(t, cfg(2))
	if len(a.Pools) != 1 || a.Pools[0].Pool != "p" || !(a.Pools[0].A > 0) {
		t.Fatalf("pools of A: %+v", a.Pools)
	}
	c := Compare(a, b)
	if len(c.Pools) != 1 || c.Pools[0].B != 2*c.Pools[0].A {
		t.Fatalf("pools %+v; want B twice A", c.Pools)
	}
	var txt, js bytes.Buffer
	if err := c.WriteText(&txt, "a.json", "b.json"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(txt.String(), "pool p: replicas cost $") || !strings.Contains(txt.String(), "over the run (+100.0%; not in cost/1k)") {
		t.Errorf("text lacks the pool's replica cost:\n%s", txt.String())
	}
	if err := c.WriteJSON(&js, "a.json", "b.json"); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Pools []PoolCost `json:"pools"`
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil || len(out.Pools) != 1 || out.Pools[0] != c.Pools[0] {
		t.Errorf("JSON pools %+v (%v); want %+v", out.Pools, err, c.Pools)
	}
}

// TestPoolCostChangeKeepsItsSign: a pool's replica cost that fell by less
// than 0.05 % reads as a fall (-0.01%), not as "-0.0%", and a paired
// difference's interval end of a share keeps its sign (-0.004 pt).
func TestPoolCostChangeKeepsItsSign(t *testing.T) {
	var b bytes.Buffer
	writePoolCosts(&b, []PoolCost{{Pool: "p", A: 100, B: 99.99}})
	if want := "pool p: replicas cost $100.00 → $99.99 over the run (-0.01%; not in cost/1k)\n"; b.String() != want {
		t.Errorf("%q, want %q", b.String(), want)
	}
	if got := diffCI(Delta{Metric: "answered", DiffCI: [2]float64{-0.00004, 0.002}}); !strings.Contains(got, "-0.004 pt") {
		t.Errorf("interval %q, want its lower end -0.004 pt", got)
	}
}
