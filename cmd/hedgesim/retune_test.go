package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"google.golang.org/protobuf/proto"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/textfit"
)

// guardBuckets are the bucket bounds (seconds) of the guard latency
// histograms the retune tests write.
var guardBuckets = []float64{0.1, 0.15, 0.2, 0.25, 0.3, 0.5, 1, 2, 3, 4, 5, 7.5, 10, 12.5, 15, 17.5, 20}

// guardMetrics writes, in the Prometheus text format (the official
// encoder, expfmt), the histogram guard_request_duration_seconds of n
// draws of guard-check's latency with the given slow share, labelled
// model="llama-guard", and returns the file's path.
func guardMetrics(t *testing.T, slow float64, n int, seed uint64) string {
	t.Helper()
	m, err := dist.NewMixture([]float64{1 - slow, slow}, []dist.Continuous{dist.Uniform{Min: 0.1, Max: 0.3}, dist.Uniform{Min: 3, Max: 19}})
	if err != nil {
		t.Fatal(err)
	}
	src := rand.NewPCG(seed, 36)
	cum := make([]uint64, len(guardBuckets))
	sum := 0.0
	for range n {
		x := m.Rand(src)
		sum += x
		for i, b := range guardBuckets {
			if x <= b {
				cum[i]++
			}
		}
	}
	h := &dto.Histogram{SampleCount: proto.Uint64(uint64(n)), SampleSum: proto.Float64(sum)}
	for i, b := range guardBuckets {
		h.Bucket = append(h.Bucket, &dto.Bucket{UpperBound: proto.Float64(b), CumulativeCount: proto.Uint64(cum[i])})
	}
	fam := &dto.MetricFamily{Name: proto.String("guard_request_duration_seconds"), Type: dto.MetricType_HISTOGRAM.Enum(),
		Metric: []*dto.Metric{{Label: []*dto.LabelPair{{Name: proto.String("model"), Value: proto.String("llama-guard")}}, Histogram: h}}}
	var b bytes.Buffer
	if _, err := expfmt.MetricFamilyToText(&b, fam); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "metrics.txt")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRetuneUnchanged: draws from guard-check's own latency → exit 0,
// "unchanged", nothing simulated.
func TestRetuneUnchanged(t *testing.T) {
	code, out, errOut := hedgesim(t, "retune", "guard-check", "--from", guardMetrics(t, 0.5, 10000, 1), "--metric", "guard_request_duration_seconds")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{"llama-guard  10000", "unchanged", "nothing simulated", "\nintervals are the buckets holding the order-statistic ranks\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// No percentile moved, so no "*" and no footnote for one.
	if strings.Contains(out, "*") {
		t.Errorf("a * with no percentile moved:\n%s", out)
	}
}

// TestRetuneGuardSlowPath is the oracle through the command: the
// guard latency moving from half slow to 80 % slow exits 3; the report
// says the current policy's answered share fell from 0.875 to about
// 1 − 0.8³ = 0.488 (± 0.007 before, 3 binomial sd of the check's 20 000
// requests; ± 0.025 after, 3 sd of the live share, whose noise is also
// the histogram's: 10⁴ observations of the slow share s, times 3s²; the
// printed shares are rounded to 0.05 pt more); the new pick sends copies sooner or more of them; and
// --write-scenario writes a scenario that parses, with the live fit, the
// new pick and comments saying where they came from.
func TestRetuneGuardSlowPath(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates an optimisation of guard-check")
	}
	newFile := filepath.Join(t.TempDir(), "new.toml")
	args := []string{"retune", "guard-check", "--from", guardMetrics(t, 0.8, 10000, 2), "--metric", "guard_request_duration_seconds",
		"--requests", "20000", "--check-requests", "20000", "--objective", "answered", "--target", "3s", "--max-cost", "inf",
		"--copies", "2,4", "--min-unanswered-cut-per-cost", "0.1"}
	code, out, errOut := hedgesim(t, append(args, "--write-scenario", newFile)...)
	if code != 3 {
		t.Fatalf("exit %d, want 3: %s\n%s", code, errOut, out)
	}
	m := regexp.MustCompile(`check +1\.00s ×2[^\n]*?(\d+\.\d)% → (\d+\.\d)%`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no answered share of the current policy in:\n%s", out)
	}
	pred, _ := strconv.ParseFloat(m[1], 64)
	now, _ := strconv.ParseFloat(m[2], 64)
	if math.Abs(pred/100-0.875) > 0.0075 || math.Abs(now/100-0.488) > 0.0255 {
		t.Errorf("answered share %g%% → %g%%, want 87.5%% (± 0.75 pt) → 48.8%% (± 2.55 pt)", pred, now)
	}
	for _, want := range []string{"shifted", "bimodal share", "check  change"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	data, err := os.ReadFile(newFile)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Parse(newFile, data)
	if err != nil {
		t.Fatalf("written scenario does not parse: %v\n%s", err, data)
	}
	pol := sc.Config.Classes[0].Policy
	if !(pol.Copies > 2 || (len(pol.Delays) == 1 && pol.Delays[0].Seconds() < 1)) {
		t.Errorf("written policy: %d copies, delays %v; want copies sooner than 1 s or more than 2", pol.Copies, pol.Delays)
	}
	// The live model: about 80 % of its mass on the slow path.
	if s := sc.Config.Models[0].Latency.Survival(1); math.Abs(s-0.8) > 0.02 {
		t.Errorf("written model puts %g above 1 s, want about 0.8", s)
	}
	for _, want := range []string{"# hedgesim retune", `guard_request_duration_seconds{model="llama-guard"}`, "10000 observations", "# class check: hedge policy"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("written scenario lacks %q:\n%s", want, data)
		}
	}
	// The written scenario passes validate --strict, as CI runs it: its
	// live model, mostly on the slow path (median 8.7 s past the 3 s
	// deadline), has a fast path within it, so no milliseconds hint.
	if code, vout, verr := hedgesim(t, "validate", "--strict", newFile); code != 0 {
		t.Errorf("validate --strict of the written scenario: exit %d: %s%s", code, vout, verr)
	}
	// The new pick exported for a runtime, from the written scenario.
	code, exported, errOut := hedgesim(t, "export", "--format", "json", newFile)
	if code != 0 {
		t.Fatalf("export of the written scenario: exit %d: %s", code, errOut)
	}
	var doc struct {
		Classes []struct {
			Class  string            `json:"class"`
			Copies []json.RawMessage `json:"copies"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(exported), &doc); err != nil || len(doc.Classes) != 1 || len(doc.Classes[0].Copies) != pol.Copies {
		t.Errorf("export --format json of the written scenario: %v, %+v; want the class with %d copies\n%s", err, doc, pol.Copies, exported)
	}
	// --json: the same verdict, machine-readable.
	code, out, errOut = hedgesim(t, append(args, "--json")...)
	if code != 3 {
		t.Fatalf("--json: exit %d: %s", code, errOut)
	}
	var rep struct {
		Models []struct {
			Model string
			Drift struct{ Verdict string }
		}
		Recheck struct {
			Classes []struct{ Decision string }
		}
		Action bool
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if rep.Models[0].Drift.Verdict != "shifted" || rep.Recheck.Classes[0].Decision != "change" || !rep.Action {
		t.Errorf("--json: %+v", rep)
	}
}

// TestRetuneFromURL reads a /metrics page served over HTTP; a page that
// is not there is bad input.
func TestRetuneFromURL(t *testing.T) {
	data, err := os.ReadFile(guardMetrics(t, 0.5, 5000, 3))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		w.Write(data)
	}))
	defer srv.Close()
	code, out, errOut := hedgesim(t, "retune", "guard-check", "--from", srv.URL+"/metrics")
	if code != 0 || !strings.Contains(out, "unchanged") {
		t.Errorf("exit %d: %s\n%s", code, errOut, out)
	}
	code, _, errOut = hedgesim(t, "retune", "guard-check", "--from", srv.URL+"/nothing-here")
	if code != 2 || !strings.Contains(errOut, "HTTP 404") {
		t.Errorf("a missing page: exit %d: %s", code, errOut)
	}
}

// TestRetuneBadInput: an unreadable source, no series for the model, the
// wrong metric or type, a histogram without buckets, an unreachable URL,
// a Prometheus that answers 503 until the timeout, and contradicting
// flags exit 2 naming the model and the query, and write no file.
func TestRetuneBadInput(t *testing.T) {
	t.Parallel() // in-process CLI runs that set no test hook and keep the working directory; 1.5 s of it waits for timeouts
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := guardMetrics(t, 0.5, 1000, 4)
	noBuckets := write("nobuckets.txt", "# TYPE guard_request_duration_seconds histogram\n"+
		"guard_request_duration_seconds_bucket{model=\"llama-guard\",le=\"+Inf\"} 10\n"+
		"guard_request_duration_seconds_sum{model=\"llama-guard\"} 5\n"+
		"guard_request_duration_seconds_count{model=\"llama-guard\"} 10\n")
	counter := write("counter.txt", "# TYPE guard_requests_total counter\nguard_requests_total{model=\"llama-guard\"} 10\n")
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close() // unreachable from here on
	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	defer busy.Close()
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"missing file", []string{"--from", filepath.Join(dir, "none.txt")}, []string{"none.txt"}},
		{"no series", []string{"--from", good, "--label", "region=eu"}, []string{"model llama-guard", `region="eu"`, "no series has the labels"}},
		{"wrong metric", []string{"--from", good, "--metric", "other_seconds"}, []string{"model llama-guard", `other_seconds{model="llama-guard"}`, "no such histogram"}},
		{"wrong type", []string{"--from", counter, "--format", "prometheus"}, []string{"model llama-guard", "no histogram"}},
		{"no buckets", []string{"--from", noBuckets}, []string{"model llama-guard", `{model="llama-guard"}`, "bucket"}},
		{"unreachable", []string{"--from", srv.URL + "/metrics", "--timeout", "500ms"}, []string{srv.URL, "gave up after 500ms"}},
		{"prometheus busy", []string{"--prometheus", busy.URL, "--metric", "guard_request_duration_seconds", "--timeout", "500ms"},
			[]string{"model llama-guard", `guard_request_duration_seconds_bucket{model="llama-guard"}`, "HTTP 503", "gave up after 500ms"}},
		{"prometheus unreachable", []string{"--prometheus", srv.URL, "--metric", "guard_request_duration_seconds", "--timeout", "500ms"},
			[]string{"model llama-guard", `guard_request_duration_seconds_bucket{model="llama-guard"}`, srv.URL, "gave up after 500ms"}},
		{"two sources", []string{"--from", good, "--prometheus", busy.URL}, []string{"exclusive"}},
		{"window without prometheus", []string{"--from", good, "--window", "1h"}, []string{"--window go with --prometheus"}},
		{"prometheus over ftp", []string{"--prometheus", "ftp://x", "--metric", "m"}, []string{"--prometheus ftp://x: want the server's http:// or https:// URL"}},
		{"from over ftp", []string{"--from", "ftp://x/metrics"}, []string{"--from ftp://x/metrics: only http:// and https:// URLs are fetched"}},
		{"from a missing file", []string{"--from", filepath.Join(dir, "nonexist.txt")}, []string{"nonexist.txt: no such file (a URL starts with http:// or https://)"}},
		{"histogram counts", []string{"--from", good, "--histogram-counts", "some"}, []string{`--histogram-counts "some": want all or answered`}},
	} {
		out := filepath.Join(dir, c.name+".toml")
		code, _, errOut := hedgesim(t, append([]string{"retune", "guard-check", "--write-scenario", out}, c.args...)...)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2: %s", c.name, code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr %q lacks %q", c.name, errOut, w)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: %s written", c.name, out)
		}
	}
}

// TestRetuneDocExample runs the example of docs/retune.md (the text block
// after its "retune example" marker, whose first line is the command) in
// testdata/docs and checks the output, the time of the run aside: it
// exits 3 and prints exactly what the guide shows.
func TestRetuneDocExample(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates an optimisation of guard-check")
	}
	words, want := docExample(t, "docs/retune.md", "retune example")
	code, got, errOut := hedgesim(t, words...)
	if code != 3 {
		t.Fatalf("exit %d, want 3: %s", code, errOut)
	}
	at := regexp.MustCompile(` at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ;`)
	got = at.ReplaceAllString(got, " at TIME;")
	want = at.ReplaceAllString(want, " at TIME;")
	if got != want {
		t.Errorf("docs/retune.md's example is not what the command prints; it prints:\n%s", got)
	}
}

// TestRetuneNoModelLabel: --model-label none takes the series by metric
// alone, for the one model --model names; for every model it is bad input.
func TestRetuneNoModelLabel(t *testing.T) {
	from := guardMetrics(t, 0.5, 5000, 5)
	code, out, errOut := hedgesim(t, "retune", "guard-check", "--from", from, "--model-label", "none", "--model", "llama-guard")
	if code != 0 || !strings.Contains(out, "unchanged") || !strings.Contains(out, "guard_request_duration_seconds{}") {
		t.Errorf("exit %d: %s\n%s", code, errOut, out)
	}
	code, _, errOut = hedgesim(t, "retune", "two-model-gateway", "--from", from, "--model-label", "none")
	if code != 2 || !strings.Contains(errOut, "--model NAME") {
		t.Errorf("two models without a model label: exit %d: %s", code, errOut)
	}
}

// TestRetuneInterrupted: a retune interrupted before it reads exits 130
// and writes nothing.
func TestRetuneInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(t.TempDir(), "new.toml")
	var stdout, stderr bytes.Buffer
	code := runContext(ctx, []string{"retune", "guard-check", "--from", guardMetrics(t, 0.8, 1000, 6), "--write-scenario", out}, &stdout, &stderr)
	if code != exitInterrupted || stdout.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q; want 130 and no report", code, stdout.String(), stderr.String())
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the scenario was written")
	}
}

// TestRetuneWidth: retune's text fits 120 columns when standard output is
// not a terminal, its drift table split into column groups and its prose
// wrapped; --wide prints the full width, the drift table's header whole
// on one line.
func TestRetuneWidth(t *testing.T) {
	from := guardMetrics(t, 0.5, 10000, 1)
	code, out, errOut := hedgesim(t, "retune", "guard-check", "--from", from, "--metric", "guard_request_duration_seconds")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	for l := range strings.Lines(out) {
		if n := utf8.RuneCountInString(strings.TrimSuffix(l, "\n")); n > textfit.DefaultWidth {
			t.Errorf("line of %d columns > %d: %q", n, textfit.DefaultWidth, l)
		}
	}
	wideHeader := regexp.MustCompile(`(?m)^model +observations +verdict .* p50 scenario → live \[interval\] +p95 +p99$`)
	if wideHeader.MatchString(out) {
		t.Errorf("the fitted drift table is whole:\n%s", out)
	}
	code, wide, errOut := hedgesim(t, "retune", "guard-check", "--from", from, "--metric", "guard_request_duration_seconds", "--wide")
	if code != 0 {
		t.Fatalf("--wide: exit %d: %s\n%s", code, errOut, wide)
	}
	if !wideHeader.MatchString(wide) {
		t.Errorf("--wide: the drift table is not whole:\n%s", wide)
	}
	longest := 0
	for l := range strings.Lines(wide) {
		longest = max(longest, utf8.RuneCountInString(strings.TrimSuffix(l, "\n")))
	}
	if longest <= textfit.DefaultWidth {
		t.Errorf("--wide: widest line %d columns, want the full width (> %d):\n%s", longest, textfit.DefaultWidth, wide)
	}
}

// TestRetuneOverCostCap: with guard-check's own objective (answered
// within 3 s, max_added_cost_pct = 80), the live slow share of 80% puts
// the current policy (copies at 1 s and 2 s) over the cap: retune says
// so, with the figure, and exits 3, and says why the new pick does not
// hedge. Closed form: a copy is sent at 1 s when the primary is slow
// (0.8) and another at 2 s when both are (0.8²), so the added cost in
// calls is 100 × (0.8 + 0.64) = +144%; the fast path past 1 s and the
// slow one below 2 s weigh under 0.2 pt. Tolerance 3 pt: the check's
// 20 000 requests give an SE under 0.5 pt, the live fit's slow share
// (SE 0.004) moves it by under 0.7 pt per SE.
func TestRetuneOverCostCap(t *testing.T) {
	code, out, errOut := hedgesim(t, "retune", "guard-check", "--from", guardMetrics(t, 0.8, 10000, 2), "--metric", "guard_request_duration_seconds",
		"--requests", "20000", "--check-requests", "20000", "--quiet", "--wide")
	if code != 3 {
		t.Fatalf("exit %d, want 3: %s\n%s", code, errOut, out)
	}
	m := regexp.MustCompile(`check: the current policy's added cost on the live models, \+(\d+\.\d)%, is over the objective's cap of \+80% \(max_added_cost_pct\)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the current policy over the cap is not flagged:\n%s", out)
	}
	if got, _ := strconv.ParseFloat(m[1], 64); math.Abs(got-144) > 3 {
		t.Errorf("added cost %g%%, want 144%% ± 3 pt", got)
	}
	if !strings.Contains(out, "check: new pick none (no hedging): no candidate with added cost ≤ +80%") {
		t.Errorf("the new pick none is not explained:\n%s", out)
	}
}

// TestRetuneReportSurvivesFailedWrite: when --write-scenario's file cannot
// be written at the end (its directory, checked before any work, is gone
// by then), the report is printed all the same and retune fails with exit
// 1 naming the file. Regression: the report was lost.
func TestRetuneReportSurvivesFailedWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	retuneBeforeWrite = func() { os.RemoveAll(dir) }
	t.Cleanup(func() { retuneBeforeWrite = nil })
	newFile := filepath.Join(dir, "new.toml")
	code, out, errOut := hedgesim(t, "retune", "guard-check", "--from", guardMetrics(t, 0.8, 10000, 2), "--metric", "guard_request_duration_seconds",
		"--requests", "2000", "--check-requests", "2000", "--quiet", "--write-scenario", newFile)
	if code != 1 || !strings.Contains(errOut, "--write-scenario "+newFile) {
		t.Errorf("exit %d, %q; want 1 naming --write-scenario %s", code, errOut, newFile)
	}
	if !strings.Contains(out, "new picks on the live models") {
		t.Errorf("the report is lost: %q", out)
	}
}

// TestRetuneTextKeepsWarnings: a retune on too few requests warns in its
// JSON (the rollout check's and the optimisation's warnings); the text
// prints those warnings too, not firm verdicts alone.
func TestRetuneTextKeepsWarnings(t *testing.T) {
	args := []string{"retune", "guard-check", "--from", guardMetrics(t, 0.8, 10000, 2), "--metric", "guard_request_duration_seconds",
		"--requests", "50", "--check-requests", "50", "--no-adaptive"}
	code, out, errOut := hedgesim(t, args...)
	if code != 3 {
		t.Fatalf("exit %d, want 3: %s\n%s", code, errOut, out)
	}
	_, js, _ := hedgesim(t, append(args, "--json")...)
	var doc struct {
		Recheck struct {
			New struct {
				Classes []struct {
					Warnings []string `json:"warnings"`
				} `json:"classes"`
			} `json:"optimize"`
		} `json:"recheck"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range doc.Recheck.New.Classes {
		for _, w := range c.Warnings {
			n++
			if !strings.Contains(strings.Join(strings.Fields(out), " "), w) {
				t.Errorf("the text lacks the JSON's warning %q:\n%s", w, out)
			}
		}
	}
	if n == 0 {
		t.Fatalf("no warning at 50 requests in the JSON:\n%s", js)
	}
}

// TestRetuneDefaultScenario: without a SCENARIO, retune reads the models
// of the built-in default (two-model-gateway), as run and optimize do, and
// its help says so: a source without their series is bad input naming the
// default's first model.
func TestRetuneDefaultScenario(t *testing.T) {
	code, _, errOut := hedgesim(t, "retune", "--from", guardMetrics(t, 0.5, 1000, 1))
	if code != 2 || !strings.Contains(errOut, "model large-a") {
		t.Errorf("exit %d, %q; want 2 naming the default scenario's model large-a", code, errOut)
	}
	if _, out, _ := hedgesim(t, "retune", "--help"); !strings.Contains(out, "retune [flags] [SCENARIO]") || !strings.Contains(out, "without one the built-in default is retuned") {
		t.Errorf("retune --help does not say SCENARIO is optional:\n%s", out)
	}
}

// TestRetuneNothingJudged: a source none of whose histograms can be judged
// (too few observations, buckets too coarse for the test) is no evidence
// that the scenario's models stand: exit 2, the report printed with "-"
// for the test's figures and the live percentiles, the reasons on
// standard error, no report directory and no scenario written.
// Regression: such a source exited 0, "no model shifted: the scenario's
// models and policies stand", so that a broken exporter passed the
// scheduled runs of docs/retune.md.
func TestRetuneNothingJudged(t *testing.T) {
	tmp := t.TempDir()
	coarse := filepath.Join(tmp, "coarse.txt")
	if err := os.WriteFile(coarse, []byte("# TYPE guard_request_duration_seconds histogram\n"+
		"guard_request_duration_seconds_bucket{model=\"llama-guard\",le=\"30\"} 1000\n"+
		"guard_request_duration_seconds_bucket{model=\"llama-guard\",le=\"+Inf\"} 1000\n"+
		"guard_request_duration_seconds_count{model=\"llama-guard\"} 1000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, from, why string }{
		{"20 observations", guardMetrics(t, 0.5, 20, 1), "llama-guard: only 20 observations; a verdict needs at least 50"},
		{"one finite bucket", coarse, "llama-guard: the buckets, pooled to 5 expected observations each, leave the test no degree of freedom"},
	} {
		out, scen := filepath.Join(tmp, "report"), filepath.Join(tmp, "new.toml")
		code, stdout, errOut := hedgesim(t, "retune", "guard-check", "--from", c.from, "--out", out, "--write-scenario", scen)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2: %s", c.name, code, errOut)
		}
		if !strings.Contains(errOut, "no model could be judged ("+c.why) {
			t.Errorf("%s: stderr does not give the reason:\n%s", c.name, errOut)
		}
		if !strings.Contains(stdout, "no model could be judged") || strings.Contains(stdout, "no model shifted") {
			t.Errorf("%s: the report does not say that nothing could be judged:\n%s", c.name, stdout)
		}
		if !regexp.MustCompile(`llama-guard +[0-9]+ +cannot tell +- +- +- +0\.3 → - +17\.4 → - +18\.7 → -`).MatchString(stdout) {
			t.Errorf("%s: the drift table does not print - where there is no test:\n%s", c.name, stdout)
		}
		for _, p := range []string{out, scen} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s: %s written", c.name, p)
			}
		}
	}
}

// TestRetuneSaysWhatItReads: --from given twice is bad input naming both
// (not the last one silently read); a histogram whose bounds have no unit
// is told to state it with retune's own --unit, and the query of the
// source's only histogram reads as words. Regressions: the second --from
// won silently; the unit error said "hedgesim fit --unit"; the query read
// "(the only histogram){}".
func TestRetuneSaysWhatItReads(t *testing.T) {
	from := guardMetrics(t, 0.5, 1000, 1)
	code, _, errOut := hedgesim(t, "retune", "guard-check", "--from", from, "--from", "other.txt")
	if code != 2 || !strings.Contains(errOut, `--from: given twice ("`+from+`", then "other.txt")`) {
		t.Errorf("--from twice: exit %d, want 2 naming both: %s", code, errOut)
	}
	api := filepath.Join(t.TempDir(), "api.json")
	if err := os.WriteFile(api, []byte(`{"status":"success","data":{"resultType":"vector","result":[`+
		`{"metric":{"le":"1"},"value":[1700000000,"400"]},{"metric":{"le":"10"},"value":[1700000000,"900"]},`+
		`{"metric":{"le":"+Inf"},"value":[1700000000,"1000"]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = hedgesim(t, "retune", "guard-check", "--from", api, "--model-label", "none", "--model", "llama-guard")
	if code != 2 || !strings.Contains(errOut, "query the only histogram in") || !strings.Contains(errOut, "state it with --unit s, ms or us") ||
		strings.Contains(errOut, "hedgesim fit") {
		t.Errorf("no unit: exit %d, want 2 asking for --unit, the query in words: %s", code, errOut)
	}
	if code, _, errOut := hedgesim(t, "retune", "guard-check", "--from", api, "--model-label", "none", "--model", "llama-guard", "--unit", "s", "--quiet", "--no-adaptive", "--requests", "2000"); code == 2 {
		t.Errorf("with --unit s: exit 2: %s", errOut)
	}
}
