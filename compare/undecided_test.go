package compare

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// undecidedJSONOf sweeps cfg with 30 requests per candidate, too few for
// a p95 interval, so the verdict is undecided; the grid's one delay (1 s)
// is not the configured 2 s, so no candidate is picked and pick stays 0,
// no hedging, which does not roll out. checkRequests 0 leaves out the
// rollout check.
func undecidedJSONOf(t *testing.T, cfg *sim.Config, checkRequests int) *Report {
	t.Helper()
	s := optimize.DefaultSettings()
	s.Requests, s.CheckRequests = 30, checkRequests
	s.Search.Delays = []time.Duration{time.Second}
	s.Search.Objective.MaxAddedCostPct = math.Inf(1)
	rep, err := optimize.Run(cfg, s, optimize.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if cr := &rep.Classes[0]; !cr.Unpicked() {
		t.Fatalf("verdict %+v: the test needs an undecided class with no candidate picked", cr.Verdict)
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return mustParse(t, data)
}

// TestUndecidedConfiguredRollsOut pins compare reading an undecided
// class's pick 0 (no hedging) as its pick although no candidate is picked
// and its configured policy rolls out: the row showed "no hedging" with
// no hedging's figures. Now, without a rollout check, that side names the
// configured policy and has no figures ("-", no change, no test), with a
// note; with one, its figures are the rollout check's, which ran the
// configured policy (2 s ×1 → m, some requests hedged), shared with no
// other report's draws.
func TestUndecidedConfiguredRollsOut(t *testing.T) {
	cfg := drawsConfig("a")
	run := runJSONOf(t, cfg)

	c := Compare(run, undecidedJSONOf(t, cfg, 0))
	r := c.Rows[0]
	if r.PolicyB == "no hedging" || !strings.Contains(r.PolicyB, "configured") || r.FiguresB != NoFigures {
		t.Errorf("B's policy %q, figures %q; want the configured policy, no figures", r.PolicyB, r.FiguresB)
	}
	for _, d := range r.Deltas {
		if !math.IsNaN(d.B) || !math.IsNaN(d.Change) || d.Mark != NoTest {
			t.Errorf("%s: B %v, change %v, mark %v; want no figure, change or test", d.Metric, d.B, d.Change, d.Mark)
		}
	}
	txt, js := texts(t, c)
	if !strings.Contains(txt, "what rolls out is its configured policy") || !strings.Contains(txt, "none here (-)") {
		t.Errorf("text does not say what rolls out:\n%s", txt)
	}
	if !strings.Contains(js, `"b_figures": "none"`) {
		t.Errorf("JSON lacks b_figures none:\n%s", js)
	}

	c = Compare(run, undecidedJSONOf(t, cfg, 3000))
	r = c.Rows[0]
	if r.PolicyB != "configured: "+r.PolicyA || r.FiguresB != FromRolloutCheck || r.CommonRandomNumbers {
		t.Errorf("B's policy %q (A's %q), figures %q, common random numbers %v; want the configured policy from the rollout check, no shared draws",
			r.PolicyB, r.PolicyA, r.FiguresB, r.CommonRandomNumbers)
	}
	if r.RequestsB != 3000 {
		t.Errorf("B's requests %d; want the rollout check's 3000", r.RequestsB)
	}
	if h := delta(t, c, "hedged"); !(h.B > 0) {
		t.Errorf("B's hedged share %v; want the configured policy's copies, not no hedging's 0", h.B)
	}
	if txt, _ := texts(t, c); !strings.Contains(txt, "figures here are its rollout check's") {
		t.Errorf("text does not say where B's figures come from:\n%s", txt)
	}
}

// TestUndecidedConfiguredPicked: when the sweep simulated an undecided
// class's configured policy, its candidate is the pick (status "picked")
// and its figures are read as before, with the policy labelled as the
// configured one that rolls out. The report is a sweep's whose candidate
// 0 (no hedging) is marked picked, as for a class configured without
// hedging.
func TestUndecidedConfiguredPicked(t *testing.T) {
	s := optimize.DefaultSettings()
	s.Requests, s.CheckRequests = 30, 0
	s.Search.Delays = []time.Duration{time.Second}
	rep, err := optimize.Run(drawsConfig("a"), s, optimize.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	cl := m["classes"].([]any)[0].(map[string]any)
	if cl["rolls_out"] != "configured" || cl["pick"] != 0.0 {
		t.Fatalf("rolls_out %v, pick %v; the test needs an undecided class with pick 0", cl["rolls_out"], cl["pick"])
	}
	cl["candidates"].([]any)[0].(map[string]any)["status"] = "picked"
	if data, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	c := mustParse(t, data).Classes[0]
	if c.Policy != "configured: no hedging" || c.Figures != "" || c.Requests != 30 {
		t.Errorf("policy %q, figures %q, requests %d; want the picked configured candidate's", c.Policy, c.Figures, c.Requests)
	}
}
