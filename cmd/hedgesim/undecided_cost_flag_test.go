package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dearCopy is cheapCostSLA with the copy's model 30 times dearer than the
// primary's: at 100 requests (too few for a p95 interval) the verdict is
// undecided, and the configured copy after 1 s adds about +600 % cost.
var dearCopy = strings.Replace(cheapCostSLA, "price_input_per_mtok = 3.0", "price_input_per_mtok = 30.0", 1)

// dearReport runs optimize on dearCopy with flags and returns the text
// (unwrapped), the report's JSON and the scenario's path.
func dearReport(t *testing.T, flags ...string) (string, []byte, string, string) {
	t.Helper()
	dir := t.TempDir()
	sc := filepath.Join(dir, "dear.toml")
	if err := os.WriteFile(sc, []byte(dearCopy), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	// --no-plots: the tests read the text and report.json, not figures.
	args := append([]string{"optimize", "--quiet", "--requests", "100", "--check-requests", "1000", "--out", out, "--no-plots"}, flags...)
	code, stdout, stderr := hedgesim(t, append(args, sc)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(stdout), " "), b, sc, filepath.Join(out, "report.json")
}

// verdictJSON is what the tests of an undecided class's roll-out read of
// optimize's report.json: each class's pick and verdict, and the rollout
// check's rows.
type verdictJSON struct {
	Classes []struct {
		Pick     int    `json:"pick"`
		RollsOut string `json:"rolls_out"`
		Verdict  struct {
			Undecided bool   `json:"undecided"`
			Label     string `json:"label"`
			Reason    string `json:"reason"`
		} `json:"verdict"`
	} `json:"classes"`
	Rollout struct {
		Classes []struct {
			Pick    string `json:"pick"`
			Flagged bool   `json:"flagged"`
			Flag    string `json:"flag"`
			Note    string `json:"note"`
		} `json:"classes"`
	} `json:"rollout_check"`
}

// TestUndecidedConfiguredCostFlagged: an undecided class whose configured
// policy rolls out at +606.0 % added cost in the rollout check while the
// class's own objective (p95 on the trade-off, no cap) picks no hedging
// is flagged there, in the text and JSON. Before, the check only noted
// that the configured policy ran, with no flag.
func TestUndecidedConfiguredCostFlagged(t *testing.T) {
	text, b, _, _ := dearReport(t)
	const flag = "the verdict is undecided, so the configured policy rolls out, at +606.0% added cost in the check, while the class's own objective picks no hedging"
	if !strings.Contains(text, "c: FLAGGED: "+flag) {
		t.Errorf("rollout check does not flag the configured policy's cost:\n%s", text)
	}
	var rep verdictJSON
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rc := rep.Rollout.Classes[0]; rep.Classes[0].RollsOut != "configured" || !rc.Flagged || !strings.Contains(rc.Flag, flag) {
		t.Errorf("JSON: rolls_out %q, rollout check flagged %v %q; want configured, flagged %q", rep.Classes[0].RollsOut, rc.Flagged, rc.Flag, flag)
	}
}

// TestUndecidedConfiguredOverCostCapRollsOutNoHedging: under --max-cost
// 20, the undecided class's configured policy, over the cap, does not
// roll out — as a configured policy answering fewer does not: found over
// it in the sweep (--delays puts 1s on the grid: +660.0 %) or, not swept,
// in a first rollout check (+606.0 %), which then runs again with no
// hedging. The verdict is "don't hedge" saying why, the check runs no
// hedging unflagged, and export writes no hedge. Before, the configured
// copy rolled out with a note of its cost above the cap.
func TestUndecidedConfiguredOverCostCapRollsOutNoHedging(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		why   string
	}{
		{"unswept", nil, "the configured policy does not roll out: it adds +606.0% cost in a first rollout check of 1000 requests, over the objective's cap of +20%, and what rolls out stays within the objective's cost cap"},
		{"swept", []string{"--delays", "1s,2s"}, "the configured policy does not roll out: its candidate (1s) adds +660.0% cost in the sweep, over the objective's cap of +20%, and what rolls out stays within the objective's cost cap"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, b, sc, rj := dearReport(t, append([]string{"--max-cost", "20"}, tc.flags...)...)
			if !strings.Contains(text, "verdict: don't hedge: "+tc.why) || strings.Contains(text, "FLAGGED") {
				t.Errorf("text does not roll out no hedging saying why (%q), or flags the check:\n%s", tc.why, text)
			}
			var rep verdictJSON
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatal(err)
			}
			cr, rc := rep.Classes[0], rep.Rollout.Classes[0]
			if cr.Pick != 0 || cr.RollsOut != "" || cr.Verdict.Undecided || cr.Verdict.Label != "don't hedge" || rc.Pick != "none" || rc.Flagged {
				t.Errorf("JSON: pick %d, rolls_out %q, verdict %+v, check %+v; want no hedging, don't hedge, the check on no hedging", cr.Pick, cr.RollsOut, cr.Verdict, rc)
			}
			code, exp, stderr := hedgesim(t, "export", "--format", "json", "--scenario", sc, rj)
			if code != 0 {
				t.Fatalf("export: exit %d: %s", code, stderr)
			}
			var ed struct {
				Classes []map[string]any `json:"classes"`
			}
			if err := json.Unmarshal([]byte(exp), &ed); err != nil {
				t.Fatal(err)
			}
			if ed.Classes[0]["hedge"] != false {
				t.Errorf("export: %v; want no hedge", ed.Classes[0])
			}
		})
	}
}
