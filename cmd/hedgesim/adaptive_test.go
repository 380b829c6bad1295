package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// bimodalScenario: one model whose latency is 0.1–0.2 s (uniform) for 85 %
// of calls and 5–6 s for 15 %, one copy to the same model. A percentile
// delay at p90 or above of all latencies sits in the slow mode, which is
// why the oracles below hold.
const bimodalScenario = `
seed = 7
[arrivals]
rate = 100
[models.m]
price_input_per_mtok = 1.0
[models.m.latency]
kind = "mixture"
weights = [0.85, 0.15]
components = [
  { kind = "uniform", min = 0.1, max = 0.2 },
  { kind = "uniform", min = 5.0, max = 6.0 },
]
[[classes]]
name = "chat"
input_tokens = { kind = "constant", value = 1000 }
[classes.hedge]
primary = "m"
delay = "1s"
max_copies = 1
[optimize]
max_added_cost_pct = inf
`

// adaptiveReport is the part of optimize's JSON these tests read.
type adaptiveReport struct {
	Classes []struct {
		Pick       int `json:"pick"`
		Candidates []struct {
			Label      string  `json:"label"`
			Configured bool    `json:"configured"`
			Delay      float64 `json:"delay_s"`
			Copies     int     `json:"copies"`
			Target     string  `json:"target"`
			Latency    struct {
				P95     float64    `json:"p95"`
				P95CI95 [2]float64 `json:"p95_ci95"`
			} `json:"latency_s"`
			HedgedShare  float64 `json:"hedged_share"`
			AddedCostPct float64 `json:"added_cost_pct"`
			Adaptive     *struct {
				Percentile float64 `json:"percentile"`
				Window     int     `json:"window"`
				WarmUp     int     `json:"warm_up"`
				Source     string  `json:"source"`
			} `json:"adaptive"`
		} `json:"candidates"`
	} `json:"classes"`
}

func adaptiveJSON(t *testing.T, args ...string) adaptiveReport {
	t.Helper()
	code, out, errOut := hedgesim(t, append([]string{"optimize", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("optimize %q: exit %d: %s", args, code, errOut)
	}
	var r adaptiveReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestOptimizeAdaptiveCandidates: --adaptive 90,95,99 adds one candidate
// per percentile, labelled and described as such with the scenario
// file's defaults (window 1000, warm-up 100, primaries) and the class's
// copies and target; on the bimodal model a fixed delay between the
// modes wins.
func TestOptimizeAdaptiveCandidates(t *testing.T) {
	path := writeScenario(t, bimodalScenario)
	r := adaptiveJSON(t, path, "--requests", "50000", "--check-requests", "0", "--adaptive", "90,95,99", "--delays", "300ms,3s")
	cs := r.Classes[0].Candidates
	var labels []string
	for _, c := range cs {
		labels = append(labels, c.Label)
	}
	if want := "none,300ms,3s,adaptive p90,adaptive p95,adaptive p99"; strings.Join(labels, ",") != want {
		t.Fatalf("candidates %q; want %s", labels, want)
	}
	for i, p := range []float64{0.90, 0.95, 0.99} {
		c := cs[3+i]
		a := c.Adaptive
		if a == nil || a.Percentile != p || a.Window != 1000 || a.WarmUp != 100 || a.Source != "primaries" || c.Copies != 1 || c.Target != "m" || c.Configured {
			t.Errorf("%s: %+v, adaptive %+v; want percentile %g, window 1000, warm-up 100, primaries, 1 copy to m", c.Label, c, a, p)
		}
	}
	for _, c := range cs[:3] {
		if c.Adaptive != nil {
			t.Errorf("%s: has an adaptive delay", c.Label)
		}
	}
	// The fixed delay 300ms wins. Its oracle: T = min(X₁, 0.3 + X₂), so
	// for t in (0.4, 0.5) P(T > t) = 0.15·(0.15 + 8.5·(0.5 − t)), and p95
	// solves it = 0.05: t = 0.5 − (1/3 − 0.15)/8.5 = 0.47843 s; hedged
	// share P(X > 0.3) = 0.15, ± 5 standard errors at n = 5·10⁴ (0.008).
	pick := cs[r.Classes[0].Pick]
	if pick.Label != "300ms" {
		t.Fatalf("pick %s; want 300ms", pick.Label)
	}
	if ci := pick.Latency.P95CI95; !(ci[0] <= 0.47843 && 0.47843 <= ci[1]) {
		t.Errorf("300ms: p95 interval %v s does not hold the oracle 0.47843 s", ci)
	}
	if math.Abs(pick.HedgedShare-0.15) > 0.008 {
		t.Errorf("300ms: hedged share %g; want 0.15 ± 0.008", pick.HedgedShare)
	}
	// Adaptive p99: the slow mode holds 15 % > 1 % of the latencies, so
	// the delay sits in it and a copy never comes sooner than the
	// primary's slow answer: p95 stays no hedging's, where 0.15·(6 − t) =
	// 0.05, t = 5.6667 s.
	if ci := cs[5].Latency.P95CI95; !(ci[0] <= 5.6667 && 5.6667 <= ci[1]) {
		t.Errorf("adaptive p99: p95 interval %v s does not hold no hedging's 5.6667 s", ci)
	}

	// The text labels the rows and describes them.
	code, out, errOut := hedgesim(t, "optimize", path, "--requests", "50000", "--check-requests", "0", "--adaptive", "90,95,99", "--delays", "300ms,3s", "--all", "--wide")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, p := range []string{"90", "95", "99"} {
		if row := regexp.MustCompile(`\sadaptive p` + p + `\s+1\s+m\s`); !row.MatchString(out) {
			t.Errorf("text lacks a row %q:\n%s", row, out)
		}
	}
}

// TestOptimizeAdaptiveThroughSlowPeriods: the latency shifts between two
// regimes — the provider's slow periods stretch every call ×10 half the
// time — and a fixed delay still does better: the whole run's p95 lies in
// the slow periods, and a fixed delay just above their body rescues their
// tail (and the normal periods', sooner than needed), hedging fewer calls
// than a percentile delay, which hedges the same share in both regimes.
// Every adaptive candidate is dominated by a fixed one: no costlier, and
// whose p95 interval lies wholly below the adaptive one's p95. (The
// adaptive runs' own intervals are batched over a few slow periods and
// wide, so the claim is on their point estimates, at this seed.)
func TestOptimizeAdaptiveThroughSlowPeriods(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 100 000 requests with slow periods per candidate")
	}
	path := writeScenario(t, `
seed = 7
[arrivals]
rate = 100
[providers.p.degraded]
mean_normal = "60s"
mean_degraded = "60s"
slowdown = 10.0
[models.m]
provider = "p"
price_input_per_mtok = 1.0
latency = { kind = "lognormal", mu = -2.0, sigma = 0.8 }
[[classes]]
name = "chat"
input_tokens = { kind = "constant", value = 1000 }
[classes.hedge]
primary = "m"
delay = "1s"
max_copies = 1
[optimize]
max_added_cost_pct = 12
`)
	r := adaptiveJSON(t, path, "--requests", "100000", "--check-requests", "0", "--adaptive", "80,90,95")
	cs := r.Classes[0].Candidates
	if p := cs[r.Classes[0].Pick]; p.Adaptive != nil {
		t.Errorf("pick %s; want a fixed delay", p.Label)
	}
	n := 0
	for _, a := range cs {
		if a.Adaptive == nil {
			continue
		}
		n++
		dominated := false
		for _, f := range cs {
			if f.Adaptive != nil || f.Label == "none" || f.AddedCostPct > a.AddedCostPct {
				continue
			}
			if f.Latency.P95CI95[1] < a.Latency.P95 {
				dominated = true
				break
			}
		}
		if !dominated {
			t.Errorf("%s (p95 %g s %v, +%.1f%%): no fixed delay does better for no more cost", a.Label, a.Latency.P95, a.Latency.P95CI95, a.AddedCostPct)
		}
	}
	if n != 3 {
		t.Errorf("%d adaptive candidates; want 3", n)
	}
}

// TestOptimizeAdaptiveBadInput: a bad --adaptive — out of range, not a
// number, empty, or a percentile listed twice — is a usage error naming
// the flag and the value; so is --adaptive with --write-scenario or
// --shard, which cannot carry an adaptive pick.
func TestOptimizeAdaptiveBadInput(t *testing.T) {
	path := writeScenario(t, bimodalScenario)
	for _, tc := range []struct{ value, msg string }{
		{"0", "0 is out of range; want a percentile in (0, 100)"},
		{"100", "100 is out of range"},
		{"95,150", "150 is out of range"},
		{"-5", "-5 is out of range"},
		{"abc", `"abc" is not a number`},
		{"NaN", "NaN is out of range"},
		{"90,,95", "element 2 is empty"},
		{"", "empty list"},
		// A repeat would only repeat a candidate: likely a slip, refused
		// (once accepted silently).
		{"95,95", "p95 is listed twice; list each percentile once"},
		{"90,p95,95.0", "p95 is listed twice"},
	} {
		code, _, errOut := hedgesim(t, "optimize", path, "--adaptive", tc.value)
		if code != exitUsage || !strings.Contains(errOut, "-adaptive") || !strings.Contains(errOut, tc.msg) {
			t.Errorf("--adaptive %q: exit %d, stderr %q; want 2 naming -adaptive and %q", tc.value, code, errOut, tc.msg)
		}
	}
	out := filepath.Join(t.TempDir(), "x")
	for _, args := range [][]string{{"--write-scenario", out + ".toml"}, {"--shard", "0/2", "--out", out}} {
		code, _, errOut := hedgesim(t, append([]string{"optimize", path, "--adaptive", "95"}, args...)...)
		if code != exitUsage || !strings.Contains(errOut, "--adaptive cannot go with "+args[0]) {
			t.Errorf("--adaptive with %q: exit %d, stderr %q", args, code, errOut)
		}
		if _, err := os.Stat(args[1]); err == nil {
			t.Errorf("--adaptive with %q: wrote %s", args, args[1])
		}
	}
}

// TestOptimizeAdaptiveExport: an adaptive pick exports with its adaptive
// delay where the format has one (failsafe-go), and is refused, naming
// it, where it has none (envoy).
func TestOptimizeAdaptiveExport(t *testing.T) {
	path := writeScenario(t, bimodalScenario)
	dir := filepath.Join(t.TempDir(), "rep")
	// Only a fixed delay past the slow mode's start to beat: the
	// adaptive p95 is the pick.
	code, _, errOut := hedgesim(t, "optimize", path, "--requests", "50000", "--check-requests", "0", "--adaptive", "95", "--delays", "3s", "--out", dir, "--no-plots")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r adaptiveReport
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if p := r.Classes[0].Candidates[r.Classes[0].Pick]; p.Label != "adaptive p95" {
		t.Fatalf("pick %s; want adaptive p95", p.Label)
	}
	code, out, errOut := hedgesim(t, "export", "--format", "json", "--scenario", path, filepath.Join(dir, "report.json"))
	if code != 0 {
		t.Fatalf("export json: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `"percentile": 0.95`) || !strings.Contains(out, `"window": 1000`) {
		t.Errorf("export json lacks the adaptive delay:\n%s", out)
	}
	// failsafe-go's quantile delay is another estimate: refused, and
	// written under --approximate.
	code, _, errOut = hedgesim(t, "export", "--format", "failsafe-go", "--scenario", path, filepath.Join(dir, "report.json"))
	if code != 2 || !strings.Contains(errOut, "decaying estimate") || !strings.Contains(errOut, "formats that can express it: json;") {
		t.Errorf("export failsafe-go: exit %d, %s; want 2, naming the estimate and json", code, errOut)
	}
	code, out, errOut = hedgesim(t, "export", "--format", "failsafe-go", "--approximate", "--scenario", path, filepath.Join(dir, "report.json"))
	if code != 0 || !strings.Contains(out, "p95 of recent latencies") {
		t.Errorf("export failsafe-go --approximate: exit %d, %s%s", code, out, errOut)
	}
	code, _, errOut = hedgesim(t, "export", "--format", "envoy", "--scenario", path, filepath.Join(dir, "report.json"))
	if code == 0 || !strings.Contains(errOut, "adaptive delay") {
		t.Errorf("export envoy of an adaptive pick: exit %d, %s; want a refusal naming the adaptive delay", code, errOut)
	}
}

// TestOptimizeAdaptiveDocExample runs the example of docs/optimize.md
// (the text block after its "adaptive example" marker, whose first line
// is the command) in testdata/docs: every other line of the block but
// "…" is a line of the output, in that order.
func TestOptimizeAdaptiveDocExample(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates an optimisation of guard-check")
	}
	words, want := docExample(t, "docs/optimize.md", "adaptive example")
	code, got, errOut := hedgesim(t, words...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(got, "\n")
	at := 0
	for _, w := range strings.Split(strings.TrimSuffix(want, "\n"), "\n") {
		if strings.TrimSpace(w) == "…" {
			continue
		}
		for at < len(lines) && lines[at] != w {
			at++
		}
		if at == len(lines) {
			t.Fatalf("docs/optimize.md's adaptive example: %q is not a line of the output (in order); it prints:\n%s", w, got)
		}
	}
}

// TestOptimizeAdaptivePipelineLeftOut: a pipeline's steps get no adaptive
// candidates (their search is per step, over fixed delays).
func TestOptimizeAdaptivePipelineLeftOut(t *testing.T) {
	r := adaptiveJSON(t, "help-chat-turn", "--requests", "2000", "--check-requests", "0", "--adaptive", "95")
	for _, cr := range r.Classes {
		for _, c := range cr.Candidates {
			if c.Adaptive != nil || strings.HasPrefix(c.Label, "adaptive") {
				t.Errorf("candidate %s has an adaptive delay", c.Label)
			}
		}
	}
}
