package sim

import (
	"fmt"
	"slices"
	"strings"
)

// answerCutWarning says, for pipeline class cl whose answer step
// (Pipeline.AnswerStep) shares a stage that needs fewer than all its calls,
// in what share of the turns of run h (b without hedging) that stage was
// done by the other steps' calls with every call of the answer step let go
// of (PipelineResult.AnswerCut): those turns have no answer. It is empty
// when no turn of either run ended so.
func answerCutWarning(cl *Class, h, b *ClassResult) string {
	if cl.Pipeline == nil || h.Pipeline == nil || b.Pipeline == nil {
		return ""
	}
	return AnswerCutWarning(cl, h.Pipeline.AnswerCut, h.Requests, b.Pipeline.AnswerCut, b.Requests)
}

// AnswerCutWarning is the report's warning for pipeline class cl when
// turns went through the answer step's stage (wait_for) without its
// answer, every call of it let go of (PipelineResult.AnswerCut): cut of
// the requests turns of a run, baseCut of baseRequests of the same run
// without hedging. It names the stage's other steps, its wait_for and both
// shares, and is empty when neither run had such a turn or cl is no
// pipeline.
func AnswerCutWarning(cl *Class, cut, requests, baseCut, baseRequests int64) string {
	pl := cl.Pipeline
	if pl == nil || (cut == 0 && baseCut == 0) {
		return ""
	}
	a := pl.AnswerStep()
	name := pl.Steps[a].Name
	for _, st := range pl.Stages {
		if !slices.Contains(st.Steps, a) {
			continue
		}
		var others []string
		calls := 0
		for _, s := range st.Steps {
			calls += pl.Steps[s].FanOut
			if s != a {
				others = append(others, pl.Steps[s].Name)
			}
		}
		wait := fmt.Sprintf("wait_for %d of %d calls", st.Need, calls)
		if st.Need == 1 {
			wait = `wait_for "any"`
		}
		with := strings.Join(others, ", ")
		return fmt.Sprintf("the answer step %s shares its stage with %s, %s: in %s of turns (no hedging %s) the stage was done without %s's answer, every call of it let go of; those turns have no answer and count as timeouts open",
			name, with, wait, pct(share(cut, requests)), pct(share(baseCut, baseRequests)), name)
	}
	return ""
}
