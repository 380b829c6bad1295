package sim

import (
	"fmt"
	"io"
	"strings"
)

// ReplicaCostPerMonth returns what the replicas of pool p cost a month of
// DaysPerMonth days at the run's pace: its replica cost over the run
// (AutoscaleResult.CostUSD) per second of the run, in USD; 0 for a pool
// that does not autoscale or has no price.
func (p *PoolResult) ReplicaCostPerMonth() float64 {
	a := p.Autoscale
	if a == nil || !(a.CostUSD > 0) || !(p.end > 0) {
		return 0
	}
	return a.CostUSD / p.end.Seconds() * 86400 * DaysPerMonth
}

// writeReplicaSpend says, under the spend table, that the costs and spend
// of the classes count tokens only, and what the priced replicas of
// autoscaled pools cost beside them; nothing when no pool has a price.
func writeReplicaSpend(w io.Writer, pools []PoolResult) {
	var parts []string
	var run, month float64
	for i := range pools {
		p := &pools[i]
		if m := p.ReplicaCostPerMonth(); m > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", p.Provider, dollars(m)))
			run += p.Autoscale.CostUSD
			month += m
		}
	}
	if len(parts) == 0 {
		return
	}
	fmt.Fprintf(w, "the costs and spend above count tokens only; the pools' replicas cost %s over the run, %s a month (%s): see the pools below\n\n",
		dollars(run), dollars(month), strings.Join(parts, ", "))
}
