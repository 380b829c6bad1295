package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rateLimitedCopy is a class whose configured copy after 500 ms goes to a
// model limited to 30 requests a minute while the class sends 5 a second:
// most copies get 429s and requests wait for them, so the configured
// policy answers far fewer requests than no hedging, while at 3000
// requests no candidate's p95 has an interval (the verdict is undecided).
const rateLimitedCopy = `seed = 1
requests = 3000
[arrivals]
rate = 5.0
[models.a]
latency = { kind = "lognormal", median = 1.0, p95 = 4.0 }
price_per_request = 0.001
[models.b]
latency = { kind = "lognormal", median = 1.0, p95 = 2.0 }
price_per_request = 0.001
[models.b.rate_limit]
requests_per_minute = 30
[[classes]]
name = "api"
deadline = "20s"
[classes.hedge]
primary = "a"
targets = ["b"]
delay = "500ms"
max_copies = 1
`

// TestUndecidedConfiguredAnswersFewerRollsOutNoHedging: an undecided class
// whose configured policy answers significantly fewer requests than no
// hedging does not roll it out; no hedging does, and every output says
// so: the verdict is "don't hedge" (not undecided, no rolls_out) with why,
// the rollout check runs no hedging and is not flagged, candidates.csv
// marks no hedging picked, export writes no hedge and --write-scenario
// max_copies = 0. Both ways the configured policy is known to answer
// fewer: its sweep candidate is rejected fewer_answers (--delays puts
// 500ms on the grid), or, not swept, it answers fewer in the rollout
// check, which then runs again with no hedging. Before, the configured
// 500 ms rolled out, the check flagging it at 31.58% answered.
func TestUndecidedConfiguredAnswersFewerRollsOutNoHedging(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		why   string
	}{
		{"unswept", nil, "it answers significantly fewer requests than no hedging in a first rollout check of 15000 requests"},
		{"swept", []string{"--delays", "500ms,3s,4s"}, "its candidate (500ms) answers significantly fewer requests than no hedging in the sweep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			sc := filepath.Join(dir, "rl.toml")
			if err := os.WriteFile(sc, []byte(rateLimitedCopy), 0o644); err != nil {
				t.Fatal(err)
			}
			out, ws := filepath.Join(dir, "out"), filepath.Join(dir, "ws.toml")
			// --no-plots: the outputs read are the text, report.json,
			// candidates.csv and the scenario, not figures.
			args := append([]string{"optimize", "--quiet", "--requests", "3000", "--check-requests", "15000", "--out", out, "--no-plots", "--write-scenario", ws}, tc.flags...)
			code, stdout, stderr := hedgesim(t, append(args, sc)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			text := strings.Join(strings.Fields(stdout), " ") // unwrapped
			if !strings.Contains(text, "don't hedge: the configured policy does not roll out: "+tc.why) {
				t.Errorf("text does not say why no hedging rolls out (%q):\n%s", tc.why, stdout)
			}
			if strings.Contains(text, "FLAGGED") || strings.Contains(text, "rolls out (export and --write-scenario keep it)") {
				t.Errorf("text still rolls out the configured policy or flags the check:\n%s", stdout)
			}
			b, err := os.ReadFile(filepath.Join(out, "report.json"))
			if err != nil {
				t.Fatal(err)
			}
			var rep verdictJSON
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatal(err)
			}
			cr, rc := rep.Classes[0], rep.Rollout.Classes[0]
			if cr.Pick != 0 || cr.RollsOut != "" || cr.Verdict.Undecided || cr.Verdict.Label != "don't hedge" ||
				!strings.Contains(cr.Verdict.Reason, "cannot tell at 3000 requests") {
				t.Errorf("JSON: pick %d, rolls_out %q, verdict %+v; want no hedging, don't hedge, keeping why it could not tell", cr.Pick, cr.RollsOut, cr.Verdict)
			}
			if rc.Pick != "none" || rc.Flagged {
				t.Errorf("rollout check: pick %q, flagged %v; want no hedging, not flagged", rc.Pick, rc.Flagged)
			}
			if tc.flags == nil && !strings.Contains(rc.Note, "the class's configured policy does not roll out: "+tc.why) {
				t.Errorf("rollout check note %q; want it to say why the check ran no hedging", rc.Note)
			}
			csv, err := os.ReadFile(filepath.Join(out, "candidates.csv"))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(csv), "\n")
			if n := strings.Count(string(csv), ",picked,"); n != 1 || !strings.Contains(lines[1], ",picked,") {
				t.Errorf("candidates.csv: %d picked, first candidate %q; want no hedging the only one picked", n, lines[1])
			}
			checkRollsOutNoHedging(t, sc, filepath.Join(out, "report.json"), ws)
		})
	}
}
