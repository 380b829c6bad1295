package optimize_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// TestFailuresAreNotFast: whatever the cost cap, no candidate that answers
// significantly fewer requests is picked, and the verdict is "don't hedge"
// (or a pick that answers as many); with allow_fewer_answers such a pick is
// possible again, which shows the guard is what keeps it out.
func TestFailuresAreNotFast(t *testing.T) {
	t.Parallel()
	sc, err := scenario.Load(filepath.Join("testdata", "rate-limited-copy.toml"))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests = 20_000
	s.Each(func(se *optimize.Search) { se.Objective.MaxAddedCostPct = 1e9 })
	rep := mustRun(t, &sc.Config, s, optimize.Options{})
	cr := &rep.Classes[0]
	pick := cr.Picked()
	fewer := 0
	for i := range cr.Candidates {
		c := &cr.Candidates[i]
		if c.FewerAnswers {
			fewer++
			if c.Feasible || c.Pick || c.ObjectivePick {
				t.Errorf("candidate %s answers %v (no hedging %v) but is feasible %v, pick %v", c.Label, c.AnsweredShare, cr.Baseline().AnsweredShare, c.Feasible, c.Pick)
			}
		}
	}
	if fewer == 0 {
		t.Fatalf("no candidate answers significantly fewer requests: the input no longer tests the guard")
	}
	if cr.Verdict.Hedge && pick.FewerAnswers {
		t.Errorf("verdict %+v for a pick answering %v", cr.Verdict, pick.AnsweredShare)
	}
	if pick.AnsweredShare < cr.Baseline().AnsweredShare-0.01 {
		t.Errorf("pick %s answers %v, no hedging %v", pick.Label, pick.AnsweredShare, cr.Baseline().AnsweredShare)
	}
	t.Logf("pick %s, verdict %+v", pick.Label, cr.Verdict)

	// Copies that fail rather than meet a rate limit: model b answers
	// every other call with an error that ends the request. With
	// allow_fewer_answers, candidates that answer fewer requests are
	// feasible again, which shows the guard is what kept them out.
	cfg := sc.Config
	cfg.Models = slices.Clone(cfg.Models)
	cfg.Models[1].RateLimit = sim.RateLimit{}
	cfg.Models[1].ErrorRate = 0.5
	s.Rule.AllowFewerAnswers = true
	rep = mustRun(t, &cfg, s, optimize.Options{})
	fewer = 0
	for _, c := range rep.Classes[0].Candidates {
		if c.FewerAnswers {
			fewer++
			if !c.Feasible {
				t.Errorf("allow_fewer_answers: candidate %s still infeasible", c.Label)
			}
		}
	}
	if fewer == 0 {
		t.Errorf("failing copies: no candidate answers fewer requests")
	}
	// The rate-limited copies also overload the 6-a-minute limit: out of
	// the limits whatever allow_fewer_answers says.
	for _, c := range cr.Candidates {
		if c.Hedging && c.HedgedShare > 0.5 && !c.OverLimit {
			t.Errorf("candidate %s hedges %v into a limit of 0.1/s at 10/s, not marked over the limit", c.Label, c.HedgedShare)
		}
	}
}

// TestObjectiveAnswered: field report 1 as an SLO — the share answered
// within the 3 s budget. Without a cost cap the pick must answer more
// within 3 s than no hedging (0.5), close to the 1 − 0.5³ = 0.875 of copies
// every second when the pick is the 1 s grid point or earlier.
func TestObjectiveAnswered(t *testing.T) {
	sc := loadScenario(t, "guard-check.toml")
	s := sc.Optimize
	s.Requests = 20_000
	s.Each(func(se *optimize.Search) {
		se.Objective.Goal = optimize.MostAnswered
		se.Objective.Target = 3e9
		se.Objective.MaxAddedCostPct = 1e9
	})
	rep := mustRun(t, &sc.Config, s, optimize.Options{})
	cr := &rep.Classes[0]
	b, p := cr.Baseline(), cr.Picked()
	// 20 000 requests: a share's standard error is ≤ 0.0036; 5 of them.
	if d := b.AnsweredWithinShare - 0.5; d > 0.018 || d < -0.018 {
		t.Errorf("no hedging answers %v within 3s, want 0.5", b.AnsweredWithinShare)
	}
	if !cr.Verdict.Hedge || p.AnsweredWithinShare < 0.85 {
		t.Errorf("pick %s answers %v within 3s, verdict %+v; want ≥ 0.85 and hedge", p.Label, p.AnsweredWithinShare, cr.Verdict)
	}
	for _, c := range cr.Candidates {
		if c.Feasible && c.AnsweredWithinShare > p.AnsweredWithinShare {
			t.Errorf("candidate %s answers more (%v) than the pick (%v)", c.Label, c.AnsweredWithinShare, p.AnsweredWithinShare)
		}
	}
}

func loadScenario(t *testing.T, name string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.LoadFS(scenarios.FS, name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
