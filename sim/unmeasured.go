package sim

import (
	"fmt"
	"math"
)

// A latency-aware balancer ranks replicas by their latency average; a
// replica it has not measured yet — at the start of a run, or after a
// restart (restart.go) — has none. Ranking it as the fastest (its average
// 0, Finagle's and Linkerd's EWMA do so, to probe it) floods it: every
// pick that draws it takes it, whatever its load, until its first
// response comes back. Pool.Unmeasured chooses another rule, which holds
// until the replica has Pool.Warmup observations. It costs nothing per
// pick for measured replicas and O(replicas) per pick that draws an
// unmeasured one under AssumePoolMean. It enters the loop in pick, through
// pool.cost.

// Unmeasured names how latency_ewma ranks a replica with fewer than
// Pool.Warmup latency observations.
type Unmeasured uint8

const (
	// AssumeFastest ranks a replica with no observation as the fastest
	// (average 0): it wins every comparison with a measured one, at any
	// load. Its first observation is its average from then on. Warmup
	// does not apply.
	AssumeFastest Unmeasured = iota
	// Probe sends an unmeasured replica one attempt at a time: it wins a
	// comparison while nothing is queued or in service there (the
	// router's own count), and loses it otherwise — left out, as
	// elastic/elasticsearch#144937's probe cap of 1, until it has Warmup
	// observations.
	Probe
	// AssumePoolMean ranks an unmeasured replica by the mean of the
	// averages of the replicas with Warmup observations (by its own
	// average while none has), times its load + 1, as a measured one.
	AssumePoolMean
)

// Unmeasureds are the rules in order, for listing and parsing.
var Unmeasureds = []Unmeasured{AssumeFastest, Probe, AssumePoolMean}

// String returns the scenario-file name of the rule.
func (u Unmeasured) String() string {
	switch u {
	case AssumeFastest:
		return "fastest"
	case Probe:
		return "probe"
	case AssumePoolMean:
		return "pool_mean"
	}
	return "unknown"
}

// validateUnmeasured checks p's rule for unmeasured replicas.
func (p *Pool) validateUnmeasured() error {
	if p.Unmeasured > AssumePoolMean {
		return fmt.Errorf("pool: rule for unmeasured replicas %d: unknown", p.Unmeasured)
	}
	if p.Warmup < 0 {
		return fmt.Errorf("pool: warm-up of %d observations: must be ≥ 0", p.Warmup)
	}
	return nil
}

// cost returns latency_ewma's cost of replica rp whose load, as the
// balancer sees it, is l: avg × (l + 1), or what Pool.Unmeasured says
// for a replica with fewer than Pool.Warmup observations (at least one).
func (pl *pool) cost(rp *replica, l int) float64 {
	if rp.obs < pl.warmup {
		return pl.unmeasuredCost(rp, l)
	}
	return rp.avg * float64(l+1)
}

// warmup returns the observations a replica of c needs to be ranked by
// its own average: 0 under AssumeFastest (whose unmeasured replica's
// average, 0, is its rank), else max(1, c.Warmup).
func warmup(c *Pool) int32 {
	if c.Unmeasured == AssumeFastest {
		return 0
	}
	return int32(max(1, min(c.Warmup, math.MaxInt32)))
}

// unmeasuredCost is cost for a replica still warming up.
func (pl *pool) unmeasuredCost(rp *replica, l int) float64 {
	if pl.cfg.Unmeasured == Probe {
		if rp.busy+rp.waiting == 0 {
			return 0
		}
		return math.Inf(1)
	}
	sum, n := 0.0, 0
	pl.work += len(pl.reps)
	for i := range pl.reps {
		if pl.reps[i].obs >= pl.warmup {
			sum += pl.reps[i].avg
			n++
		}
	}
	if n == 0 {
		return rp.avg * float64(l+1)
	}
	return sum / float64(n) * float64(l+1)
}
