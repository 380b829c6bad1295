package optimize

import "github.com/hedgesim/hedgesim/sim"

// breakerWarnings returns the warnings of run res's circuit breakers from
// which cancelled calls hid failures (sim.BreakerResult.HiddenWarning);
// nil when there are none.
func breakerWarnings(res *sim.Result) []string {
	var out []string
	for i := range res.Breakers {
		if w := res.Breakers[i].HiddenWarning(); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// pickBreakerWarnings returns the warnings of the circuit breakers from
// which, in the run of cr's pick, calls cancelled before their failure
// came back hid failures (sim.BreakerResult.HiddenWarning), each saying
// which candidate's run it is; nil when there are none or no pick.
func pickBreakerWarnings(cr *ClassReport) []string {
	if cr.Pick < 0 || cr.Pick >= len(cr.Candidates) {
		return nil
	}
	c := &cr.Candidates[cr.Pick]
	var out []string
	for _, w := range c.breakerWarns {
		out = append(out, "with the pick ("+pickName(c)+"), "+w)
	}
	return out
}
