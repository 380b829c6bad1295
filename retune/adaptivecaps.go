package retune

import (
	"strings"

	"github.com/hedgesim/hedgesim/optimize"
)

// The objective's hard caps in the comparison with an adaptive delay.
// The optimisation rejects a candidate over the added-cost cap of a p95,
// p99 or answered objective, or over the hedged-share cap
// (optimize.Objective.CapReasons), whatever it buys; the comparison holds
// the adaptive delay to the same caps, in each environment, on the
// class's cost basis (USD, or calls per request when the class costs
// nothing). An adaptive delay over a cap is never better there, and is
// not recommended: the class's verdict is "retune on a schedule", its
// Why giving the cap and the figure.

// capAdaptive records the caps of objective o the adaptive delay of e is
// over (AdaptiveOverCaps); when there are any and e had the adaptive
// delay better, Better becomes "" and BetterOn says why.
func (e *EnvComparison) capAdaptive(o optimize.Objective) {
	e.AdaptiveOverCaps = o.CapReasons(e.Adaptive.capCostPct, e.Adaptive.HedgedShare)
	if len(e.AdaptiveOverCaps) > 0 && e.Better == "adaptive" {
		e.Better, e.BetterOn = "", e.overCapsText()
	}
}

// overCapsText says which of the objective's caps the adaptive delay of
// e is over, with the figures: "the adaptive delay is over the
// objective's cap: added cost +82.49% is over the cap of +80% by 2.49
// pt"; empty when it is over none.
func (e *EnvComparison) overCapsText() string {
	if len(e.AdaptiveOverCaps) == 0 {
		return ""
	}
	var t []string
	for _, r := range e.AdaptiveOverCaps {
		t = append(t, r.Text+" ("+capKey(r.Code)+")")
	}
	return "the adaptive delay is over the objective's cap: " + strings.Join(t, "; ")
}

// capKey names the scenario's key of the cap of reason code c.
func capKey(c string) string {
	if c == optimize.ReasonHedgedCap {
		return "max_hedged_pct"
	}
	return "max_added_cost_pct"
}

// overCapsWhere says where the adaptive delay of class c is over one of
// the objective's caps: "on the live models", "through the shift", "on
// the live models and through the shift"; empty when it is over none.
func overCapsWhere(c *AdaptiveClass) string {
	var w []string
	if len(c.Live.AdaptiveOverCaps) > 0 {
		w = append(w, "on the live models")
	}
	if c.Shift != nil && len(c.Shift.AdaptiveOverCaps) > 0 {
		w = append(w, "through the shift")
	}
	return strings.Join(w, " and ")
}
