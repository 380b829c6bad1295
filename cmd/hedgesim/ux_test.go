package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func writeTestFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestValidate(t *testing.T) {
	dir := t.TempDir()
	bad := writeTestFile(t, dir, "bad.toml", `seed = -1
[arrivals]
rate = 0
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "c"
on_timeout = "maybe"
`)
	code, out, errOut := hedgesim(t, "validate", "guard-check", "../../scenarios/two-model-gateway.toml", bad)
	if code != exitUsage {
		t.Fatalf("exit %d; want 2", code)
	}
	if !strings.Contains(out, "guard-check: ok") || !strings.Contains(out, "two-model-gateway.toml: ok") {
		t.Errorf("stdout lacks the valid files:\n%s", out)
	}
	for _, want := range []string{bad + ":1: seed:", bad + ":3: arrivals.rate:", bad + ":8: classes[0].on_timeout:", "1 of 3 scenarios have problems"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if code, _, errOut := hedgesim(t, "validate", "guard-check"); code != 0 {
		t.Errorf("valid file: exit %d: %s", code, errOut)
	}
	if code, _, _ := hedgesim(t, "validate"); code != exitUsage {
		t.Errorf("no file: exit %d; want 2", code)
	}
	code, out, _ = hedgesim(t, "validate", "--json", bad, "guard-check")
	var res []validateResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if code != exitUsage || len(res) != 2 || res[0].OK || len(res[0].Problems) != 3 || res[0].Problems[1].Key != "arrivals.rate" || res[0].Problems[1].Line != 3 || !res[1].OK {
		t.Errorf("exit %d, JSON %+v", code, res)
	}
}

func TestCompareRuns(t *testing.T) {
	dir := t.TempDir()
	run := func(name string, args ...string) string {
		code, out, errOut := hedgesim(t, append([]string{"run", "--json", "--requests", "20000"}, args...)...)
		if code != 0 {
			t.Fatalf("run %v: exit %d: %s", args, code, errOut)
		}
		return writeTestFile(t, dir, name, out)
	}
	// guard-check: one call answers half the time; two copies, one a
	// second apart, answer 1 − 0.5³ = 87.5 %, one copy 1 − 0.5² = 75 %:
	// the answered share must differ significantly.
	a := run("a.json", "guard-check")
	b := run("b.json", "--set", "classes[0].hedge.max_copies=1", "guard-check")
	if data, _ := os.ReadFile(b); !strings.Contains(string(data), `"overrides": [
    "classes[0].hedge.max_copies=1"
  ]`) {
		t.Errorf("run --json does not list the override")
	}
	if _, out, _ := hedgesim(t, "run", "--requests", "1000", "--set", "arrivals.rate=40", "--scale-rate", "2", "guard-check"); !strings.Contains(out, "what-if overrides: arrivals.rate=40, arrivals.rate=80 (--scale-rate 2)\n") {
		t.Errorf("text report header lacks the overrides:\n%s", out)
	}
	if code, _, errOut := hedgesim(t, "optimize", "--set", "classes[0].hedge.delay=soon", "guard-check"); code != exitUsage || !strings.Contains(errOut, "--set classes[0].hedge.delay=soon: classes[0].hedge.delay: invalid delay") {
		t.Errorf("bad override: exit %d, %s", code, errOut)
	}
	code, out, errOut := hedgesim(t, "compare", "--wide", b, a)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "seed 1; what-if classes[0].hedge.max_copies=1)") {
		t.Errorf("the header does not name B's override:\n%s", out)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) > 2 && f[0] == "check" {
			lines[f[1]] = l
		}
	}
	if l := lines["answered"]; !strings.Contains(l, "+12.") || strings.HasSuffix(l, "~") {
		// 0.75 → 0.875: +12.5 pt, far beyond the z test's 5 % threshold
		// at n = 20000 (standard error of the difference ≈ 0.004).
		t.Errorf("answered line %q; want a significant change of about +12.5 pt", l)
	}
	code, out, _ = hedgesim(t, "compare", a, a)
	if code != 0 || !strings.Contains(out, "~") || strings.Contains(out, "-0.") && !strings.Contains(out, "+0.0%") {
		t.Errorf("a report against itself: exit %d:\n%s", code, out)
	}
	if code, _, errOut := hedgesim(t, "compare", a); code != exitUsage {
		t.Errorf("one report: exit %d; want 2 (%s)", code, errOut)
	}
	notReport := writeTestFile(t, dir, "x.json", `{"hello": 1}`)
	if code, _, errOut := hedgesim(t, "compare", a, notReport); code != exitUsage || !strings.Contains(errOut, "x.json") {
		t.Errorf("not a report: exit %d, %s", code, errOut)
	}
}

// TestCompareRejectsCorruptReports: a report no hedgesim run writes (an
// answered share of 7, a class named twice, percentiles out of order) and
// two reports without a class in common are bad input, exit 2, with every
// problem named by file, class and field.
func TestCompareRejectsCorruptReports(t *testing.T) {
	dir := t.TempDir()
	class := func(name string, answered, p50, p95 float64) string {
		return fmt.Sprintf(`{"class": %q, "requests": 1000, "answered_share": %g, "latency_s": {"p50": %g, "p95": %g, "p99": 3, "p95_ci95": [%g, %g], "p99_ci95": [2.9, 3.1], "p95_ci95_ok": true, "p99_ci95_ok": true}, "cost_per_1k_usd": {"total": 1}}`,
			name, answered, p50, p95, p95-0.1, p95+0.1)
	}
	report := func(file string, classes ...string) string {
		return writeTestFile(t, dir, file, `{"scenario": "s", "seed": 1, "classes": [`+strings.Join(classes, ", ")+`]}`)
	}
	good := report("good.json", class("chat", 0.9, 1, 2))
	for _, tc := range []struct {
		name string
		b    string
		want []string
	}{
		{"share", report("share.json", class("chat", 7, 1, 2)),
			[]string{`share.json: classes[0] (class "chat"): answered_share: 7; want a share in [0, 1]`}},
		{"duplicate and order", report("dup.json", class("chat", 0.9, 1, 2), class("chat", 0.9, 2.5, 2)),
			[]string{`dup.json: classes[1] (class "chat"): class: the name is also that of classes[0]`,
				`dup.json: classes[1] (class "chat"): latency_s: p50 2.5 s, p95 2 s, p99 3 s are out of order`}},
		{"no class in common", report("other.json", class("batch", 0.9, 1, 2)),
			[]string{`no class in common: ` + good + ` has "chat"; ` + filepath.Join(dir, "other.json") + ` has "batch"`}},
	} {
		code, out, errOut := hedgesim(t, "compare", good, tc.b)
		if code != exitUsage || out != "" {
			t.Errorf("%s: exit %d, stdout %q; want 2 and nothing", tc.name, code, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", tc.name, w, errOut)
			}
		}
	}
	if code, _, errOut := hedgesim(t, "compare", good, good); code != 0 {
		t.Errorf("a valid report against itself: exit %d: %s", code, errOut)
	}
}

// TestSeedFlagAndSetContradict: --seed 3 with --set seed=7 once listed
// seed=7 in the header while seed 3 ran. Contradicting values are a usage
// error (run and optimize; also --requests with --set requests= for run);
// agreeing ones run, and the report shows the seed that ran.
func TestSeedFlagAndSetContradict(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--set", "seed=7", "--seed", "3", "guard-check"},
		{"optimize", "--seed", "3", "--set", "seed=7", "guard-check"},
		{"run", "--set", "requests=500", "--requests", "100", "guard-check"},
	} {
		code, out, errOut := hedgesim(t, args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, "contradict each other") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and the contradiction", args, code, errOut)
		}
	}
	code, out, errOut := hedgesim(t, "run", "--json", "--requests", "100", "--set", "seed=3", "--seed", "3", "guard-check")
	if code != 0 || !strings.Contains(out, `"seed": 3,`) {
		t.Errorf("agreeing values: exit %d, %s\n%s", code, errOut, out)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := hedgesim(t, "version")
	if code != 0 || !strings.HasPrefix(out, "hedgesim ") {
		t.Fatalf("exit %d: %q", code, out)
	}
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/hedgesim/hedgesim", Version: "v0.3.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-11-30T08:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	want := "hedgesim v0.3.0 revision abc123 (2026-11-30T08:00:00Z) with local changes\ngo1.26.8\n"
	if got := versionText(bi, true); got != want {
		t.Errorf("versionText = %q; want %q", got, want)
	}
	if got := versionText(nil, false); !strings.Contains(got, "no build information") {
		t.Errorf("without build info: %q", got)
	}
}

func TestHelpRun(t *testing.T) {
	code, out, _ := hedgesim(t, "help", "run")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"Usage: hedgesim run [flags] [SCENARIO]", "Simulates", "without hedging", "Examples:", "-set KEY=VALUE", "-scale-rate F"} {
		if !strings.Contains(out, want) {
			t.Errorf("help run lacks %q:\n%s", want, out)
		}
	}
}

func TestFitMissingUnitAndSeparator(t *testing.T) {
	dir := t.TempDir()
	log := writeTestFile(t, dir, "log.csv", "latency;code\n12;200\n")
	code, _, errOut := hedgesim(t, "fit", "--format", "csv", "--latency", "latency", log)
	if code != exitUsage || !strings.Contains(errOut, "has no unit") || !strings.Contains(errOut, "--unit") {
		t.Errorf("exit %d: %s; want a hint to pass --unit", code, errOut)
	}
}

// TestFitHistograms: each histogram format is recognised from the file and
// fitted into a model block that a scenario accepts.
func TestFitHistograms(t *testing.T) {
	dir := t.TempDir()
	prom := writeTestFile(t, dir, "metrics.txt", `# TYPE llm_request_duration_seconds histogram
llm_request_duration_seconds_bucket{model="a",le="0.1"} 30
llm_request_duration_seconds_bucket{model="a",le="0.25"} 400
llm_request_duration_seconds_bucket{model="a",le="0.5"} 2100
llm_request_duration_seconds_bucket{model="a",le="1"} 4300
llm_request_duration_seconds_bucket{model="a",le="2.5"} 4900
llm_request_duration_seconds_bucket{model="a",le="5"} 4980
llm_request_duration_seconds_bucket{model="a",le="10"} 4997
llm_request_duration_seconds_bucket{model="a",le="+Inf"} 5000
llm_request_duration_seconds_count{model="a"} 5000
llm_request_duration_seconds_sum{model="a"} 3100
llm_request_duration_seconds_bucket{model="b",le="1"} 1
llm_request_duration_seconds_bucket{model="b",le="+Inf"} 2
llm_request_duration_seconds_count{model="b"} 2
llm_request_duration_seconds_sum{model="b"} 3
`)
	api := writeTestFile(t, dir, "query.json", `{"status":"success","data":{"resultType":"vector","result":[
 {"metric":{"le":"0.25"},"value":[1,"400"]},{"metric":{"le":"0.5"},"value":[1,"2100"]},
 {"metric":{"le":"1"},"value":[1,"4300"]},{"metric":{"le":"2.5"},"value":[1,"4900"]},
 {"metric":{"le":"+Inf"},"value":[1,"5000"]}]}}`)
	otlp := writeTestFile(t, dir, "otlp.json", `{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"llm.duration","unit":"ms",
 "histogram":{"aggregationTemporality":2,"dataPoints":[{"bucketCounts":["400","1700","2200","600","100"],"explicitBounds":[250,500,1000,2500]}]}}]}]}]}`)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--label", "model=a", prom}, "prometheus histogram llm_request_duration_seconds{model=\"a\"}, 5000 observations in 8 buckets"},
		{[]string{"--unit", "s", api}, "prometheus-api histogram"},
		{[]string{otlp}, "otlp histogram llm.duration, 5000 observations in 5 buckets"},
	} {
		code, out, errOut := hedgesim(t, append([]string{"fit", "--name", "m"}, tt.args...)...)
		if code != 0 {
			t.Errorf("fit %v: exit %d: %s", tt.args, code, errOut)
			continue
		}
		if !strings.Contains(out, tt.want) || !strings.Contains(out, "[models.m]") || !strings.Contains(out, "chi-square") {
			t.Errorf("fit %v: output lacks %q:\n%s", tt.args, tt.want, out)
		}
		// The output pasted into a scenario is valid.
		sc := writeTestFile(t, dir, "s.toml", "[arrivals]\nrate = 1\n[[classes]]\nname = \"c\"\n"+out)
		if code, _, errOut := hedgesim(t, "validate", sc); code != 0 {
			t.Errorf("fit %v: the block does not validate: %s", tt.args, errOut)
		}
	}
	if code, _, errOut := hedgesim(t, "fit", prom); code != exitUsage || !strings.Contains(errOut, "2 series match") || !strings.Contains(errOut, "--label") {
		t.Errorf("two series: exit %d, %s", code, errOut)
	}
	if code, _, errOut := hedgesim(t, "fit", api); code != exitUsage || !strings.Contains(errOut, "--unit") {
		t.Errorf("API result without a metric name or unit: exit %d, %s", code, errOut)
	}
}

func TestVersionWithoutVCS(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}
	if got := versionText(bi, true); !strings.HasPrefix(got, "hedgesim (devel), no VCS revision recorded") {
		t.Errorf("versionText = %q", got)
	}
}

// TestRepeatedSetContradicts: --requests 2000 with --set requests=3000 and
// --set requests=2000 once ran 2000 and listed both; two values for one
// key are refused, naming both, whatever the order.
func TestRepeatedSetContradicts(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--requests", "2000", "--set", "requests=3000", "--set", "requests=2000", "guard-check"},
		{"run", "--set", "requests=2000", "--set", "requests=3000", "--requests", "2000", "guard-check"},
	} {
		code, out, errOut := hedgesim(t, args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, "requests=3000") || !strings.Contains(errOut, "requests=2000") {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming both values", args, code, errOut)
		}
	}
}

// TestCompareStdin: "-" reads one of the two reports from standard input,
// as export does; both "-" is a usage error.
func TestCompareStdin(t *testing.T) {
	_, rep, errOut := hedgesim(t, "run", "--json", "--requests", "200", "guard-check")
	path := filepath.Join(t.TempDir(), "a.json")
	if err := os.WriteFile(path, []byte(rep), 0o644); err != nil {
		t.Fatal(err, errOut)
	}
	stdin = strings.NewReader(rep)
	defer func() { stdin = os.Stdin }()
	if code, out, errOut := hedgesim(t, "compare", path, "-"); code != 0 || !strings.Contains(out, "B: -") {
		t.Errorf("compare FILE -: exit %d, %s\n%s", code, errOut, out)
	}
	if code, _, errOut := hedgesim(t, "compare", "-", "-"); code != exitUsage || !strings.Contains(errOut, "not both") {
		t.Errorf("compare - -: exit %d, %s", code, errOut)
	}
}

// TestClosedLoopSpendRates: with closed-loop clients, each side's spend is
// at its own throughput; the no-hedging figures once used the hedged one.
func TestClosedLoopSpendRates(t *testing.T) {
	code, out, errOut := hedgesim(t, "run", "--json", "--requests", "5000", "eval-black-hole")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Classes []struct {
			Class      string `json:"class"`
			Throughput struct {
				PerS float64 `json:"requests_per_s"`
			} `json:"throughput"`
			NoHedging struct {
				Throughput struct {
					PerS float64 `json:"requests_per_s"`
				} `json:"throughput"`
				Cost struct {
					Total float64 `json:"total"`
				} `json:"cost_per_1k_usd"`
			} `json:"no_hedging"`
			Spend struct {
				PerS   float64 `json:"requests_per_s"`
				NHPerS float64 `json:"no_hedging_requests_per_s"`
				NHDay  float64 `json:"no_hedging_per_day"`
			} `json:"spend_usd"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Classes {
		want := c.NoHedging.Cost.Total * c.NoHedging.Throughput.PerS * 86.4
		if c.Spend.PerS != c.Throughput.PerS || c.Spend.NHPerS != c.NoHedging.Throughput.PerS || math.Abs(c.Spend.NHDay-want) > 1e-9*want {
			t.Errorf("%s: spend %+v; want the throughputs %g and %g, no hedging $%g a day", c.Class, c.Spend, c.Throughput.PerS, c.NoHedging.Throughput.PerS, want)
		}
	}
}

// TestOptimizeFlagAndSetClash: an optimize flag and a --set override of
// the [optimize] setting it overrides — for every class or for one — are a
// usage error naming both, before anything is simulated; an override of
// another setting goes with the flag. Every key the flags name is one the
// scenario reference documents.
func TestOptimizeFlagAndSetClash(t *testing.T) {
	for _, args := range [][]string{
		{"--requests", "2000", "--set", "optimize.requests=5000"},
		{"--max-cost", "50", "--set", "optimize.class.check.max_added_cost_pct=5"},
		{"--delays", "1s", "--set", "optimize.class.check.from=0s"},
		{"--confidence", "0.9", "--set", " optimize.confidence = 0.99"},
	} {
		code, out, errOut := hedgesim(t, append(append([]string{"optimize", "--quiet"}, args...), "guard-check")...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, args[0]) || !strings.Contains(errOut, "give one of them") {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %s", args, code, errOut, args[0])
		}
	}
	code, _, errOut := hedgesim(t, "optimize", "--quiet", "--requests", "2000", "--check-requests", "0", "--set", "optimize.max_added_cost_pct=5", "guard-check")
	if code != 0 {
		t.Errorf("a flag beside an override of another setting: exit %d, %s", code, errOut)
	}
	ref, err := os.ReadFile("../../scenarios/README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(ref), "## `[optimize]`")
	section, _, _ = strings.Cut(section, "\n## ")
	for flag, keys := range optimizeKeys {
		for _, k := range keys {
			if !strings.Contains(section, "| `"+k+"`") && !strings.Contains(section, "`"+k+"`,") && !strings.Contains(section, ", `"+k+"`") {
				t.Errorf("--%s names [optimize] key %q, which scenarios/README.md does not document", flag, k)
			}
		}
	}
}

// TestRunRequestsFlagIsChecked: `run --requests N` is checked as
// `--set requests=N` is: the span of N requests at a --set arrival rate is
// judged with N, not with the file's requests, and --requests is not
// listed as a what-if override.
func TestRunRequestsFlagIsChecked(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--set", "arrivals.rate=1e-5", "--requests", "10", "guard-check"},
		{"run", "--set", "arrivals.rate=1e-5", "--set", "requests=10", "guard-check"},
	} {
		if code, _, errOut := hedgesim(t, args...); code != 0 {
			t.Errorf("%v: exit %d, %s; want 0 (10 requests at 1e-5/s span 10⁶ s)", args, code, errOut)
		}
	}
	code, _, errOut := hedgesim(t, "run", "--set", "arrivals.rate=1e-5", "--requests", "100000", "guard-check")
	if code != exitUsage || !strings.Contains(errOut, "make 100000 requests span") {
		t.Errorf("100000 requests at 1e-5/s: exit %d, %q; want 2 and the span", code, errOut)
	}
	if _, out, _ := hedgesim(t, "run", "--requests", "1000", "guard-check"); strings.Contains(out, "what-if") {
		t.Errorf("--requests alone is listed as a what-if override:\n%s", out)
	}
}

// TestOptimizeSpendRateHeader: optimize's spend table says at which rate
// it prices the picks: the arrival rate, or for closed-loop classes the
// throughput their clients reached.
func TestOptimizeSpendRateHeader(t *testing.T) {
	for _, c := range []struct{ scenario, want string }{
		{"guard-check", "spend of the pick at arrival rate "},
		{"eval-black-hole", "spend of the pick at throughput "},
	} {
		code, out, errOut := hedgesim(t, "optimize", "--quiet", "--requests", "500", "--check-requests", "0", c.scenario)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, %s; want a table headed %q:\n%s", c.scenario, code, errOut, c.want, out)
		}
	}
}
