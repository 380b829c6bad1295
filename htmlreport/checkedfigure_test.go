package htmlreport

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// TestCheckedCostFigure: under objective "checked" the page's cost figure
// (the SVG of plots' figure) labels its y axis and frontier with the share
// not checked within the target, not "not answered", and the survival
// figure titles a pipeline pick "per step:", without "(0 copies to )".
func TestCheckedCostFigure(t *testing.T) {
	sc, err := scenario.LoadFS(scenarios.FS, "help-chat-turn.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 2000, 0
	s.Search.Delays, s.Search.Copies = []time.Duration{time.Second}, []int{2}
	s.Search.Objective.MaxAddedCostPct = math.Inf(1)
	rep, err := optimize.Run(&sc.Config, s, optimize.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if cr := &rep.Classes[0]; !cr.Objective.Checked || !cr.Verdict.Hedge || cr.Picked().Steps == nil {
		t.Fatalf("objective %q, verdict %+v, pick %q: the test needs a hedged pipeline pick under checked", cr.Objective.Name(), cr.Verdict, cr.Picked().Label)
	}
	var page bytes.Buffer
	if err := Write(&page, rep, Options{}); err != nil {
		t.Fatal(err)
	}
	p := page.String()
	for _, want := range []string{"not checked within 30.0s (% of turns)", "no cheaper candidate checks more in time", "hedge per step: "} {
		if !strings.Contains(p, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, bad := range []string{"not answered within", "answers more in time", "copies to )"} {
		if strings.Contains(p, bad) {
			t.Errorf("the page has %q", bad)
		}
	}
}
