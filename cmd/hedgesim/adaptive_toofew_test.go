package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// embedScenario: two lognormal embedding models and two classes that hedge
// from one to the other; their requests are independent, so no hedging's
// p95 needs 110 requests for a 95% interval, while an adaptive delay's
// requests interact (each delay follows recent latencies) and need 30
// batches of 200: 6000.
const embedScenario = `seed = 3
requests = 4000
[arrivals]
rate = 20.0
[models.embed-a]
provider = "aws"
latency = { kind = "lognormal", median = 0.08, p95 = 0.4 }
price_per_request = 0.0001
[models.embed-b]
provider = "gcp"
latency = { kind = "lognormal", median = 0.1, p95 = 0.3 }
price_per_request = 0.00012
[[classes]]
name = "search"
share = 0.7
deadline = "2s"
[classes.hedge]
primary = "embed-a"
targets = ["embed-b"]
delay = "250ms"
max_copies = 1
[[classes]]
name = "batch-index"
share = 0.3
deadline = "10s"
[classes.hedge]
primary = "embed-a"
targets = ["embed-b"]
delay = "1s"
max_copies = 1
`

// TestAdaptiveTooFewJudgesFixedDelays: at 4000 requests the adaptive
// candidates have no p95 interval (6000 needed) while the fixed delays
// and no hedging have theirs. The trade-off ends at adaptive p90, which
// cannot be judged; the fixed delays still are, on their own intervals:
// the verdict recommends the cheapest one the rule accepts, saying why,
// each adaptive candidate's too_few reason names 6000 (not no hedging's
// 110), no fixed delay with an interval is "too few", and a warning gives
// the --requests that would judge the adaptive ones. Rerun with it, they
// have intervals. Before, every class was undecided, advising --requests
// ≥ 110, which 4000 already exceeds.
func TestAdaptiveTooFewJudgesFixedDelays(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "emb.toml")
	if err := os.WriteFile(sc, []byte(embedScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	type reason struct {
		Code  string  `json:"code"`
		Limit float64 `json:"limit"`
	}
	type report struct {
		Classes []struct {
			Class      string `json:"class"`
			Pick       int    `json:"pick"`
			Candidates []struct {
				Label    string   `json:"label"`
				P95CIOK  bool     `json:"p95_ci95_ok"`
				Reasons  []reason `json:"reasons"`
				Adaptive any      `json:"adaptive"`
			} `json:"candidates"`
			Verdict struct {
				Hedge     bool   `json:"hedge"`
				Undecided bool   `json:"undecided"`
				Reason    string `json:"reason"`
			} `json:"verdict"`
			Warnings []string `json:"warnings"`
		} `json:"classes"`
	}
	code, stdout, stderr := hedgesim(t, "optimize", "--json", "--quiet", "--requests", "4000", "--check-requests", "0", "--adaptive", "50,90,95", sc)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for _, cr := range rep.Classes {
		pick := cr.Candidates[cr.Pick]
		if cr.Verdict.Undecided || !cr.Verdict.Hedge || pick.Adaptive != nil || !pick.P95CIOK ||
			!strings.Contains(cr.Verdict.Reason, "(adaptive p90) cannot be judged at these requests: too few for a 95% interval on p95 (4000 simulated, at least 6000 needed: rerun with --requests ≥ 6000)") {
			t.Errorf("class %s: pick %s, verdict %+v; want a fixed delay recommended, saying adaptive p90 needs 6000", cr.Class, pick.Label, cr.Verdict)
		}
		adaptive := 0
		for _, c := range cr.Candidates {
			for _, r := range c.Reasons {
				if r.Code != "too_few_requests" {
					continue
				}
				if c.P95CIOK || c.Adaptive == nil || r.Limit != 6000 {
					t.Errorf("class %s: candidate %s (interval %v) is too_few_requests, %v needed; want only the adaptive ones, 6000 needed", cr.Class, c.Label, c.P95CIOK, r.Limit)
				}
				adaptive++
			}
		}
		if adaptive != 3 {
			t.Errorf("class %s: %d candidates too few; want the 3 adaptive ones", cr.Class, adaptive)
		}
		if !strings.Contains(strings.Join(cr.Warnings, "\n"), "4000 requests are too few for a 95% interval on p95 of 3 candidates (adaptive p50, adaptive p90, adaptive p95), whose requests interact: at least 6000 are needed (rerun with --requests ≥ 6000)") {
			t.Errorf("class %s: warnings %q; want one on the adaptive candidates' 6000", cr.Class, cr.Warnings)
		}
	}
	// The advice suffices: at 6000 requests every adaptive candidate has
	// its interval.
	code, stdout, stderr = hedgesim(t, "optimize", "--json", "--quiet", "--requests", "6000", "--check-requests", "0", "--adaptive", "50,90,95", sc)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rep = report{}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for _, cr := range rep.Classes {
		for _, c := range cr.Candidates {
			if c.Adaptive != nil && !c.P95CIOK {
				t.Errorf("class %s at 6000 requests: %s has no p95 interval; the advice did not suffice", cr.Class, c.Label)
			}
		}
	}
}

// degradedRank is a class on a provider that is degraded a quarter of the
// time (8× slower), where hedging cuts the unanswered share (deadline
// 10s) by about 90 %.
const degradedRank = `seed = 7
requests = 4000
[arrivals]
rate = 50.0
[providers.p]
degraded = { mean_normal = "30s", mean_degraded = "10s", slowdown = 8.0 }
[models.m]
provider = "p"
latency = { kind = "lognormal", median = 0.2, p95 = 1.5 }
price_per_request = 0.001
[[classes]]
name = "rank"
deadline = "10s"
[classes.hedge]
primary = "m"
targets = ["m"]
delay = "2s"
`

// TestAdaptiveTooFewNotHedgedOnUnansweredAlone: the objective's choice,
// adaptive p50, has no p95 interval at 4000 requests (its requests
// interact: 6000 needed), yet its unanswered share's Wilson intervals
// (which assume independent requests) parted from no hedging's. Nothing
// about it counts as significant, so it cannot be judged: the fixed delay
// the rule accepts within the cap, 292ms (p95 5.25s → 2.44s, with its
// interval), is recommended instead, the reason saying why. Before,
// adaptive p50 was the pick, "hedge" decided by the unanswered share.
func TestAdaptiveTooFewNotHedgedOnUnansweredAlone(t *testing.T) {
	sc := filepath.Join(t.TempDir(), "b3.toml")
	if err := os.WriteFile(sc, []byte(degradedRank), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := hedgesim(t, "optimize", "--quiet", "--json", "--requests", "4000", "--check-requests", "0", "--adaptive", "50,70,80",
		"--max-cost", "62", "--set", "optimize.min_gain_per_cost=0", "--set", "optimize.min_unanswered_cut_per_cost=0", sc)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Classes []struct {
			Pick          int `json:"pick"`
			ObjectivePick int `json:"objective_pick"`
			Candidates    []struct {
				Label   string `json:"label"`
				P95CIOK bool   `json:"p95_ci95_ok"`
			} `json:"candidates"`
			Verdict struct {
				Hedge     bool   `json:"hedge"`
				DecidedBy string `json:"decided_by"`
				Reason    string `json:"reason"`
			} `json:"verdict"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	cr := rep.Classes[0]
	obj, pick := cr.Candidates[cr.ObjectivePick], cr.Candidates[cr.Pick]
	if obj.Label != "adaptive p50" || obj.P95CIOK {
		t.Fatalf("objective's choice %s (p95 interval %v); the test wants adaptive p50 without one", obj.Label, obj.P95CIOK)
	}
	if pick.Label != "292ms" || !pick.P95CIOK || !cr.Verdict.Hedge || cr.Verdict.DecidedBy != "percentile" ||
		!strings.HasPrefix(cr.Verdict.Reason, "recommend 292ms: the lowest-p95 pick (adaptive p50) cannot be judged at these requests") {
		t.Errorf("pick %s (p95 interval %v), verdict %+v; want 292ms, with its interval, recommended instead of adaptive p50", pick.Label, pick.P95CIOK, cr.Verdict)
	}
}

// TestAdaptiveTooFewNoFallbackUndecided: as in
// TestAdaptiveTooFewNotHedgedOnUnansweredAlone, the objective's choice,
// adaptive p50, has no p95 interval at 1500 requests (6000 needed), and
// its unanswered share's Wilson intervals part from no hedging's; but
// here no fixed delay with an interval passes the rule (--delays 9s), so
// none can be recommended instead. Its requests interact and cannot be
// paired with no hedging's independent ones, so nothing about it counts
// as significant: the verdict is undecided (the configured policy rolls
// out), asking for the requests its interval needs; rerun with them, the
// adaptive delay has its interval and the verdict is decided. Before,
// adaptive p50 was the pick, "hedge" decided by the unanswered share.
func TestAdaptiveTooFewNoFallbackUndecided(t *testing.T) {
	sc := filepath.Join(t.TempDir(), "b3.toml")
	if err := os.WriteFile(sc, []byte(degradedRank), 0o644); err != nil {
		t.Fatal(err)
	}
	type report struct {
		Classes []struct {
			Pick          int    `json:"pick"`
			ObjectivePick int    `json:"objective_pick"`
			RollsOut      string `json:"rolls_out"`
			Candidates    []struct {
				Label   string `json:"label"`
				P95CIOK bool   `json:"p95_ci95_ok"`
			} `json:"candidates"`
			Verdict struct {
				Hedge     bool   `json:"hedge"`
				Undecided bool   `json:"undecided"`
				DecidedBy string `json:"decided_by"`
				Reason    string `json:"reason"`
			} `json:"verdict"`
		} `json:"classes"`
	}
	run := func(requests string) report {
		t.Helper()
		code, stdout, stderr := hedgesim(t, "optimize", "--quiet", "--json", "--requests", requests, "--check-requests", "0", "--adaptive", "50", "--delays", "9s", sc)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var rep report
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		return rep
	}
	cr := run("1500").Classes[0]
	if obj := cr.Candidates[cr.ObjectivePick]; obj.Label != "adaptive p50" || obj.P95CIOK {
		t.Fatalf("objective's choice %s (p95 interval %v); the test wants adaptive p50 without one", obj.Label, obj.P95CIOK)
	}
	const why = "cannot tell at 1500 requests: the trade-off pick (adaptive p50) has too few for a 95% interval on p95 (1500 simulated, at least 6000 needed: rerun with --requests ≥ 6000); its unanswered share falls (0.7% → 0.1%), but its requests interact and cannot be paired with no hedging's"
	if cr.Verdict.Hedge || !cr.Verdict.Undecided || cr.Pick != 0 || cr.RollsOut != "configured" || !strings.HasPrefix(cr.Verdict.Reason, why) {
		t.Errorf("pick %s, rolls out %q, verdict %+v; want undecided, the configured policy rolling out: %q", cr.Candidates[cr.Pick].Label, cr.RollsOut, cr.Verdict, why)
	}
	// The advice suffices: at 6000 requests adaptive p50 has its
	// interval, and the verdict is decided.
	cr = run("6000").Classes[0]
	if obj := cr.Candidates[cr.ObjectivePick]; obj.Label != "adaptive p50" || !obj.P95CIOK || cr.Verdict.Undecided {
		t.Errorf("at 6000 requests: objective's choice %s (p95 interval %v), verdict %+v; want adaptive p50 with its interval, decided", obj.Label, obj.P95CIOK, cr.Verdict)
	}
}
