package optimize

import (
	"fmt"
	"strings"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// Who won, and what hedging bought. Each candidate's run counts the
// answered requests by the attempt that answered them (the primary, or a
// copy to each model), the requests that met the class's target — its SLO
// (sim.Class.SLO), or without one, answered at all — and, paired request
// by request with the class's no-hedging run through the common random
// numbers (one bit per request, sim's Pair), the requests hedging rescued
// (met the target only with it) and harmed (met it only without: 429s,
// queueing, breakers). Rescued − harmed is the change in requests that
// met the target; the two apart say what the net hides.

// CopyShare is the share of a class's requests that copies to one model
// answered.
type CopyShare struct {
	Model string  `json:"model"`
	Share float64 `json:"share"`
}

// metOnly sets what a pipeline class's run r says of c's target, the
// share that met it (answered within slo, or answered): a pipeline's runs
// are not paired, and its calls are won in its steps, so who won is not
// counted for the class: WonPrimaryShare and WonByCopies are nil.
func (c *Candidate) metOnly(r *sim.ClassResult, slo time.Duration) {
	c.met = r.Answered
	if slo > 0 {
		c.met = r.AnsweredWithin(slo.Seconds())
	}
	c.shares()
	c.WonPrimaryShare, c.WonByCopies = nil, nil
}

// shares fills c's exported shares from its counts and Requests.
func (c *Candidate) shares() {
	c.WonPrimaryShare, c.WonByCopies, c.MetShare, c.RescuedShare, c.HarmedShare = nil, []CopyShare{}, 0, nil, nil
	if c.Requests <= 0 {
		return
	}
	n := float64(c.Requests)
	p := float64(c.won.Primary) / n
	c.WonPrimaryShare = &p
	for _, w := range c.won.Copies {
		c.WonByCopies = append(c.WonByCopies, CopyShare{Model: w.Model, Share: float64(w.Requests) / n})
	}
	c.MetShare = float64(c.met) / n
	if c.paired || !c.Hedging {
		r, h := float64(c.rescued)/n, float64(c.harmed)/n
		c.RescuedShare, c.HarmedShare = &r, &h
	}
}

// Bought says what the candidate's hedging bought, request by request:
// "rescued 4.1%, harmed 0.2%"; "" for no hedging or a run not paired.
func (c *Candidate) Bought() string { return boughtText(c) }

// WhoAnswered says who answered the candidate's requests: "primary
// 71.3%, copies to b 28.5%"; "" when that is not counted (a pipeline
// candidate, whose calls are won in its steps, or one without requests).
func (c *Candidate) WhoAnswered() string { return wonText(c) }

// boughtText is Candidate.Bought.
func boughtText(c *Candidate) string {
	if c.RescuedShare == nil || !c.Hedging {
		return ""
	}
	return fmt.Sprintf("rescued %s, harmed %s", fshare(*c.RescuedShare), fshare(*c.HarmedShare))
}

// wonText is Candidate.WhoAnswered.
func wonText(c *Candidate) string {
	if c.WonPrimaryShare == nil {
		return ""
	}
	parts := []string{"primary " + fshare(*c.WonPrimaryShare)}
	for _, w := range c.WonByCopies {
		parts = append(parts, fmt.Sprintf("copies to %s %s", w.Model, fshare(w.Share)))
	}
	return strings.Join(parts, ", ")
}

// fshare formats a share in [0, 1] as a percentage: one decimal, two
// below 1 %.
func fshare(x float64) string {
	if x > 0 && x < 0.01 {
		return fmt.Sprintf("%.2f%%", 100*x)
	}
	return fmt.Sprintf("%.1f%%", 100*x)
}

// metBasisNote returns, when the objective of cr has a latency target of
// its own (answered or checked within Target, cost under its SLA) that
// the met, rescued and harmed counts are not judged against, what they
// are judged against: ", judged on answered at all (within the deadline
// of 10.0s), not on the objective's target of 1.00s"; "" when they are judged
// against that target (an SLO equal to it, or a target at or past the
// deadline, where every answer is in time) or the objective has none.
// The counts are the run's, against the class's SLO or, without one,
// answered at all (sim.Pair): the objective's target does not change
// them.
func metBasisNote(cr *ClassReport) string {
	var t float64
	switch o := cr.Objective; o.Goal {
	case MostAnswered:
		t = o.Target.Seconds()
	case LowestCost:
		t = o.SLA.Seconds()
	}
	slo, dl := cr.SLOSeconds, cr.DeadlineSeconds
	if t <= 0 || slo > 0 && slo == t || slo == 0 && dl > 0 && t >= dl {
		return ""
	}
	basis := "answered at all"
	switch {
	case slo > 0:
		basis = "the SLO of " + sim.FormatSeconds(slo)
	case dl > 0:
		basis += " (within the deadline of " + sim.FormatSeconds(dl) + ")"
	}
	return ", judged on " + basis + ", not on the objective's target of " + sim.FormatSeconds(t)
}

// targetWord names the class's target: "within the SLO of 2s", or
// "answered".
func targetWord(slo float64) string {
	if slo > 0 {
		return "met the SLO of " + sim.FormatSeconds(slo)
	}
	return "answered"
}
