package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// slightOverload is a class whose copies go to its own model, limited to
// 200 requests a minute (3.33/s) while the class sends 3 a second: the
// sweep's pick at 6316 requests, 869ms, offers the limit 3.4 requests a
// second, which the sweep's first full bucket hides (every request
// answered) and the longer rollout check does not (122 429s).
const slightOverload = `seed = 3
requests = 2000
[arrivals]
rate = 3.0
[models.emb]
provider = "p1"
latency = { kind = "lognormal", median = 0.3, p95 = 1.5 }
price_per_request = 0.001
rate_limit = { requests_per_minute = 200 }
[[classes]]
name = "embed"
share = 1.0
deadline = "5s"
[classes.hedge]
primary = "emb"
targets = ["emb"]
delay = "200ms"
max_copies = 2
on_error = "fatal"
`

// TestCheckedFewerAnswersPickRollsOutNoHedging: a "hedge" pick that the
// rollout check finds answering significantly fewer requests than no
// hedging does not roll out: the verdict becomes "don't hedge" saying
// why, the check runs again with no hedging (not flagged, its note
// saying why), the refuted candidate is rejected fewer_answers_in_check
// in JSON and candidates.csv (the faster ones the rule accepts, which the
// check did not run, say so), and export and --write-scenario roll out
// no hedging. With allow_fewer_answers the user has opted in: the pick
// stays and the check flags it. Before, the pick 869ms stayed "hedge"
// with its check FLAGGED at 99.84% → 98.07% answered.
func TestCheckedFewerAnswersPickRollsOutNoHedging(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "a2.toml")
	if err := os.WriteFile(sc, []byte(slightOverload), 0o644); err != nil {
		t.Fatal(err)
	}
	out, ws := filepath.Join(dir, "out"), filepath.Join(dir, "ws.toml")
	// --no-plots: the text, report.json, candidates.csv and the scenario
	// are read, not figures.
	code, stdout, stderr := hedgesim(t, "optimize", "--quiet", "--requests", "6316", "--check-requests", "6316", "--out", out, "--no-plots", "--write-scenario", ws, sc)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	text := strings.Join(strings.Fields(stdout), " ") // unwrapped
	const why = "it answers significantly fewer requests than no hedging in a first rollout check of 6316 requests (99.8% → 98.1%)"
	if !strings.Contains(text, "don't hedge: the pick (869ms) does not roll out: "+why) {
		t.Errorf("text does not say why no hedging rolls out:\n%s", stdout)
	}
	if strings.Contains(text, "FLAGGED") {
		t.Errorf("the check of what rolls out is flagged:\n%s", stdout)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Classes []struct {
			Pick       int `json:"pick"`
			Candidates []struct {
				Label   string `json:"label"`
				Status  string `json:"status"`
				Reasons []struct {
					Code  string  `json:"code"`
					Value float64 `json:"value"`
					Limit float64 `json:"limit"`
					Text  string  `json:"text"`
				} `json:"reasons"`
			} `json:"candidates"`
			Verdict struct {
				Hedge     bool   `json:"hedge"`
				Label     string `json:"label"`
				DecidedBy string `json:"decided_by"`
			} `json:"verdict"`
		} `json:"classes"`
		Rollout struct {
			Classes []struct {
				Pick    string `json:"pick"`
				Flagged bool   `json:"flagged"`
				Note    string `json:"note"`
			} `json:"classes"`
		} `json:"rollout_check"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	cr, rc := rep.Classes[0], rep.Rollout.Classes[0]
	if cr.Pick != 0 || cr.Verdict.Hedge || cr.Verdict.Label != "don't hedge" || cr.Verdict.DecidedBy != "" {
		t.Errorf("JSON: pick %d, verdict %+v; want no hedging, don't hedge", cr.Pick, cr.Verdict)
	}
	refuted, unchecked := 0, 0
	for _, c := range cr.Candidates {
		for _, r := range c.Reasons {
			if r.Code == "costlier_than_pick" && strings.Contains(r.Text, "the rollout check refuted the sweep's pick (869ms), so no hedging rolls out, and it did not check this one") {
				unchecked++
			}
			if r.Code == "fewer_answers_in_check" {
				refuted++
				if c.Label != "869ms" || c.Status != "rejected" || r.Value >= r.Limit {
					t.Errorf("candidate %s %s: %+v; want 869ms rejected, its checked share below no hedging's", c.Label, c.Status, r)
				}
			}
		}
	}
	if refuted != 1 {
		t.Errorf("%d candidates rejected fewer_answers_in_check; want the sweep's pick", refuted)
	}
	if unchecked == 0 {
		t.Errorf("no faster candidate says it was not checked, the sweep's pick refuted")
	}
	if rc.Pick != "none" || rc.Flagged || !strings.Contains(rc.Note, "the sweep's pick 869ms does not roll out: "+why+", so the check runs no hedging") {
		t.Errorf("rollout check: pick %q, flagged %v, note %q; want no hedging, not flagged, saying why", rc.Pick, rc.Flagged, rc.Note)
	}
	csv, err := os.ReadFile(filepath.Join(out, "candidates.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(csv), "\n")
	if n := strings.Count(string(csv), ",picked,"); n != 1 || !strings.Contains(lines[1], ",picked,") || !strings.Contains(string(csv), ",rejected,fewer_answers_in_check") {
		t.Errorf("candidates.csv: %d picked, first candidate %q; want no hedging the only one picked, 869ms rejected fewer_answers_in_check", n, lines[1])
	}
	checkRollsOutNoHedging(t, sc, filepath.Join(out, "report.json"), ws)

	// Opted in: the pick rolls out, and the check flags what it found.
	code, stdout, stderr = hedgesim(t, "optimize", "--quiet", "--json", "--allow-fewer-answers", "--requests", "6316", "--check-requests", "6316", sc)
	if code != 0 {
		t.Fatalf("--allow-fewer-answers: exit %d: %s", code, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	cr, rc = rep.Classes[0], rep.Rollout.Classes[0]
	if !cr.Verdict.Hedge || rc.Pick == "none" || !rc.Flagged {
		t.Errorf("--allow-fewer-answers: verdict %+v, check of %q flagged %v; want the hedge kept and flagged", cr.Verdict, rc.Pick, rc.Flagged)
	}
}

// TestRecheckLeavesNoStaleWarning: when the rollout check runs again with
// no hedging (here the configured 200ms ×2 answers 58.3% against no
// hedging's 99.86% in the first check), only the second check's warnings
// are printed. Before, the first check's "too few" warning (2916 after
// the warm-up cut, rerun with --check-requests ≥ 6356) was printed beside
// the second's (2997, ≥ 6316).
func TestRecheckLeavesNoStaleWarning(t *testing.T) {
	sc := filepath.Join(t.TempDir(), "a2.toml")
	if err := os.WriteFile(sc, []byte(slightOverload), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := hedgesim(t, "optimize", "--quiet", "--requests", "3000", "--check-requests", "3000", sc)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	text := strings.Join(strings.Fields(stdout+stderr), " ") // unwrapped
	if !strings.Contains(text, "the check runs no hedging") {
		t.Fatalf("the check did not run again with no hedging:\n%s", stdout)
	}
	if n := strings.Count(text, "warning: embed: rollout check:"); n != 1 || !strings.Contains(text, "2997 after the warm-up cut") {
		t.Errorf("%d rollout check warnings; want one, the second check's (2997 after the warm-up cut):\n%s%s", n, stdout, stderr)
	}
}

// checkRollsOutNoHedging fails t unless the json export of report (of
// scenario sc) hedges nothing and the --write-scenario file ws sets
// max_copies = 0.
func checkRollsOutNoHedging(t *testing.T, sc, report, ws string) {
	t.Helper()
	code, exp, stderr := hedgesim(t, "export", "--format", "json", "--scenario", sc, report)
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
	w, err := os.ReadFile(ws)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(w), "max_copies = 0") {
		t.Errorf("--write-scenario wrote\n%s\nwant max_copies = 0", w)
	}
}
