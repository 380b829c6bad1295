package optimize

import "fmt"

// CapReasons returns the objective's hard caps that a policy with added
// cost addedCostPct (percent of no hedging's cost, on the class's cost
// basis: USD, or calls per request when the class costs nothing) and
// hedged share hedgedShare (in [0, 1]) is over, as the candidates of a
// sweep are rejected for them: ReasonHedgedCap when 100·hedgedShare is
// above MaxHedgedPct (every goal), and ReasonCostCap when addedCostPct is
// above MaxAddedCostPct and not the same cost (LowestLatency and
// MostAnswered; the other goals have no cost cap). Value and Limit are in
// percent (UnitPct). It returns nil when the policy is within every cap;
// a NaN figure (unknown) is over no cap.
func (o Objective) CapReasons(addedCostPct, hedgedShare float64) []Reason {
	var r []Reason
	if h := 100 * hedgedShare; h > o.MaxHedgedPct+1e-9 {
		r = append(r, Reason{Code: ReasonHedgedCap, Value: h, Limit: o.MaxHedgedPct, Unit: UnitPct,
			Text: fmt.Sprintf("hedged share %.1f%% is over the cap of %s%% by %.1f pt", h, fnum(o.MaxHedgedPct), h-o.MaxHedgedPct)})
	}
	if (o.Goal == LowestLatency || o.Goal == MostAnswered) && costLess(o.MaxAddedCostPct, addedCostPct) {
		r = append(r, Reason{Code: ReasonCostCap, Value: addedCostPct, Limit: o.MaxAddedCostPct, Unit: UnitPct,
			Text: fmt.Sprintf("added cost %s is over the cap of +%s%% by %.2f pt", fpctCost(addedCostPct), fnum(o.MaxAddedCostPct), addedCostPct-o.MaxAddedCostPct)})
	}
	return r
}
