package optimize

import (
	"fmt"
	"math"

	"github.com/hedgesim/hedgesim/sim"
)

// RolloutCheck is the whole scenario simulated once with every class's pick
// applied, as it will be deployed — all classes' traffic at once, next to
// the same traffic without hedging — and compared with what the sweep
// predicted for each pick.
type RolloutCheck struct {
	// Requests is the number of requests simulated, over all classes.
	Requests int `json:"requests"`
	// Classes compares, per optimized class, the check with the sweep.
	Classes []RolloutClass `json:"classes"`
	// Report is the full run (every class, overall, providers), exactly
	// what `hedgesim run` prints for the scenario with the picks applied
	// (see RolloutConfig).
	Report *sim.Report `json:"report"`
}

// RolloutClass is one class of a RolloutCheck. Latencies are times to a
// usable answer in seconds (a miss is +Inf, JSON null).
type RolloutClass struct {
	Class string `json:"class"`
	// Pick is the label of the class's pick ("none" for no hedging).
	Pick string `json:"pick"`
	// Checked is the class in the rollout check, NoHedging the same
	// traffic without hedging, Predicted the pick in the sweep.
	Checked   sim.Latency `json:"latency_s"`
	NoHedging sim.Latency `json:"no_hedging_latency_s"`
	Predicted sim.Latency `json:"predicted_latency_s"`
	// AnsweredShare, NoHedgingAnswered and PredictedAnswered are the
	// shares of requests answered within the deadline.
	AnsweredShare     float64 `json:"answered_share"`
	NoHedgingAnswered float64 `json:"no_hedging_answered_share"`
	PredictedAnswered float64 `json:"predicted_answered_share"`
	// RateLimited is the number of the class's attempts that got a 429.
	RateLimited int64 `json:"rate_limited_attempts"`
	// AddedCostPct is the checked cost relative to no hedging, in percent
	// (null when the class costs nothing without hedging);
	// PredictedAddedCostPct the sweep's, on the class's cost basis.
	AddedCostPct          *float64 `json:"added_cost_pct"`
	PredictedAddedCostPct float64  `json:"predicted_added_cost_pct"`
	// Flagged is true when the checked p95 lies outside the sweep's
	// interval for the pick, beyond sampling noise: the check's interval
	// and the sweep's are disjoint. Flag says why.
	Flagged bool   `json:"flagged"`
	Flag    string `json:"flag"`
}

// RolloutConfig returns cfg with the pick of every class of rep applied
// (classes rep did not optimize keep their policy), and the given number of
// requests — for a replayed trace, at most the trace's length.
func RolloutConfig(cfg *sim.Config, rep *Report, requests int) *sim.Config {
	c := *cfg
	c.Classes = append([]sim.Class(nil), cfg.Classes...)
	for j := range rep.Classes {
		cr := &rep.Classes[j]
		for i := range c.Classes {
			if c.Classes[i].Name == cr.Class {
				c.Classes[i].Policy = cr.Picked().Policy(cfg.Classes[i].Policy)
			}
		}
	}
	c.Requests = requests
	if c.Arrivals.Process == sim.Replay && c.Arrivals.Trace != nil && len(c.Arrivals.Trace.Arrivals) < requests {
		c.Requests = len(c.Arrivals.Trace.Arrivals)
	}
	return &c
}

// Check runs the rollout check of rep for cfg with the given number of
// requests, intervals at the given level.
func Check(cfg *sim.Config, rep *Report, requests int, level float64) (*RolloutCheck, error) {
	c := RolloutConfig(cfg, rep, requests)
	hedged, err := sim.Run(c)
	if err != nil {
		return nil, err
	}
	base, err := sim.Run(sim.WithoutHedging(c))
	if err != nil {
		return nil, err
	}
	rc := &RolloutCheck{Requests: c.Requests, Report: sim.NewReport(c, hedged, base)}
	for j := range rep.Classes {
		cr := &rep.Classes[j]
		for i := range c.Classes {
			if c.Classes[i].Name != cr.Class {
				continue
			}
			got := &rc.Report.Classes[i]
			pick := cr.Picked()
			rcl := RolloutClass{
				Class: cr.Class, Pick: pick.Label,
				Checked: got.Latency, NoHedging: got.NoHedging.Latency, Predicted: pick.Latency,
				AnsweredShare: got.AnsweredShare, NoHedgingAnswered: got.NoHedging.AnsweredShare,
				PredictedAnswered: pick.AnsweredShare,
				RateLimited:       got.Attempts.RateLimited,
				AddedCostPct:      got.AddedCostPct, PredictedAddedCostPct: pick.AddedCostPct,
			}
			// The check's own p95 interval at the report's level.
			lo, hi, ok := hedged.Classes[i].QuantileCI(0.95, level)
			if ok && pick.P95CIOK && (hi < pick.Latency.P95CI95[0] || lo > pick.Latency.P95CI95[1]) {
				rcl.Flagged = true
				rcl.Flag = fmt.Sprintf("checked p95 %s [%s, %s] lies outside the sweep's %s [%s, %s]",
					fsec(got.Latency.P95), fsec(lo), fsec(hi), fsec(pick.Latency.P95),
					fsec(pick.Latency.P95CI95[0]), fsec(pick.Latency.P95CI95[1]))
				if len(cr.OptimizedWith) == 0 && math.IsInf(pick.Latency.P95, 0) == math.IsInf(got.Latency.P95, 0) {
					rcl.Flag += ": other classes' traffic or the larger sample changes this class's result"
				}
			}
			rc.Classes = append(rc.Classes, rcl)
		}
	}
	return rc, nil
}
