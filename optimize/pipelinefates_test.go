package optimize_test

import (
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// TestPipelineCandidatesHaveNoRescued: a pipeline's runs are not paired
// request by request with no hedging, so a candidate whose steps hedge has
// no rescued or harmed share (JSON null, as docs/optimize.md says) — it
// read 0, as if hedging had rescued nothing — while no hedging's are 0.
func TestPipelineCandidatesHaveNoRescued(t *testing.T) {
	sc, err := scenario.LoadFS(scenarios.FS, "help-chat-turn.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := optimize.DefaultSettings()
	s.Requests = 2000
	s.CheckRequests = 0
	rep, err := optimize.Run(&sc.Config, s, optimize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hedged := 0
	for _, cr := range rep.Classes {
		for _, c := range cr.Candidates {
			if len(c.Steps) == 0 {
				t.Fatalf("class %s, %s: not a pipeline candidate", cr.Class, c.Label)
			}
			if !c.Hedging {
				if c.RescuedShare == nil || *c.RescuedShare != 0 {
					t.Errorf("class %s, no hedging: rescued %v, want 0", cr.Class, c.RescuedShare)
				}
				continue
			}
			hedged++
			if c.RescuedShare != nil || c.HarmedShare != nil {
				t.Errorf("class %s, %s: rescued %v, harmed %v; want none (not paired)", cr.Class, c.Label, *c.RescuedShare, *c.HarmedShare)
			}
		}
	}
	if hedged == 0 {
		t.Fatal("no hedged candidate")
	}
}
