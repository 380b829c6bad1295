package optimize_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// undecidedScenario's one class hedges after a fixed 1 s, a delay the
// sweep's grid does not hold: at 30 requests a candidate its p95 has no
// interval, so the verdict is undecided and the configured policy, which
// the sweep did not simulate, rolls out.
const undecidedScenario = `requests = 2000
[arrivals]
rate = 10
[models.a]
latency = { kind = "lognormal", median = 0.5, p95 = 2.0 }
price_per_request = 0.001
[[classes]]
name = "c"
deadline = "10s"
[classes.hedge]
delay = "1s"
`

// TestUndecidedPickIsWhatRollsOut pins an undecided class's report
// contradicting what rolls out: the text said "pick: no hedging", report.json
// gave pick 0 with status "picked", candidates.csv pick=true on "none",
// while export and --write-scenario keep the configured policy. Now
// rolls_out says "configured"; when the sweep did not simulate that
// policy, no candidate is picked (each, no hedging included, is rejected
// for too few requests) and the text's pick line says so without a "who
// answered" line of no hedging's figures, nor when its candidate is one no
// pick may be (an overload); when the sweep simulated it
// (breaker-outage's fallback copies), that candidate is the pick, the
// only one picked.
func TestUndecidedPickIsWhatRollsOut(t *testing.T) {
	sc, err := scenario.Parse("base.toml", []byte(undecidedScenario))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 30, 0
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
	cr := &rep.Classes[0]
	if !cr.Verdict.Undecided || cr.RolledOut() != nil {
		t.Fatalf("verdict %+v, rolled out %v; the test needs an undecided class whose configured policy the sweep did not simulate", cr.Verdict, cr.RolledOut())
	}
	if cr.RollsOut != optimize.RollsOutConfigured || !cr.Unpicked() {
		t.Errorf("rolls_out %q, unpicked %v; want configured, no candidate picked", cr.RollsOut, cr.Unpicked())
	}
	for _, c := range cr.Candidates {
		if c.Pick || c.Status == optimize.StatusPicked {
			t.Errorf("candidate %s: pick %v, status %s; want none picked", c.Label, c.Pick, c.Status)
		}
	}
	if c := cr.Baseline(); c.Status != optimize.StatusRejected || len(c.Reasons) != 1 || c.Reasons[0].Code != optimize.ReasonTooFew {
		t.Errorf("no hedging: %s %+v; want rejected for too few requests", c.Status, c.Reasons)
	}
	var text, js, csvOut bytes.Buffer
	if err := rep.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteCSV(&csvOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "\n  pick: undecided, so no candidate is picked: the configured policy rolls out (export and --write-scenario keep it), which the sweep did not simulate; ") ||
		strings.Contains(text.String(), "pick: no hedging") || strings.Contains(text.String(), "who answered:") {
		t.Errorf("text: want the pick line to say the configured policy rolls out, not no hedging:\n%s", text.String())
	}
	var out struct {
		Classes []struct {
			RollsOut   string `json:"rolls_out"`
			Candidates []struct {
				Pick   bool   `json:"pick"`
				Status string `json:"status"`
			} `json:"candidates"`
		} `json:"classes"`
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if jc := out.Classes[0]; jc.RollsOut != "configured" || slices.ContainsFunc(jc.Candidates, func(c struct {
		Pick   bool   `json:"pick"`
		Status string `json:"status"`
	}) bool {
		return c.Pick || c.Status == "picked"
	}) {
		t.Errorf("report.json class %+v; want rolls_out configured and no candidate picked", jc)
	}
	rows, err := csv.NewReader(&csvOut).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	pick, status := slices.Index(optimize.CSVHeader, "pick"), slices.Index(optimize.CSVHeader, "status")
	for _, r := range rows[1:] {
		if r[pick] != "false" || r[status] == "picked" {
			t.Errorf("candidates.csv row %s: pick %s, status %s; want none picked", r[1], r[pick], r[status])
		}
	}

	// The configured copy after 1 s overloads b's rate limit over a sweep
	// too short to measure its 429s (TestOverloadMeasured): that
	// candidate is one no pick may be, so none is picked; it keeps its
	// reason, and no candidate is known to differ from what rolls out.
	ol := optimize.DefaultSettings()
	ol.Requests, ol.CheckRequests = 5000, 0
	ol.Search.Delays = []time.Duration{time.Second, 20 * time.Second}
	ol.Search.Objective.MaxAddedCostPct = math.Inf(1)
	cr = &mustRun(t, rateLimitedCopies(5000), ol, optimize.Options{}).Classes[0]
	conf := cr.RolledOut()
	if !cr.Verdict.Undecided || conf == nil || !conf.OverloadExcluded {
		t.Fatalf("overload: verdict %+v, rolled out %v; the test needs an undecided class whose configured candidate is excluded", cr.Verdict, conf)
	}
	if !cr.Unpicked() || conf.Pick || conf.Status != optimize.StatusRejected ||
		!strings.Contains(cr.PickNote, "undecided, so no candidate is picked: the configured policy rolls out (export and --write-scenario keep it), and its candidate (1s) is one no pick may be (overloads_rate_limit); ") {
		t.Errorf("overload: unpicked %v, configured candidate pick %v, %s; note %q", cr.Unpicked(), conf.Pick, conf.Status, cr.PickNote)
	}
	for _, c := range cr.Candidates {
		if c.Pick || c.Status == optimize.StatusPicked || !c.LikePick {
			t.Errorf("overload: candidate %s: pick %v, status %s, like the pick %v; want none picked, each like what rolls out", c.Label, c.Pick, c.Status, c.LikePick)
		}
	}

	// The sweep simulated breaker-outage's configured fallback copies:
	// that candidate is the pick.
	bo, err := scenario.LoadFS(scenarios.FS, "breaker-outage.toml")
	if err != nil {
		t.Fatal(err)
	}
	s = bo.Optimize
	s.Requests, s.CheckRequests = 1000, 0
	rep = mustRun(t, &bo.Config, s, optimize.Options{Workers: 2})
	text.Reset()
	if err := rep.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	for i := range rep.Classes {
		cr := &rep.Classes[i]
		if !cr.Verdict.Undecided || cr.RolledOut() == nil {
			t.Fatalf("class %s: verdict %+v; the test needs an undecided class whose configured policy the sweep simulated", cr.Class, cr.Verdict)
		}
		if cr.RollsOut != optimize.RollsOutConfigured || cr.Unpicked() || cr.Picked() != cr.RolledOut() || !cr.Picked().Configured {
			t.Errorf("class %s: rolls_out %q, pick %s; want the configured candidate", cr.Class, cr.RollsOut, cr.Picked().Label)
		}
		for k, c := range cr.Candidates {
			if (c.Pick || c.Status == optimize.StatusPicked) != (k == cr.Pick) {
				t.Errorf("class %s: candidate %s pick %v, status %s; want only the pick %d picked", cr.Class, c.Label, c.Pick, c.Status, cr.Pick)
			}
		}
		if want := "\n  pick: configured (the class's configured policy: up to 1 copy to fallback); undecided, so the configured policy rolls out (export and --write-scenario keep it); "; !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}
