package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rateLimitedEmb is slightOverload (refuted_pick_test.go): its current
// policy (a copy after 200 ms, up to 2) offers its one model more than its
// rate limit of 200 requests a minute (3.33/s) at 3 requests a second: on
// the slower live model below most requests end in 429s, so the policy
// answers far fewer requests than no hedging.
const rateLimitedEmb = slightOverload

// liveEmb is model emb's live histogram: 5000 observations, slower in the
// tail than the scenario's model (p95 about 1.95 s).
const liveEmb = `# TYPE emb_latency_seconds histogram
emb_latency_seconds_bucket{model="emb",le="0.05"} 92
emb_latency_seconds_bucket{model="emb",le="0.1"} 390
emb_latency_seconds_bucket{model="emb",le="0.25"} 1571
emb_latency_seconds_bucket{model="emb",le="0.5"} 2960
emb_latency_seconds_bucket{model="emb",le="0.75"} 3696
emb_latency_seconds_bucket{model="emb",le="1"} 4129
emb_latency_seconds_bucket{model="emb",le="1.5"} 4554
emb_latency_seconds_bucket{model="emb",le="2"} 4769
emb_latency_seconds_bucket{model="emb",le="3"} 4912
emb_latency_seconds_bucket{model="emb",le="5"} 4984
emb_latency_seconds_bucket{model="emb",le="10"} 4999
emb_latency_seconds_bucket{model="emb",le="+Inf"} 5000
emb_latency_seconds_count{model="emb"} 5000
emb_latency_seconds_sum{model="emb"} 3164.741985
`

// TestRetuneUndecidedAnswersFewerChangesToNoHedging: when the optimisation
// on the live models is undecided (3000 requests give no interval on p95)
// but the current policy, in the check on the live models, answers
// significantly fewer requests than no hedging (about 43 % against
// 99.8 %), retune does not keep it, as optimize does not roll out such a
// configured policy, undecided or not: the decision is change, to no
// hedging, saying why, and --write-scenario writes max_copies = 0. Before,
// the class kept 200 ms ×2 as "undecided".
func TestRetuneUndecidedAnswersFewerChangesToNoHedging(t *testing.T) {
	dir := t.TempDir()
	sc, live := filepath.Join(dir, "a2.toml"), filepath.Join(dir, "live.txt")
	if err := os.WriteFile(sc, []byte(rateLimitedEmb), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(live, []byte(liveEmb), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "a2r.toml")
	args := []string{"retune", sc, "--from", live, "--requests", "3000", "--check-requests", "3000", "--write-scenario", ws}
	code, stdout, stderr := hedgesim(t, args...)
	if code != 3 {
		t.Fatalf("exit %d, want 3 (shifted): %s", code, stderr)
	}
	text := strings.Join(strings.Fields(stdout), " ")
	if !strings.Contains(text, "embed: change: the optimisation on the live models is undecided") ||
		!strings.Contains(text, "but the current policy answers significantly fewer requests than no hedging on the live models") {
		t.Errorf("text does not change the undecided class to no hedging, saying why:\n%s", stdout)
	}
	w, err := os.ReadFile(ws)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(w), "max_copies = 0") || strings.Contains(string(w), `delay = "200ms"`) {
		t.Errorf("--write-scenario wrote\n%s\nwant max_copies = 0", w)
	}
	code, out, stderr := hedgesim(t, append(args[:len(args)-2], "--json")...)
	if code != 3 {
		t.Fatalf("--json: exit %d: %s", code, stderr)
	}
	var rep struct {
		Recheck struct {
			Classes []struct {
				Decision  string `json:"decision"`
				New       string `json:"new_pick"`
				Undecided bool   `json:"undecided"`
				Why       string `json:"why"`
				Now       struct {
					Answered  float64 `json:"answered_share"`
					NoHedging float64 `json:"no_hedging_answered_share"`
				} `json:"current_policy"`
			} `json:"classes"`
		} `json:"recheck"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if len(rep.Recheck.Classes) != 1 {
		t.Fatalf("--json: %d classes advised, want 1\n%s", len(rep.Recheck.Classes), out)
	}
	a := rep.Recheck.Classes[0]
	if a.Decision != "change" || a.New != "none" || a.Undecided || !strings.Contains(a.Why, "not kept") {
		t.Errorf("--json: decision %q to %q, undecided %v (%s); want change to none, not undecided", a.Decision, a.New, a.Undecided, a.Why)
	}
	// The premise: the check finds the fall optimize's rule acts on.
	if !(a.Now.Answered < 0.6 && a.Now.NoHedging > 0.99) {
		t.Errorf("--json: answered %.4f now, %.4f without hedging; want the current policy far below no hedging", a.Now.Answered, a.Now.NoHedging)
	}
}
