package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// mm1Scenario is an M/M/1 queue at ρ = 0.9: Poisson arrivals at 0.9/s,
// exponential service at 1/s, one slot; the sojourn time is exponential
// with rate 0.1/s (p95 = ln 20/0.1 = 29.96 s).
const mm1Scenario = `name = "mm1"
seed = 1
requests = 20000
[arrivals]
rate = 0.9
[providers.p]
concurrency = 1
[models.m]
provider = "p"
latency = { kind = "exponential", rate = 1.0 }
[[classes]]
name = "c"
input_tokens = { kind = "constant", value = 1 }
output_tokens = { kind = "constant", value = 1 }
[classes.hedge]
primary = "m"
delay = "1000s"
max_copies = 1
`

func writeMM1(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mm1.toml")
	if err := os.WriteFile(path, []byte(mm1Scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunPrecisionBadInput: --precision outside [1e-6, 1) (below 1e-6,
// such as 1e-300, it would be written as ±0.00 % and no run reaches it),
// --max-requests
// below the run's requests or without --precision are usage errors naming
// the flag.
func TestRunPrecisionBadInput(t *testing.T) {
	path := writeMM1(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--precision", "0"}, "--precision 0: must be in [1e-06, 1)"},
		{[]string{"--precision", "1"}, "--precision 1: must be in [1e-06, 1)"},
		{[]string{"--precision", "-0.1"}, "--precision -0.1: must be in [1e-06, 1)"},
		{[]string{"--precision", "1e-300"}, "--precision 1e-300: must be in [1e-06, 1)"},
		{[]string{"--precision", "9e-7"}, "--precision 9e-07: must be in [1e-06, 1)"},
		{[]string{"--precision", "0.02", "--max-requests", "1000"}, "--max-requests 1000: must be in [20000,"},
		{[]string{"--max-requests", "40000"}, "--max-requests 40000: needs --precision"},
		{[]string{"--precision", "0.02", "--trace", filepath.Join(t.TempDir(), "t.csv")}, "--precision: cannot be combined with --trace"},
	} {
		code, _, stderr := hedgesim(t, append(append([]string{"run"}, tc.args...), path)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("run %v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestRunToPrecision: an M/M/1 queue at ρ = 0.9 from 20 000 requests,
// asked for a p95 within ±10 %, doubles its requests until the batched
// interval is that tight (its half-width shrinks as 1/√requests) and says
// so; with a maximum too low to reach it, it stops there and says that.
// Its requests interact: each doubling forks the run of the most requests
// after the doubling's last request started (sim.GrowWithBaselineTo), so
// the final requests are simulated in all, not n + 2n + ….
func TestRunToPrecision(t *testing.T) {
	path := writeMM1(t)
	code, stdout, stderr := hedgesim(t, "run", "--json", "--precision", "0.1", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Requests  int `json:"requests"`
		Precision struct {
			Asked, Reached float64
			Requests       int
			Simulated      int `json:"simulated_requests"`
			Met            bool
		} `json:"precision"`
		Overall struct {
			Latency struct {
				P95  float64    `json:"p95"`
				CI   [2]float64 `json:"p95_ci95"`
				CIOK bool       `json:"p95_ci95_ok"`
				Meth string     `json:"ci95_method"`
			} `json:"latency_s"`
		} `json:"overall"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	p, l := rep.Precision, rep.Overall.Latency
	if !p.Met || p.Requests <= 20000 || p.Requests != rep.Requests || p.Reached > 0.1 || !l.CIOK || p.Simulated != p.Requests {
		t.Fatalf("precision %+v at %d requests; want met beyond 20000, each request simulated once", p, rep.Requests)
	}
	if h := max(l.P95-l.CI[0], l.CI[1]-l.P95) / l.P95; h != p.Reached || !strings.HasPrefix(l.Meth, "batch means") {
		t.Errorf("reached %v, but the p95 %v and its %s interval %v give %v", p.Reached, l.P95, l.Meth, l.CI, h)
	}
	code, stdout, stderr = hedgesim(t, "run", "--wide", "--precision", "0.001", "--max-requests", "40000", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "at 40000 requests, the most --max-requests allows; ±0.10% was asked; 40000 requests simulated in all") {
		t.Errorf("a precision out of reach: no word of it in\n%s", stdout)
	}
	// The smallest precision taken is written with its digits, not as
	// ±0.00 %; one class has no widest row to name.
	code, stdout, stderr = hedgesim(t, "run", "--wide", "--precision", "1e-6", "--max-requests", "20000", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "at 20000 requests, the most --max-requests allows; ±0.0001% was asked; 20000 requests simulated in all") || strings.Contains(stdout, "widest") {
		t.Errorf("--precision 1e-6: no ±0.0001%% was asked, or a widest row, in\n%s", stdout)
	}
}

// TestRunPrecisionEveryClass: in the default scenario (two-model-gateway,
// four classes) from 4000 requests, the overall p95 is within ±1.9 % at
// once, but strict-sla's only within ±21 %: run --precision 0.05 doubles
// until every class's p95 interval and the overall one are within ±5 %,
// reports the widest of them as reached, names its row (strict-sla), and
// says so in text. In scale-to-zero the p95 is a miss, in its class and overall: the
// run stops at once naming both.
func TestRunPrecisionEveryClass(t *testing.T) {
	t.Parallel()
	type row struct {
		Class   string `json:"class"`
		Latency struct {
			P95  float64    `json:"p95"`
			CI   [2]float64 `json:"p95_ci95"`
			CIOK bool       `json:"p95_ci95_ok"`
		} `json:"latency_s"`
	}
	halfWidth := func(r row) float64 {
		l := r.Latency
		if !l.CIOK {
			return math.Inf(1)
		}
		return max(l.P95-l.CI[0], l.CI[1]-l.P95) / l.P95
	}
	// At 4000 requests the overall p95 alone would meet ±5 %, strict-sla's
	// would not.
	code, stdout, stderr := hedgesim(t, "run", "--json", "--requests", "4000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var first struct {
		Classes []row `json:"classes"`
		Overall row   `json:"overall"`
	}
	if err := json.Unmarshal([]byte(stdout), &first); err != nil {
		t.Fatal(err)
	}
	if h := halfWidth(first.Overall); h > 0.05 {
		t.Errorf("at 4000 requests the overall p95 is within ±%.2f%%; want within ±5%%", 100*h)
	}
	for _, r := range first.Classes {
		if h := halfWidth(r); r.Class == "strict-sla" && !(h > 0.05) {
			t.Errorf("at 4000 requests strict-sla's p95 is within ±%.2f%%; want beyond ±5%%", 100*h)
		}
	}
	code, stdout, stderr = hedgesim(t, "run", "--json", "--requests", "4000", "--precision", "0.05")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Precision struct {
			Reached float64 `json:"reached"`
			Widest  string  `json:"widest_class"`
			Req     int     `json:"requests"`
			Met     bool    `json:"met"`
		} `json:"precision"`
		Classes []row `json:"classes"`
		Overall row   `json:"overall"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	p := rep.Precision
	if !p.Met || p.Req <= 4000 || p.Reached > 0.05 {
		t.Fatalf("precision %+v; want met beyond 4000 requests", p)
	}
	widest, name := 0.0, ""
	for _, r := range append(rep.Classes, rep.Overall) {
		l := r.Latency
		h := halfWidth(r)
		if h > 0.05 {
			t.Errorf("class %s: p95 %v, interval %v (ok %v): ±%.2f%% at %d requests, asked ±5%%", r.Class, l.P95, l.CI, l.CIOK, 100*h, p.Req)
		}
		if h > widest {
			widest, name = h, r.Class
		}
	}
	if name == "" || name == rep.Overall.Class {
		name = "overall"
	}
	if widest != p.Reached || name != p.Widest {
		t.Errorf("reached %v at row %q; the widest row is %q at %v", p.Reached, p.Widest, name, widest)
	}
	code, stdout, stderr = hedgesim(t, "run", "--wide", "--requests", "4000", "--precision", "0.05")
	if want := fmt.Sprintf("(widest: class %s) at %d requests (asked ±5.00%%)", p.Widest, p.Req); p.Widest != "strict-sla" {
		t.Errorf("the widest row is %q; want strict-sla", p.Widest)
	} else if code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("exit %d, %s; no %q in\n%s", code, stderr, want, stdout)
	}
	code, stdout, stderr = hedgesim(t, "run", "--json", "--precision", "0.05", "scale-to-zero")
	if code != 0 {
		t.Fatalf("scale-to-zero: exit %d: %s", code, stderr)
	}
	var miss struct {
		Requests  int            `json:"requests"`
		Precision map[string]any `json:"precision"`
	}
	if err := json.Unmarshal([]byte(stdout), &miss); err != nil {
		t.Fatal(err)
	}
	if q := miss.Precision; q["met"] != false || q["requests"] != float64(miss.Requests) ||
		!strings.HasPrefix(fmt.Sprint(q["unreachable"]), "class scale-to-zero, overall: the p95 is a miss") {
		t.Errorf("scale-to-zero: precision %v; want stopped at once, class scale-to-zero and overall named as misses", q)
	}
}

// TestOptimizePrecision: optimize --precision takes the same bad-input
// checks, and doubles the requests per candidate until the pick's
// difference from no hedging is measured within ± P, saying how it ended;
// every doubling simulates each candidate again, n + 2n + … requests in
// all per candidate.
func TestOptimizePrecision(t *testing.T) {
	path := writeMM1(t)
	base := []string{"optimize", "--requests", "20000", "--check-requests", "0", "--delays", "5s,20s"}
	code, _, stderr := hedgesim(t, append(append(base, "--precision", "2"), path)...)
	if code != 2 || !strings.Contains(stderr, "--precision 2: must be in [1e-06, 1)") {
		t.Errorf("--precision 2: exit %d, %q", code, stderr)
	}
	code, stdout, stderr := hedgesim(t, append(append(base, "--json", "--precision", "0.1"), path)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Requests  int `json:"requests_per_candidate"`
		Precision struct {
			Reached   float64
			Requests  int
			Simulated int `json:"simulated_requests"`
			Met       bool
		} `json:"precision"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if p := rep.Precision; !p.Met || p.Reached > 0.1 || p.Requests <= 20000 || p.Requests != rep.Requests || p.Simulated != 2*p.Requests-20000 {
		t.Errorf("precision %+v, %d requests per candidate; want met beyond 20000", p, rep.Requests)
	}
}

// missScenario is one class whose requests take 0.1–0.3 s or 3–19 s
// (half each) against a 3 s deadline: without hedging half of them, and
// with two copies at 1 s and 2 s one in eight, go unanswered, so the p95
// is a miss either way and has no interval at any number of requests.
const missScenario = `name = "miss"
seed = 1
requests = 4000
[arrivals]
rate = 20.0
[models.m]
provider = "p"
[models.m.latency]
kind = "mixture"
weights = [0.5, 0.5]
components = [
  { kind = "uniform", min = 0.1, max = 0.3 },
  { kind = "uniform", min = 3.0, max = 19.0 },
]
[[classes]]
name = "c"
input_tokens = { kind = "constant", value = 1 }
output_tokens = { kind = "constant", value = 1 }
deadline = "3s"
on_timeout = "fail_open"
[classes.hedge]
primary = "m"
delay = "1s"
max_copies = 2
`

// TestPrecisionOfAMiss: when the p95 is a miss, --precision cannot be
// reached however many requests are simulated: run and optimize stop at
// once at the first run's requests (no doubling), exit 0, write the
// reached half-width as JSON null with the reason, and say so in text.
func TestPrecisionOfAMiss(t *testing.T) {
	path := filepath.Join(t.TempDir(), "miss.toml")
	if err := os.WriteFile(path, []byte(missScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", "--precision", "0.5"},
		{"optimize", "--requests", "4000", "--check-requests", "0", "--precision", "0.02"},
	} {
		code, stdout, stderr := hedgesim(t, append(append(args, "--json"), path)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var rep struct {
			Precision map[string]any `json:"precision"`
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		p := rep.Precision
		if r, ok := p["reached"]; !ok || r != nil || p["requests"] != 4000.0 || p["met"] != false ||
			!strings.Contains(fmt.Sprint(p["unreachable"]), "miss") {
			t.Errorf("%v: precision %v; want reached null, stopped at 4000 requests, unreachable naming the miss", args, p)
		}
		code, stdout, stderr = hedgesim(t, append(args, path)...)
		if code != 0 || !strings.Contains(stdout, "precision: ±") || !strings.Contains(stdout, "cannot be reached") {
			t.Errorf("%v: exit %d, %s; no word that the precision cannot be reached in\n%s", args, code, stderr, stdout)
		}
	}
}

// TestOptimizePrecisionSkipsAMiss: in the default scenario, class
// strict-sla's p95 without hedging is a miss, so its figure has no
// interval; optimize --precision leaves it out, doubles the requests
// until the other classes reach ±20 %, and names strict-sla as the class
// where the precision cannot be reached (met: false), with the others'
// half-width as the figure reached.
func TestOptimizePrecisionSkipsAMiss(t *testing.T) {
	code, stdout, stderr := hedgesim(t, "optimize", "--requests", "2000", "--check-requests", "0", "--precision", "0.2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Precision struct {
			Reached     *float64 `json:"reached"`
			Requests    int      `json:"requests"`
			MaxRequests int      `json:"max_requests"`
			Met         bool     `json:"met"`
			Unreachable string   `json:"unreachable"`
		} `json:"precision"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	p := rep.Precision
	if p.Reached == nil || *p.Reached > 0.2 || p.Met || p.Requests <= 2000 || p.Requests >= p.MaxRequests ||
		!strings.HasPrefix(p.Unreachable, "class strict-sla: p95 without hedging is a miss") {
		t.Errorf("precision %+v; want the other classes within ±20%% after doubling, strict-sla named as unreachable", p)
	}
}

// TestRunPrecisionExtends: run --precision on shipped scenarios whose
// requests are independent — on the lane (long-prompts, two-model-gateway,
// llmperf-70b) or off it (failure-domains' slow periods, stream-stalls,
// status-rules' failures by kind) — extends each run by the requests
// added instead of simulating again from the start: the
// report, JSON and text, is byte for byte the one simulating again gives
// (precisionFlags.resimulate), but for the requests simulated in all —
// the final requests, where simulating again makes n + 2n + … of them.
// Each doubles at least once from 2000 requests.
func TestRunPrecisionExtends(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		precision float64
	}{{"long-prompts.toml", 0.01}, {"two-model-gateway.toml", 0.01}, {"llmperf-70b.toml", 0.002}, {"failure-domains.toml", 0.01}, {"stream-stalls.toml", 0.01}, {"status-rules.toml", 0.01}} {
		name := tc.name
		reps := toPrecisionBoth(ctx, t, name, tc.precision, 64000)
		p, q := reps[0].Precision, reps[1].Precision
		n := int64(p.Requests)
		if p.Requests <= 2000 || p.Simulated != n || q.Simulated != 2*n-2000 {
			t.Fatalf("%s: extended %+v, simulated again %+v; want more than 2000 requests, %d simulated extending and %d simulating again", name, p, q, n, 2*n-2000)
		}
		t.Logf("%s: ±%.2f%% at %d requests, %d simulated extending, %d simulating again", name, 100*p.Reached, n, p.Simulated, q.Simulated)
		q.Simulated = p.Simulated
		sameReports(t, name+": the extended run", reps)
	}
}

// toPrecisionBoth runs the shipped scenario name from 2000 requests to
// the relative precision (a fraction) at most most requests, as run
// --precision does: extending its run (index 0, 2 workers) and simulated
// again at each doubling (index 1, 1 worker).
func toPrecisionBoth(ctx context.Context, t *testing.T, name string, precision float64, most int64) [2]*sim.Report {
	t.Helper()
	s, err := scenario.LoadFS(scenarios.FS, name)
	if err != nil {
		t.Fatal(err)
	}
	var reps [2]*sim.Report
	for i, resimulate := range []bool{false, true} {
		cfg := s.Config
		cfg.Requests = 2000
		pf := &precisionFlags{resimulate: resimulate}
		pf.p = floatFlag{v: precision, set: true}
		pf.max = intFlag{v: most, set: true}
		rep, err := pf.runToPrecision(ctx, &cfg, 2-i, nil, true, func(*sim.Config) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		reps[i] = rep
	}
	return reps
}

// TestRunPrecisionPipelinesSimulateAgain: a pipeline whose calls are
// independent takes the simulator's lane, which does not hold, so run
// --precision simulates it again from the start at each doubling, as
// --help says: help-chat-turn and agent-loop from 2000 requests simulate
// 2000 + 4000 + … + n = 2n − 2000 requests in all, and the report is the
// one of a run told to simulate again.
func TestRunPrecisionPipelinesSimulateAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, name := range []string{"help-chat-turn.toml", "agent-loop.toml"} {
		reps := toPrecisionBoth(ctx, t, name, 0.001, 16000)
		p, q := reps[0].Precision, reps[1].Precision
		n := int64(p.Requests)
		if n != 16000 || p.Simulated != 2*n-2000 || q.Simulated != 2*n-2000 {
			t.Fatalf("%s: %+v, simulated again %+v; want 16000 requests, %d simulated in all by both", name, p, q, 2*n-2000)
		}
		sameReports(t, name+": the run to a precision", reps)
	}
}

// TestRunPrecisionOfATrace: a replayed trace runs at most its own
// arrivals (llmperf-azure-chat: 3000), so run --precision stops there by
// default, saying it is the most allowed, and a --max-requests beyond them
// is a usage error naming the flag and the trace's arrivals. With
// --requests 1000, whose classes are matched on the first 1000 requests,
// the maximum is still the trace's 3000 arrivals: the run doubles to 2000
// and stops at 3000, its report the one of run --requests 3000 (the
// classes' shares of the 3000 requests, each step simulated again:
// 1000 + 2000 + 3000 requests in all); --max-requests 3000 is taken and
// 5000 refused as beyond them.
func TestRunPrecisionOfATrace(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := hedgesim(t, "run", "--json", "--precision", "0.0001", "llmperf-azure-chat")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Precision map[string]any `json:"precision"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if p := rep.Precision; p["requests"] != 3000.0 || p["max_requests"] != 3000.0 || p["simulated_requests"] != 3000.0 || p["met"] != false {
		t.Errorf("precision %v; want stopped at the trace's 3000 arrivals", p)
	}
	code, _, stderr = hedgesim(t, "run", "--precision", "0.0001", "--max-requests", "5000", "llmperf-azure-chat")
	if want := "--max-requests 5000: must be in [3000, 3000]: at least the run's requests, at most the 3000 arrivals of the replayed trace"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, %q; want 2 and %q", code, stderr, want)
	}
	code, _, stderr = hedgesim(t, "run", "--requests", "1000", "--precision", "0.0001", "--max-requests", "5000", "llmperf-azure-chat")
	if want := "--max-requests 5000: must be in [1000, 3000]: at least the run's requests, at most the 3000 arrivals of the replayed trace"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("--requests 1000: exit %d, %q; want 2 and %q", code, stderr, want)
	}
	code, whole, stderr := hedgesim(t, "run", "--json", "--requests", "3000", "llmperf-azure-chat")
	if code != 0 {
		t.Fatalf("--requests 3000: exit %d: %s", code, stderr)
	}
	for _, extra := range [][]string{nil, {"--max-requests", "3000"}} {
		args := append([]string{"run", "--json", "--requests", "1000", "--precision", "0.0001"}, extra...)
		code, stdout, stderr := hedgesim(t, append(args, "llmperf-azure-chat")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var got, want map[string]any
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(whole), &want); err != nil {
			t.Fatal(err)
		}
		p, _ := got["precision"].(map[string]any)
		if p["requests"] != 3000.0 || p["max_requests"] != 3000.0 || p["simulated_requests"] != 6000.0 || p["met"] != false {
			t.Errorf("%v: precision %v; want stopped at the trace's 3000 arrivals, 6000 simulated", args, p)
		}
		delete(got, "precision")
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if !bytes.Equal(g, w) {
			t.Errorf("%v: the report at 3000 requests differs from run --requests 3000:\n%s\nwant\n%s", args, g, w)
		}
	}
}

// TestRunPrecisionGrowsInteracting: run --precision on shipped scenarios
// whose requests interact — a queue (loaded-provider), a pool with stale
// views and random restarts (stale-router), continuous batching, stacked
// retries, balanced replica pools (replica-pool) — forks each doubling
// instead of simulating again from the start: the report, JSON and
// text, is byte for byte the one simulating again gives
// (precisionFlags.resimulate), but for the requests simulated in all — the final requests, where simulating again makes n + 2n + …
// of them. Each doubles at least once from 1000 requests; a maximum that
// is no doubling of them (3000) simulates its last count again.
func TestRunPrecisionGrowsInteracting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	names := []string{"loaded-provider.toml", "stale-router.toml", "batching.toml", "stacked-retries.toml", "replica-pool.toml"}
	if testing.Short() {
		names = names[:2]
	}
	for _, name := range names {
		s, err := scenario.LoadFS(scenarios.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, most := range []int64{8000, 3000} {
			var reps [2]*sim.Report
			for i, resimulate := range []bool{false, true} {
				cfg := s.Config
				cfg.Requests = 1000
				pf := &precisionFlags{resimulate: resimulate}
				pf.p = floatFlag{v: 0.0001, set: true}
				pf.max = intFlag{v: most, set: true}
				rep, err := pf.runToPrecision(ctx, &cfg, 2-i, nil, true, func(*sim.Config) error { return nil })
				if err != nil {
					t.Fatal(err)
				}
				reps[i] = rep
			}
			p, q := reps[0].Precision, reps[1].Precision
			n := int64(p.Requests)
			want := n // 1000, 2000, 4000, 8000: each simulated once
			if most == 3000 {
				want = 2000 + 3000 // 3000 is no doubling of 2000: simulated again
			}
			if n != most || p.Simulated != want || q.Simulated != 2*n-1000 && most == 8000 {
				t.Fatalf("%s: grown %+v, simulated again %+v; want %d requests, %d simulated growing", name, p, q, most, want)
			}
			t.Logf("%s: %d requests, %d simulated growing, %d simulating again", name, n, p.Simulated, q.Simulated)
			q.Simulated = p.Simulated
			sameReports(t, name+": the grown run", reps)
		}
	}
}

// TestRunPrecisionMissByNoise: status-rules' class fatal answers about
// 95 % of its requests (94.96 %, Wilson [92.1 %, 96.8 %] at 1000
// requests), so its p95 at 1000 requests is a miss only by noise: run
// --precision does not call the precision unreachable but doubles, and
// fatal, whose p95's interval still reaches a miss at 4000 requests (a
// share answered of 95.3 % [94.0 %, 96.3 %]), is the widest row, without
// an interval, in JSON and text.
func TestRunPrecisionMissByNoise(t *testing.T) {
	t.Parallel()
	args := []string{"run", "--quiet", "--precision", "0.1", "--requests", "1000", "--max-requests", "4000", "status-rules"}
	code, stdout, stderr := hedgesim(t, append([]string{"run", "--json"}, args[1:]...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Precision map[string]any `json:"precision"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	p := rep.Precision
	if _, ok := p["unreachable"]; ok || p["requests"] != 4000.0 || p["reached"] != nil || p["widest_class"] != "fatal" || p["met"] != false {
		t.Errorf("precision %v; want doubled to 4000 requests, fatal the widest without an interval, nothing unreachable", p)
	}
	code, stdout, stderr = hedgesim(t, args...)
	if want := "is without an interval (widest: class fatal) at 4000 requests, the most --max-requests allows; ±10.00% was asked"; code != 0 || !strings.Contains(strings.Join(strings.Fields(stdout), " "), want) {
		t.Errorf("exit %d, %s; no %q in\n%s", code, stderr, want, stdout)
	}
}

// TestOptimizePrecisionTraceArrivals: llmperf-azure-chat replays a trace
// of 3000 arrivals with a class column, whose largest class, streamed,
// has 1767; optimize runs each class on its own arrivals. optimize
// --precision, as run does with a trace's arrivals, refuses a
// --max-requests beyond them (exit 2), stops doubling at them, and
// reports the requests the candidates ran, not those asked; the text
// says the requests simulated are per candidate.
func TestOptimizePrecisionTraceArrivals(t *testing.T) {
	t.Parallel()
	base := []string{"optimize", "--objective", "p95", "--precision", "0.001", "--requests", "1000", "--check-requests", "0"}
	code, _, stderr := hedgesim(t, append(base, "--max-requests", "5000", "llmperf-azure-chat")...)
	if want := "--max-requests 5000: must be in [1000, 1767]: at least the run's requests, at most the 1767 arrivals of class streamed in the replayed trace, its largest"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("--max-requests 5000: exit %d, %q; want exit 2 and %q", code, stderr, want)
	}
	code, stdout, stderr := hedgesim(t, append(base, "--json", "llmperf-azure-chat")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Requests  int `json:"requests_per_candidate"`
		Precision struct {
			Requests    int  `json:"requests"`
			MaxRequests int  `json:"max_requests"`
			Met         bool `json:"met"`
		} `json:"precision"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if p := rep.Precision; p.Requests != 1767 || p.MaxRequests != 1767 || p.Met || rep.Requests != 1767 {
		t.Errorf("precision %+v, %d requests per candidate; want stopped at the 1767 arrivals of class streamed", p, rep.Requests)
	}
	code, stdout, stderr = hedgesim(t, append(base, "llmperf-azure-chat")...)
	if txt := strings.Join(strings.Fields(stdout), " "); code != 0 || !strings.Contains(txt, "at 1767 requests, the most --max-requests allows") ||
		!regexp.MustCompile(`; \d+ requests simulated per candidate`).MatchString(txt) {
		t.Errorf("exit %d, %s; no precision at 1767 requests, simulated per candidate, in\n%s", code, stderr, stdout)
	}
}

// sameReports fails t unless reps[0], a run to a precision that extended
// or grew, writes the JSON and text reports reps[1], the run simulated
// again, writes; what names the first in the message.
func sameReports(t *testing.T, what string, reps [2]*sim.Report) {
	t.Helper()
	var out [2]bytes.Buffer
	for i, rep := range reps {
		if err := rep.WriteJSON(&out[i]); err != nil {
			t.Fatal(err)
		}
		if err := rep.WriteText(&out[i]); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
		t.Errorf("%s's report differs from the one simulated again:\n%s\nwant\n%s", what, out[0].Bytes(), out[1].Bytes())
	}
}

// TestMaxRequestsBeyondTheLimit checks that --max-requests, when the run's
// requests already reach the most allowed (a replayed trace's arrivals),
// gets an error that a value can satisfy, not a range whose low end is
// above its high end.
func TestMaxRequestsBeyondTheLimit(t *testing.T) {
	for _, tc := range []struct {
		max  int64
		want string // "" for no error
	}{
		{1767, "the run's 2000 requests already exceed the 1767 arrivals"},
		{5000, "the run's 2000 requests already exceed the 1767 arrivals"},
		{2000, ""},
	} {
		pf := &precisionFlags{}
		pf.p = floatFlag{v: 0.05, set: true}
		pf.max = intFlag{v: tc.max, set: true}
		err := pf.checkAtMost(2000, 1767, "the 1767 arrivals of the replayed trace")
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("--max-requests %d: %v; want no error", tc.max, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("--max-requests %d: %v; want an error saying %q", tc.max, err, tc.want)
		case tc.want != "" && strings.Contains(err.Error(), "must be in [2000, 1767]"):
			t.Errorf("--max-requests %d: %v: a range no value satisfies", tc.max, err)
		}
	}
}
