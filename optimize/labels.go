package optimize

import (
	"fmt"

	"github.com/hedgesim/hedgesim/sim"
)

// Verdict labels (Verdict.Label): what the pick is, in a word or three.
const (
	// LabelHedge: the pick hedges.
	LabelHedge = "hedge"
	// LabelNoHedge: the verdict is "don't hedge".
	LabelNoHedge = "don't hedge"
	// LabelRarely: the verdict accepts a pick whose copies go out for
	// fewer than RarelyHedgedShare of requests: in practice no hedging,
	// with a rare late copy that catches the stragglers.
	LabelRarely = "effectively no hedging"
	// LabelFallback: the pick is the class's configured fallback policy,
	// which sends copies only after a failure.
	LabelFallback = "fallback"
	// LabelUndecided: the verdict cannot be told at the requests
	// simulated (Verdict.Undecided); what to roll out is unchanged.
	LabelUndecided = "undecided"
)

// RarelyHedgedShare is the hedged share below which an accepted pick is
// labelled LabelRarely, not a hedge delay.
const RarelyHedgedShare = 0.01

// label sets cr.Verdict.Label from its verdict and pick.
func label(cr *ClassReport) {
	pick := cr.Picked()
	switch {
	case cr.Verdict.Undecided:
		cr.Verdict.Label = LabelUndecided
	case !cr.Verdict.Hedge || !pick.Hedging:
		cr.Verdict.Label = LabelNoHedge
	case pick.Configured && pick.fallback:
		cr.Verdict.Label = LabelFallback
	case pick.HedgedShare < RarelyHedgedShare:
		cr.Verdict.Label = LabelRarely
	default:
		cr.Verdict.Label = LabelHedge
	}
}

// verdictHead is the start of a class's verdict line in the text report:
// the label, and for a hedged pick its delay with its hedged share and
// calls per request — "hedge 1.85s (28.7% hedged, 1.287 attempts/request)",
// "effectively no hedging: a copy after 12.6s goes out for 0.6% of
// requests (1.006 attempts/request)".
func verdictHead(cr *ClassReport) string {
	v, pick := &cr.Verdict, cr.Picked()
	fires := fmt.Sprintf("%.1f%% hedged, %.3f attempts/request", 100*pick.HedgedShare, pick.AttemptsPerRequest)
	if m := monthly(cr); m != "" {
		fires += "; " + m
	}
	delay := candDelay(pick)
	if pick.Steps != nil {
		delay = "per step: " + pick.Label // a pipeline's
	}
	switch v.Label {
	case LabelHedge:
		return fmt.Sprintf("hedge %s (%s)", delay, fires)
	case LabelRarely:
		return fmt.Sprintf("effectively no hedging: %s after %s goes out for %.1f%% of requests (%.3f attempts/request), too rarely to be a hedge delay",
			plural(pick.Copies, "a copy", "copies"), delay, 100*pick.HedgedShare, pick.AttemptsPerRequest)
	case LabelUndecided:
		return LabelUndecided
	case LabelFallback:
		return fmt.Sprintf("fallback: the configured policy's copies go out only after a failure (%s)", fires)
	}
	return LabelNoHedge
}

// monthly states what the pick adds, in percent and in dollars a month at
// the class's rate: "+75.0% calls, +75.0% cost: +$3,131 a month at 20
// req/s"; "" for no hedging and for a class without prices, whose added
// cost is in calls.
func monthly(cr *ClassReport) string {
	pick := cr.Picked()
	if !pick.Hedging {
		return ""
	}
	if cr.CostBasis != CostUSD {
		return "" // the added cost is in calls already
	}
	calls := fpct(pick.AddedCallsPct) + " calls"
	s := cr.Spend
	if s.NoRate || s.NoPickCost {
		return fmt.Sprintf("%s, %s cost", calls, fpctCost(pick.AddedCostPct)) // no rate, or no cost of what rolls out: no month
	}
	out := fmt.Sprintf("%s, %s cost: %s a month at %s req/s", calls, fpctCost(pick.AddedCostPct), signedDollars(s.HedgingPerMonth()), sim.PerSecond(s.RequestsPerSecond))
	if s.ThroughputChanged() {
		// Closed-loop clients: the bill also changes by the requests the
		// faster (or slower) answers let them send.
		out += fmt.Sprintf(" (the clients send %s → %s req/s with it, so the bill changes %s a month)",
			sim.PerSecond(s.NoHedgingRequestsPerSecond), sim.PerSecond(s.RequestsPerSecond), signedDollars(s.PerMonth-s.NoHedgingPerMonth))
	}
	return out
}

// signedDollars is an amount in dollars with its sign: "+$2,390", "-$12".
func signedDollars(x float64) string {
	if x < 0 {
		return "-" + sim.Dollars(-x)
	}
	return "+" + sim.Dollars(x)
}
