package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// ciRow finds "p95 [low, high]" in a candidate row, in seconds.
var ciRow = regexp.MustCompile(`(\d+\.\d+)s\s+\[(\d+\.\d+)s, (\d+\.\d+)s\]`)

// lognormalScenario is the oracle: one model, lognormal latency
// with median 1 s and sigma 1.
const lognormalScenario = `
seed = 3
[arrivals]
rate = 100
[models.m]
latency = { kind = "lognormal", mu = 0.0, sigma = 1.0 }
price_input_per_mtok = 1.0
[[classes]]
name = "chat"
input_tokens = { kind = "constant", value = 1000 }
[optimize]
max_added_cost_pct = inf
`

func writeScenario(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lognormal.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOptimizeOracleTable: the table shows p95 ≈ 2.66 s at delay 1 s with
// 1.5 calls per request, and p95 unchanged at 5.18 s for a delay at the
// single-call p95.
func TestOptimizeOracleTable(t *testing.T) {
	path := writeScenario(t, lognormalScenario)
	code, out, errOut := hedgesim(t, "optimize", path, "--requests", "200000", "--delays", "1s,5.18s", "--all")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var row1s, row518, base string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "rollout check:") {
			break // the candidate tables end here
		}
		f := strings.Fields(line)
		if len(f) < 6 || !strings.HasPrefix(line, "  ") {
			continue
		}
		// Columns: [mark] [f] delay copies target p95 …
		for _, d := range f[:3] {
			switch d {
			case "1s":
				row1s = line
			case "5.18s":
				row518 = line
			case "none":
				base = line
			}
		}
	}
	// The oracle: T = min(X₁, 1 + X₂) for X lognormal(0, 1), so p95 solves
	// S(t)·S(t−1) = 0.05 (t ≈ 2.663 s); without hedging p95 = e^1.645 = 5.180 s.
	s := func(x float64) float64 { return 0.5 * math.Erfc(math.Log(x)/math.Sqrt2) }
	lo, hi := 1.0, 10.0
	for range 100 {
		mid := (lo + hi) / 2
		if s(mid)*s(mid-1) > 0.05 {
			lo = mid
		} else {
			hi = mid
		}
	}
	checkCI := func(name, row string, want float64) {
		m := ciRow.FindStringSubmatch(row)
		if m == nil {
			t.Errorf("%s row %q: no p95 with an interval", name, row)
			return
		}
		l, _ := strconv.ParseFloat(m[2], 64)
		h, _ := strconv.ParseFloat(m[3], 64)
		// The printed interval is rounded to 10 ms.
		if want < l-0.005 || want > h+0.005 {
			t.Errorf("%s: p95 interval [%v, %v] s does not hold the oracle %.4f s", name, l, h, want)
		}
	}
	checkCI("delay 1s", row1s, lo)
	checkCI("no hedging", base, 5.180)
	checkCI("delay 5.18s", row518, 5.180)
	// Calls per request: 1 + S(1) = 1.5, ± 5 standard errors at n = 2·10⁵
	// (0.0056), printed to 3 decimals.
	if !regexp.MustCompile(`\s1\.(49[5-9]|50[0-5])\s`).MatchString(row1s) {
		t.Errorf("delay 1s row %q: want 1.50 ± 0.006 calls per request", row1s)
	}
	// −48 % p95 for +50 % cost is 0.97 % per 1 %: just short of the rule's
	// marginal test, so the trade-off stays at no hedging.
	for _, want := range []string{"verdict: don't hedge: no candidate buys enough to move off no hedging", "the best move, to 1s, buys p95 5.", "0.97% of no hedging's p95", "quantiles: nearest rank"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if errOut != "" {
		t.Errorf("stderr not empty (no terminal, so no progress line): %q", errOut)
	}
}

// TestOptimizeOut writes the full report and checks every file: JSON and
// CSV parse, PNGs decode at the expected size, no temporary files remain.
func TestOptimizeOut(t *testing.T) {
	t.Parallel() // in-process CLI runs that set no test hook and keep the working directory
	dir := filepath.Join(t.TempDir(), "report")
	code, out, errOut := hedgesim(t, "optimize", "--requests", "2000", "--out", dir, "--classes", "short,strict-sla", "--wide")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{manifestName, "candidates.csv", "index.html", "report.json", "report.txt"}
	for _, class := range []string{"short", "strict-sla"} {
		for _, fig := range []string{"cost", "delay", "survival"} {
			want = append(want, class+"-"+fig+".png", class+"-"+fig+".svg")
		}
	}
	if strings.Join(names, " ") != strings.Join(sorted(want), " ") {
		t.Errorf("files %v; want %v", names, sorted(want))
	}
	txt, _ := os.ReadFile(filepath.Join(dir, "report.txt"))
	if string(txt) != out {
		t.Error("report.txt differs from stdout with --wide (report.txt holds the full-width text)")
	}
	if strings.Contains(out, "-0.0%") {
		t.Errorf("report prints -0.0%%:\n%s", out)
	}
	js, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	var rep struct {
		Classes []struct {
			Class string `json:"class"`
		} `json:"classes"`
	}
	if err := json.Unmarshal(js, &rep); err != nil || len(rep.Classes) != 2 {
		t.Errorf("report.json: %v, %+v", err, rep)
	}
	f, _ := os.Open(filepath.Join(dir, "candidates.csv"))
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 1+2*41 || rows[0][0] != "class" {
		t.Errorf("candidates.csv: %v, %d rows", err, len(rows))
	}
	// No float noise such as 1.9239342640000001.
	decimal := regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)
	for _, row := range rows {
		for _, v := range row {
			if sig := strings.TrimLeft(strings.Replace(v, ".", "", 1), "-0"); decimal.MatchString(v) && len(sig) > 12 {
				t.Errorf("candidates.csv: %q has more than 12 significant digits", v)
			}
		}
	}
	for name, size := range map[string][2]int{"short-cost.png": {768, 480}, "short-survival.png": {768, 480}, "strict-sla-delay.png": {768, 672}} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if b := img.Bounds(); b.Dx() != size[0] || b.Dy() != size[1] {
			t.Errorf("%s is %dx%d; want %dx%d", name, b.Dx(), b.Dy(), size[0], size[1])
		}
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "short-cost.svg"))
	if !bytes.Contains(svg, []byte("<svg")) {
		t.Error("short-cost.svg is not SVG")
	}
	page, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	if bytes.Count(page, []byte(`<tr class="class-row">`)) != 2 || bytes.Count(page, []byte("<svg")) != 8 || !bytes.Contains(page, []byte("hedgesim optimize --requests 2000 --out")) || !bytes.Contains(page, []byte("hedgesim export --format")) {
		t.Error("index.html lacks the two classes' rows, their six figures and two candidate maps, the command or the export command")
	}

	// A second run over the same directory replaces the whole report: the
	// first run's plots do not stay beside the new report, and nothing
	// temporary is left beside the directory.
	if code, _, errOut := hedgesim(t, "optimize", "--requests", "1000", "--out", dir, "--classes", "short", "--json", "--no-plots"); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, errOut)
	}
	if got, want := dirNames(t, dir), []string{manifestName, "candidates.csv", "index.html", "report.json", "report.txt"}; !slices.Equal(got, want) {
		t.Errorf("files after the second run %v; want %v", got, want)
	}
	if got := dirNames(t, filepath.Dir(dir)); !slices.Equal(got, []string{"report"}) {
		t.Errorf("beside the report: %v; want only the report directory", got)
	}
}

// dirNames returns the names in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestOptimizeJSONDeterministic(t *testing.T) {
	args := []string{"optimize", "guard-check", "--json", "--requests", "2000", "--from", "0s", "--to", "3s", "--step", "500ms", "--copies", "1,2"}
	_, a, _ := hedgesim(t, args...)
	code, b, errOut := hedgesim(t, append(args, "--workers", "1")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if a != b {
		t.Error("same seed, different JSON with another worker count")
	}
	var rep struct {
		Classes []struct {
			Candidates []struct {
				Label string `json:"label"`
			} `json:"candidates"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(b), &rep); err != nil {
		t.Fatal(err)
	}
	// 0s … 3s every 500ms, but 3s is guard-check's deadline: a copy due
	// then is never sent, so that delay is no candidate.
	if n := len(rep.Classes[0].Candidates); n != 1+6*2 {
		t.Errorf("%d candidates; want 13 (no hedging, 6 delays × 2 copy counts)", n)
	}
}

func TestOptimizeUsageErrors(t *testing.T) {
	bad := writeScenario(t, lognormalScenario+"objective = \"fast\"\n")
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"--delays", "1s,abc"}, `--delays: "abc" is not a duration`},
		{[]string{"--delays", "100"}, `"100" is not a duration`},
		{[]string{"--delays", "1s", "--step", "1s"}, "exclusive"},
		{[]string{"--from", "1s"}, "needs --to and --step (--from defaults to 0s): --to and --step not given"},
		{[]string{"--from", "2s", "--to", "1s"}, "needs --to and --step (--from defaults to 0s): --step not given; and --to 1s is below --from 2s"},
		{[]string{"--to", "3s"}, "needs --to and --step (--from defaults to 0s): --step not given"},
		{[]string{"--from", "1s", "--step", "1s"}, "needs --to and --step (--from defaults to 0s): --to not given"},
		{[]string{"--to", "1s", "--step", "0s"}, "step 0s: must be > 0"},
		{[]string{"--copies", "x"}, `"x" is not an integer`},
		{[]string{"--copies", "9"}, "--copies 9: must be in [1, 7]"},
		{[]string{"--targets", "nope"}, `target model "nope" is not defined`},
		{[]string{"--objective", "p50"}, "unknown objective"},
		{[]string{"--objective", "cost"}, "--objective cost needs --sla LATENCY"},
		{[]string{"--max-hedged", "120"}, "--max-hedged 120: must be in [0, 100]"},
		{[]string{"--max-cost", "x"}, `"x" is not a number`},
		{[]string{"--confidence", "2"}, "confidence level"},
		{[]string{"--requests", "0"}, "--requests 0"},
		{[]string{"--workers", "0"}, "--workers 0"},
		{[]string{"--classes", "nope"}, `class "nope" is not defined`},
		{[]string{"--seed", "-1"}, "--seed -1"},
		{[]string{"a.toml", "b.toml"}, "at most one scenario"},
		{[]string{"--bogus"}, "flag provided but not defined"},
		{[]string{bad}, bad + ":13: optimize.objective: unknown value \"fast\""},
	}
	for _, tc := range tests {
		code, _, errOut := hedgesim(t, append([]string{"optimize"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(errOut, tc.msg) {
			t.Errorf("optimize %q: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.msg)
		}
	}
	// Help asked for with "help optimize" or -h goes to stdout.
	for _, args := range [][]string{{"help", "optimize"}, {"optimize", "-h"}} {
		code, out, errOut := hedgesim(t, args...)
		if code != 0 || errOut != "" || !strings.Contains(out, "Usage: hedgesim optimize") || !strings.Contains(out, "-objective name") {
			t.Errorf("%q: exit %d, %q", args, code, out+errOut)
		}
	}
}

// TestFileStem: an ASCII class name keeps its stem; a name without an
// ASCII letter or digit (聊天, ..) takes the fallback, the class's place
// ("class-3"), not "__"; stems stay unique.
func TestFileStem(t *testing.T) {
	used := map[string]bool{}
	for _, c := range []struct{ in, fallback, want string }{
		{"short", "class-1", "short"}, {"Short", "class-2", "Short-2"}, {"a/b c", "class-3", "a_b_c"}, {"..", "class", "class"},
		{"strict-sla", "class-5", "strict-sla"}, {"聊天", "class-6", "class-6"}, {"🚀 batch", "class-7", "__batch"},
		{"对话", "class-8", "class-8"}, {"_-_", "class-9", "class-9"},
	} {
		if got := fileStem(c.in, c.fallback, used); got != c.want {
			t.Errorf("fileStem(%q, %q) = %q; want %q", c.in, c.fallback, got, c.want)
		}
	}
}

// TestEveryShippedScenarioOptimizes runs optimize on every shipped scenario
// with its own [optimize] table, briefly.
func TestEveryShippedScenarioOptimizes(t *testing.T) {
	t.Parallel() // in-process CLI runs that set no test hook and keep the working directory
	files, _ := filepath.Glob("../../scenarios/*.toml")
	for _, f := range files {
		code, out, errOut := hedgesim(t, "optimize", "--requests", "500", "--delays", "0s,500ms,2s", f)
		if code != 0 || !strings.Contains(out, "verdict") {
			t.Errorf("%s: exit %d: %s", f, code, errOut)
		}
	}
}

// TestOptimizeTooFewRequests: `optimize --requests 1` (and 5) used to say
// "hedge" with "significant": true on degenerate intervals. Now every class
// is undecided (never "don't hedge" on too few requests), not significant,
// with the requests needed.
func TestOptimizeTooFewRequests(t *testing.T) {
	for _, n := range []string{"1", "5"} {
		code, out, errOut := hedgesim(t, "optimize", "--requests", n, "--max-cost", "inf", "--json")
		if code != 0 {
			t.Fatalf("--requests %s: exit %d: %s", n, code, errOut)
		}
		var rep struct {
			Classes []struct {
				Class   string `json:"class"`
				Verdict struct {
					Hedge       bool   `json:"hedge"`
					Undecided   bool   `json:"undecided"`
					Significant bool   `json:"significant"`
					Reason      string `json:"reason"`
				} `json:"verdict"`
				Candidates []struct {
					P95CIOK *bool `json:"p95_ci95_ok"`
					Like    bool  `json:"indistinguishable_from_pick"`
					Pick    bool  `json:"pick"`
				} `json:"candidates"`
			} `json:"classes"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Classes) == 0 {
			t.Fatalf("--requests %s: %v", n, err)
		}
		for _, c := range rep.Classes {
			v := c.Verdict
			if v.Hedge || !v.Undecided || v.Significant || !strings.Contains(v.Reason, "cannot tell at "+n+" request") || !strings.Contains(v.Reason, "at least 110 needed") {
				t.Errorf("--requests %s: class %s: verdict %+v", n, c.Class, v)
			}
			for i, cand := range c.Candidates {
				if cand.P95CIOK == nil {
					t.Fatalf("--requests %s: class %s: candidate %d has no p95_ci95_ok", n, c.Class, i)
				}
				if *cand.P95CIOK || !(cand.Pick || cand.Like) {
					t.Errorf("--requests %s: class %s: candidate %d marked significantly different from the pick", n, c.Class, i)
				}
			}
		}
	}
	code, out, _ := hedgesim(t, "optimize", "--requests", "1", "--delays", "0s")
	if code != 0 || !strings.Contains(out, "1 request per candidate") || strings.Contains(out, "1 requests") || strings.Contains(out, "verdict: hedge") || !strings.Contains(out, "verdict: undecided") {
		t.Errorf("--requests 1: exit %d:\n%s", code, out)
	}
}

// TestOptimizeReplayHeader: with a replayed trace the first line gives each
// class's requests, not the 200000 asked for.
func TestOptimizeReplayHeader(t *testing.T) {
	code, out, errOut := hedgesim(t, "optimize", "llmperf-azure-chat", "--delays", "0s,1s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	first, _, _ := strings.Cut(out, "\n")
	if !strings.Contains(first, "requests per candidate: the trace's, per class: short 1233, streamed 1767") || strings.Contains(first, "200000") {
		t.Errorf("first line %q", first)
	}
}

// TestOptimizeDelayAxisClamped: six series give the delay figure's lower
// panel a tall legend, for which the panel's top is raised above 100 %;
// its "% of requests" axis is still labelled only from 0 to 100 (it used
// to run to 150).
func TestOptimizeDelayAxisClamped(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	code, _, errOut := hedgesim(t, "optimize", "--requests", "2000", "--out", dir, "--classes", "short",
		"--delays", "0s,1s,2s,4s", "--copies", "1,2,3", "--targets", "large-a,large-b")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "short-delay.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte(">100<")) {
		t.Error("the delay figure has no tick label 100")
	}
	for _, m := range regexp.MustCompile(`>(1[1-9]0|[2-9][0-9]0)<`).FindAll(svg, -1) {
		t.Errorf("the delay figure has a tick label %s: the %% axis runs past 100", m)
	}
}
