package compare

import (
	"fmt"
	"io"

	"github.com/hedgesim/hedgesim/sim"
)

// Replica costs. A run report of a scenario with autoscaled pools gives,
// per pool, what its replicas cost over the run (pools[].autoscale.
// replica_cost_usd): a cost of the pool, which no class's cost per 1000
// requests counts. A comparison lists it per pool present in both reports,
// so that "keep a replica warm" shows up next to "hedge" in dollars.

// PoolCost is one autoscaled pool's replica cost in both reports, in USD
// over each run.
type PoolCost struct {
	Pool string  `json:"pool"`
	A    float64 `json:"a_replica_cost_usd"`
	B    float64 `json:"b_replica_cost_usd"`
}

// runPoolsJSON are the fields of a run report's pools a comparison reads.
type runPoolsJSON struct {
	Pools []struct {
		Provider  string `json:"provider"`
		Autoscale *struct {
			Cost float64 `json:"replica_cost_usd"`
		} `json:"autoscale"`
	} `json:"pools"`
}

// poolCosts returns the replica cost of each autoscaled pool of a run
// report, in pool order.
func (in *runPoolsJSON) poolCosts() []PoolCost {
	var out []PoolCost
	for _, p := range in.Pools {
		if p.Autoscale != nil {
			out = append(out, PoolCost{Pool: p.Provider, A: p.Autoscale.Cost})
		}
	}
	return out
}

// comparePools returns the pools of a that b has too, with b's cost.
func comparePools(a, b []PoolCost) []PoolCost {
	var out []PoolCost
	for _, pa := range a {
		for _, pb := range b {
			if pb.Pool == pa.Pool {
				out = append(out, PoolCost{Pool: pa.Pool, A: pa.A, B: pb.A})
			}
		}
	}
	return out
}

// writePoolCosts writes the pools' replica costs under the table.
func writePoolCosts(w io.Writer, pools []PoolCost) {
	for _, p := range pools {
		ch := "no change"
		if p.A > 0 {
			ch = sim.SignedChange(100*(p.B-p.A)/p.A, 1) + "%"
		} else if p.B > 0 {
			ch = "from nothing"
		}
		fmt.Fprintf(w, "pool %s: replicas cost $%.2f → $%.2f over the run (%s; not in cost/1k)\n", p.Pool, p.A, p.B, ch)
	}
}
