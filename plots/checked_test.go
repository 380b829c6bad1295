package plots_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/plots"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// helpChatTurn optimises help-chat-turn.toml's pipeline class (two
// fail-open guards) under the objective named (answered or checked)
// within 30 s, the guards' copies 1 s apart, two copies.
func helpChatTurn(t *testing.T, objective string) *optimize.ClassReport {
	t.Helper()
	sc, err := scenario.LoadFS(scenarios.FS, "help-chat-turn.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 2000, 0
	s.Search.Delays, s.Search.Copies = []time.Duration{time.Second}, []int{2}
	o := &s.Search.Objective
	if err := o.SetName(objective); err != nil {
		t.Fatal(err)
	}
	o.Target, o.MaxAddedCostPct = 30*time.Second, math.Inf(1)
	rep, err := optimize.Run(&sc.Config, s, optimize.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return &rep.Classes[0]
}

// TestCostLabelsFollowTheObjective: under objective "checked" the cost
// figure's y axis is the share of turns not checked within the target,
// and its title, axis and frontier legend say so ("not checked", "checks
// more in time"); under "answered" they say "not answered" and "answers
// more in time". Before, "checked" was labelled as "answered", so a turn
// answered within the target but degraded read as not answered.
func TestCostLabelsFollowTheObjective(t *testing.T) {
	for _, tc := range []struct {
		objective, title, y, frontier, not string
	}{
		{"checked", "turn: added cost vs turns not checked within 30.0s — ", "not checked within 30.0s (% of turns)",
			"frontier (no cheaper candidate checks more in time, or as many and faster)", "answer"},
		{"answered", "turn: added cost vs requests not answered within 30.0s — ", "not answered within 30.0s (% of requests)",
			"frontier (no cheaper candidate answers more in time, or as many and faster)", "check"},
	} {
		cr := helpChatTurn(t, tc.objective)
		if cr.Objective.Checked != (tc.objective == "checked") {
			t.Fatalf("%s: the class's objective is %q", tc.objective, cr.Objective.Name())
		}
		d := plots.CostData(cr)
		if !strings.HasPrefix(d.Title, tc.title) || d.YLabel != tc.y || d.FrontierName != tc.frontier {
			t.Errorf("%s: title %q, y axis %q, frontier %q; want title %q…, y axis %q, frontier %q",
				tc.objective, d.Title, d.YLabel, d.FrontierName, tc.title, tc.y, tc.frontier)
		}
		head, _, _ := strings.Cut(d.Title, " — ") // the pick's label may name a step "guard-answer"
		for _, s := range []string{head, d.YLabel, d.FrontierName} {
			if strings.Contains(s, tc.not) {
				t.Errorf("%s: %q speaks of %q", tc.objective, s, tc.not)
			}
		}
		// The axis is the objective's share: no hedging's point is its
		// share not within the target.
		if b := cr.Baseline(); d.Baseline.Y != 100*(1-b.AnsweredWithinShare) {
			t.Errorf("%s: no hedging at y %v; want %v", tc.objective, d.Baseline.Y, 100*(1-b.AnsweredWithinShare))
		}
	}
}

// TestPipelineSurvivalTitle: a pipeline pick has a policy per step and no
// one copy count or target; the survival figure's title read "hedge at
// guard-question 1s×2, … (0 copies to ) vs no hedging". It now reads as
// the text report's verdict: "hedge per step: <the pick's label> vs no
// hedging".
func TestPipelineSurvivalTitle(t *testing.T) {
	cr := helpChatTurn(t, "checked")
	pick := cr.Picked()
	if !cr.Verdict.Hedge || pick.Steps == nil {
		t.Fatalf("verdict %+v, pick %s: want a hedged pipeline pick", cr.Verdict, pick.Label)
	}
	d := plots.SurvivalData(cr)
	if want := "turn: latency survival — hedge per step: " + pick.Label + " vs no hedging"; d.Title != want {
		t.Errorf("survival title %q; want %q", d.Title, want)
	}
	if c := plots.CostData(cr); !strings.Contains(c.Title, "hedge per step: "+pick.Label) || strings.Contains(c.Title, "copies to") {
		t.Errorf("cost title %q; want the pick per step", c.Title)
	}
}
