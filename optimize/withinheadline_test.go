package optimize_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
)

// TestWithinObjectiveHeadline: under objective answered the summary's
// verdict rule line states the rule the verdict applies (the share not
// answered within the target), and the summary table shows that share
// before → after, as the per-class detail does; the JSON rule text stays
// the percentile's.
func TestWithinObjectiveHeadline(t *testing.T) {
	sc := loadScenario(t, "guard-check.toml")
	s := sc.Optimize
	s.Requests = 3000 // the text's shape, not its figures, is tested
	s.CheckRequests = 0
	s.Each(func(se *optimize.Search) {
		se.Objective.Goal = optimize.MostAnswered
		se.Objective.Target = 3e9
		se.Objective.Checked = false
	})
	rep := mustRun(t, &sc.Config, s, optimize.Options{})
	var buf bytes.Buffer
	if err := rep.WriteText(&buf, false); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	flat := strings.Join(strings.Fields(text), " ")
	want := "verdict rule: hedge when the share of requests not answered within 3.00s falls by ≥ 10% and by ≥ 0.5% per 1% of added cost"
	if !strings.Contains(flat, want) {
		t.Errorf("no %q in:\n%s", want, text)
	}
	if strings.Contains(flat, "verdict rule: hedge when p95") {
		t.Errorf("the verdict rule line states the p95 rule, which no class is judged on:\n%s", text)
	}
	if !strings.Contains(flat, "answered within 3.00s before → after") {
		t.Errorf("no column of the share answered within 3.00s in:\n%s", text)
	}
	cr := &rep.Classes[0]
	b, c := cr.Baseline(), cr.RolledOut()
	if c == nil {
		t.Fatalf("no candidate rolls out")
	}
	if !cr.Verdict.Undecided && !cr.Verdict.Hedge {
		c = b // "don't hedge": after is no hedging
	}
	head, _, _ := strings.Cut(text, "spend of the pick")
	cell := fmt.Sprintf("%.1f%% → %.1f%%", 100*b.AnsweredWithinShare, 100*c.AnsweredWithinShare)
	if !strings.Contains(head, cell) {
		t.Errorf("no %q (answered within 3.00s before → after) in the summary:\n%s", cell, head)
	}
	if rep.RuleText != s.Rule.Describe(0.95, s.Level) {
		t.Errorf("JSON rule text changed: %q", rep.RuleText)
	}
}
