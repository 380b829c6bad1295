package optimize_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// TestCheckedObjectiveHelpChatTurn: help-chat-turn.toml guards the question
// and the answer, each as field report 1's guard (fail open, 3 s). Every
// turn goes through, so every candidate answers every turn; objective
// "checked" counts the turns whose two checks both passed: 0.5² = 0.25
// without hedging, 0.875² = 0.765625 with copies 1 s apart (two copies) on
// both guards — the DESIGN oracle — and the pick hedges both guards. The
// tolerance is 5 standard errors of a share from the sweep's requests.
func TestCheckedObjectiveHelpChatTurn(t *testing.T) {
	sc, err := scenario.LoadFS(scenarios.FS, "help-chat-turn.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	if o := s.For("turn").Objective; o.Name() != "checked" || !o.Checked {
		t.Fatalf("help-chat-turn's objective is %q; want checked", o.Name())
	}
	s.Requests, s.CheckRequests = 20_000, 0
	s.Search.Delays, s.Search.Copies = []time.Duration{time.Second}, []int{2}
	s.Search.Objective.MaxAddedCostPct = math.Inf(1)
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
	cr := &rep.Classes[0]
	n := int64(s.Requests)
	bothHedged := func(c *optimize.Candidate) bool {
		return len(c.Steps) == 4 && c.Steps[0].Label == "1s×2" && c.Steps[3].Label == "1s×2"
	}
	var both *optimize.Candidate
	for i := range cr.Candidates {
		c := &cr.Candidates[i]
		if c.AnsweredShare < 1-binomialTol(0.999, n) {
			t.Errorf("candidate %s answers %.4f of turns; fail open lets every turn through", c.Label, c.AnsweredShare)
		}
		if bothHedged(c) && both == nil {
			both = c
		}
	}
	if b := cr.Baseline(); math.Abs(b.AnsweredWithinShare-0.25) > binomialTol(0.25, n) {
		t.Errorf("no hedging: checked within 30s %.4f, want 0.5² = 0.25", b.AnsweredWithinShare)
	}
	if both == nil {
		t.Fatal("no candidate hedges both guards at 1s×2")
	}
	if want := 0.875 * 0.875; math.Abs(both.AnsweredWithinShare-want) > binomialTol(want, n) {
		t.Errorf("both guards 1s×2: checked within 30s %.4f, want 0.875² = %.4f", both.AnsweredWithinShare, want)
	}
	if p := cr.Picked(); !bothHedged(p) {
		t.Errorf("pick %s; want both guards hedged at 1s×2 (the most turns checked)", p.Label)
	}
}

// TestCheckedNeedsAPipeline: objective "checked" is named "checked", reads
// "most requests checked within …", and Settings.Validate refuses it on a
// one-call class (the scenario loader and the CLI give the file's line or
// the flag; an API caller gets the class) but takes it on a pipeline.
func TestCheckedNeedsAPipeline(t *testing.T) {
	var o optimize.Objective
	if err := o.SetName("checked"); err != nil || o.Name() != "checked" || !o.Checked || o.Goal != optimize.MostAnswered {
		t.Fatalf("SetName(checked): %v, %+v", err, o)
	}
	o.Target, o.MaxAddedCostPct, o.MaxHedgedPct = 2*time.Second, 10, 100
	if got, want := o.String(), "most requests checked within 2.00s with added cost ≤ +10%"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if err := o.SetName("answered"); err != nil || o.Checked || o.Name() != "answered" {
		t.Errorf("SetName(answered) after checked: %v, %+v", err, o)
	}

	s := optimize.DefaultSettings()
	s.Search.Objective.Checked, s.Search.Objective.Goal, s.Search.Objective.Target = true, optimize.MostAnswered, 2*time.Second
	if err := s.Validate(lognormalConfig()); err == nil || !strings.Contains(err.Error(), `objective "checked"`) {
		t.Errorf("checked on a one-call class: %v; want an error naming the objective", err)
	}
	sc, err := scenario.LoadFS(scenarios.FS, "help-chat-turn.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(&sc.Config); err != nil {
		t.Errorf("checked on a pipeline class: %v", err)
	}
}
