package optimize

import "github.com/hedgesim/hedgesim/sim"

// pickAnswerCutWarning returns, for pipeline class cl, the warning of the
// run of cr's pick when turns went through the answer step's stage
// (wait_for) without its answer, every call of it let go of — misses,
// counted as timeouts open (sim.AnswerCutWarning, against the search's
// run without hedging) — saying which candidate's run it is; "" when
// neither run had such a turn, cl is no pipeline, or there is no pick.
func pickAnswerCutWarning(cl *sim.Class, cr *ClassReport) string {
	if cr.Pick < 0 || cr.Pick >= len(cr.Candidates) {
		return ""
	}
	c, b := cr.Picked(), cr.Baseline()
	w := sim.AnswerCutWarning(cl, c.answerCut, c.Requests, b.answerCut, b.Requests)
	if w == "" {
		return ""
	}
	return "with the pick (" + pickName(c) + "), " + w
}

// pickName names candidate c in a warning about its run: its label, or
// "no hedging".
func pickName(c *Candidate) string {
	if !c.Hedging {
		return "no hedging"
	}
	return c.Label
}
