package optimize_test

import (
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// TestCheckedWalkRefusesNoiseStep: on help-chat-turn.toml (objective
// checked within 30 s) at 10 000 turns, seed 1, hedging the two guards
// lifts the share of turns checked from about 25 % to about 77 % — far
// beyond the Wilson intervals — while a copy on the retrieval step, whose
// calls exceed its 2 s deadline on about 6 in 100 000, lifts it by one
// turn at most. The trade-off walk must refuse that step (a move from a
// hedged point cuts the share significantly, or not at all) and keep both
// guards. The case needs the allocation search to have simulated the
// pick with retrieval hedged and found it at least as good: the check
// says so, so that the test cannot pass by the search not looking. Fixed
// draws: the checks read the report's own figures.
func TestCheckedWalkRefusesNoiseStep(t *testing.T) {
	sc, err := scenario.LoadFS(scenarios.FS, "help-chat-turn.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 10_000, 0
	if sc.Config.Seed != 1 {
		t.Fatalf("help-chat-turn's seed is %d; the case needs 1", sc.Config.Seed)
	}
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
	cr := &rep.Classes[0]
	p := cr.Picked()
	if len(p.Steps) != 4 {
		t.Fatalf("pick %s has %d steps; want help-chat-turn's 4", p.Label, len(p.Steps))
	}
	if !p.Steps[0].Hedging || !p.Steps[3].Hedging {
		t.Errorf("pick %s: want both guards hedged (checked %.2f%% → %.2f%%)", p.Label, 100*cr.Baseline().AnsweredWithinShare, 100*p.AnsweredWithinShare)
	}
	if p.Steps[1].Hedging {
		t.Errorf("pick %s hedges retrieval: checked within 30s %.4f%%", p.Label, 100*p.AnsweredWithinShare)
	}
	looked := false
	for i := range cr.Candidates {
		c := &cr.Candidates[i]
		if len(c.Steps) == 4 && c.Steps[1].Hedging && c.Steps[0] == p.Steps[0] && c.Steps[2] == p.Steps[2] && c.Steps[3] == p.Steps[3] &&
			c.AnsweredWithinShare >= p.AnsweredWithinShare {
			looked = true
		}
	}
	if !looked {
		t.Errorf("no candidate adds a retrieval hedge to the pick %s with as many turns checked; the case needs one", p.Label)
	}
}
