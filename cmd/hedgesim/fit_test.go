package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
)

const (
	llmperfDir  = "../../scenarios/data/llmperf-leaderboard/"
	togetherLog = llmperfDir + "individual/together_13b.json"
	anyscaleLog = llmperfDir + "individual/anyscale_13b.json"
	replayFile  = "../../scenarios/llmperf-azure-chat.toml"
)

// TestFitLLMPerf: the whole output is TOML, and with arrivals and a class
// added it is a valid scenario.
func TestFitLLMPerf(t *testing.T) {
	code, out, errOut := hedgesim(t, "fit", "--name", "t13", "--provider", "together", togetherLog)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"# ttft (s), n = 149", "observed", "95% interval", "mixture-3 <", "[models.t13]", `provider = "together"`, "fit ok", "error_rate = 0.00666667"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	doc := "[arrivals]\nrate = 1\n" + out + "\n[[classes]]\nname = \"c\"\noutput_tokens = { kind = \"constant\", value = 150 }\n"
	if _, err := scenario.Parse("fit.toml", []byte(doc)); err != nil {
		t.Errorf("fit output is not a usable model block: %v", err)
	}
}

// TestFitRegeneratesScenario: the model blocks of the replay scenario are
// what `hedgesim fit` prints for its logs, as its header says.
func TestFitRegeneratesScenario(t *testing.T) {
	t.Parallel() // in-process CLI runs that set no test hook and keep the working directory
	data, err := os.ReadFile(replayFile)
	if err != nil {
		t.Fatal(err)
	}
	file := string(data)
	for _, c := range []struct{ name, provider, log string }{
		{"together-13b", "together", togetherLog},
		{"anyscale-13b", "anyscale", anyscaleLog},
	} {
		code, out, errOut := hedgesim(t, "fit", "--name", c.name, "--provider", c.provider, c.log)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		// From the table header to the last fitted key; the comments before
		// it name the command (paths differ) and the prices follow it.
		start := strings.Index(out, "[models."+c.name+"]")
		end := strings.Index(out, "# price_input_per_mtok")
		if start < 0 || end < start {
			t.Fatalf("no block in:\n%s", out)
		}
		if block := out[start:end]; !strings.Contains(file, block) {
			t.Errorf("%s: the scenario's block differs from hedgesim fit's:\n%s", c.name, block)
		}
	}
}

func TestFitJSONAndSummary(t *testing.T) {
	code, out, errOut := hedgesim(t, "fit", "--json", anyscaleLog)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Format  string `json:"format"`
		OK      int    `json:"ok"`
		Metrics []struct {
			Name   string `json:"name"`
			Chosen string `json:"chosen"`
		} `json:"metrics"`
		TOML string `json:"toml"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if rep.Format != "llmperf" || rep.OK != 150 || len(rep.Metrics) != 3 || !strings.Contains(rep.TOML, "[models.anyscale_13b]") {
		t.Errorf("JSON report %+v", rep)
	}
	code, out, errOut = hedgesim(t, "fit", llmperfDir+"summary/anyscale_13b.json")
	if code != 0 {
		t.Fatalf("summary: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `latency = { kind = "quantiles", quantiles = { p25 = `) || !strings.Contains(out, "continues as the lognormal") {
		t.Errorf("summary block:\n%s", out)
	}
}

func TestFitCSV(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "lat.csv")
	var b strings.Builder
	b.WriteString("when,latency_ms,code\n")
	for i := range 60 {
		code := "200"
		if i%20 == 0 {
			code = "429"
		}
		b.WriteString("t," + []string{"120", "135", "150", "180", "240", "900"}[i%6] + "," + code + "\n")
	}
	if err := os.WriteFile(good, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := hedgesim(t, "fit", "--latency", "latency_ms", "--status", "code", good)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// 429s are not errors of the model: they stay out of error_rate.
	if !strings.Contains(out, "latency = {") || !strings.Contains(out, "error_rate = 0  # 0 of 60 requests failed") ||
		!strings.Contains(out, "# 3 of 60 requests were rate limited (0.05 of them, 429s): not in error_rate") {
		t.Errorf("output:\n%s", out)
	}
}

// TestFitBadInput: bad logs and flags exit 2 with file:line and what is
// wrong, and never panic.
func TestFitBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	neg := write("neg.csv", "latency_ms\n12\n-3\n")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"fit"}, "no LOG given"},
		{[]string{"fit", "a", "b"}, "takes one LOG"},
		{[]string{"fit", filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{"fit", write("empty.json", "")}, "empty.json:1: empty file"},
		{[]string{"fit", "--latency", "latency_ms", neg}, "neg.csv:3: latency_ms: -3 is negative"},
		{[]string{"fit", "--latency", "lat", neg}, `neg.csv:1: lat: no such column`},
		{[]string{"fit", neg}, "needs --latency"},
		{[]string{"fit", "--latency", "latency_ms", "--unit", "minutes", neg}, `unknown unit "minutes"`},
		{[]string{"fit", "--latency", "latency_ms", write("unit.csv", "latency_ms\n3 fortnights\n")}, `unit.csv:2: latency_ms: unknown unit "fortnights"`},
		{[]string{"fit", "--latency", "latency_ms", write("nan.csv", "latency_ms\nabc\n")}, `nan.csv:2: latency_ms: "abc" is not a number`},
		{[]string{"fit", "--format", "xml", neg}, `--format "xml"`},
		{[]string{"fit", "--model", "gamma", togetherLog}, `unknown model "gamma"`},
		{[]string{"fit", "--latency", "latency_ms", write("one.csv", "latency_ms\n12\n")}, "need at least 2"},
		{[]string{"fit", "--split-half", write("small.json", "["+strings.Repeat(`{"error_code": null, "ttft_s": 0.1, "end_to_end_latency_s": 1, "number_output_tokens": 3},`, 9)+`{"error_code": 429}]`)}, "split-half check needs 100"},
		{[]string{"fit", "--seed", "-1", togetherLog}, "--seed -1"},
	} {
		code, _, errOut := hedgesim(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errOut, tc.msg)
		}
	}
}

func TestFitSplitHalf(t *testing.T) {
	code, out, errOut := hedgesim(t, "fit", "--split-half", togetherLog, anyscaleLog)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "predicted p95") || !regexp.MustCompile(`inside the held-out 95% interval: [34] of 4`).MatchString(out) {
		t.Errorf("output:\n%s", out)
	}
}

// TestRunReplayScenario: the replay scenario runs from its file path and
// by name from the embedded copy.
func TestRunReplayScenario(t *testing.T) {
	for _, arg := range []string{replayFile, "llmperf-azure-chat"} {
		code, out, errOut := hedgesim(t, "run", arg)
		if code != 0 {
			t.Fatalf("run %s: exit %d: %s", arg, code, errOut)
		}
		if !strings.Contains(out, "3000 requests") || !strings.Contains(out, "short") || !strings.Contains(out, "streamed") {
			t.Errorf("run %s:\n%s", arg, out)
		}
	}
}

// TestFitInputTokens: --input-tokens names the prompt-length column of a
// streamed CSV log; TTFT that grows with it gets prefill_tokens_per_s in
// the block, which is a valid scenario; a bad count exits 2 with its line.
func TestFitInputTokens(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("ttft_s,latency_s,in,out\n")
	for i := range 200 {
		in := 500 + 97*(i%80)                              // 500 … 8163 tokens
		ttft := 0.2 + 0.05*float64(i%7) + float64(in)/4000 // base 0.2–0.5 s, prefill 4000 tokens/s
		out := 100 + 10*(i%11)
		b.WriteString(strconv.FormatFloat(ttft, 'f', 4, 64) + "," + strconv.FormatFloat(ttft+float64(out)/(60+float64(i%13)), 'f', 4, 64) +
			"," + strconv.Itoa(in) + "," + strconv.Itoa(out) + "\n")
	}
	log := filepath.Join(dir, "prompts.csv")
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"fit", "--latency", "latency_s", "--ttft", "ttft_s", "--output-tokens", "out", "--input-tokens", "in", "--model", "empirical"}
	code, out, errOut := hedgesim(t, append(args, log)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// The log was made at 4000 tokens/s: inside the reported interval.
	m := regexp.MustCompile(`# prefill_tokens_per_s: 1 / slope of TTFT on input tokens, 95% interval \[([0-9.]+), ([0-9.]+)\] tokens/s`).FindStringSubmatch(out)
	if !strings.Contains(out, "TTFT grows with the prompt") || !strings.Contains(out, "prefill_tokens_per_s = { kind = \"constant\", value = ") || m == nil {
		t.Fatalf("output:\n%s", out)
	}
	if lo, _ := strconv.ParseFloat(m[1], 64); lo > 4000 {
		t.Errorf("prefill speed interval [%s, %s] misses 4000 tokens/s", m[1], m[2])
	} else if hi, _ := strconv.ParseFloat(m[2], 64); hi < 4000 {
		t.Errorf("prefill speed interval [%s, %s] misses 4000 tokens/s", m[1], m[2])
	}
	doc := "[arrivals]\nrate = 1\n" + out + "\n[[classes]]\nname = \"c\"\n"
	if _, err := scenario.Parse("fitted.toml", []byte(doc)); err != nil {
		t.Errorf("the fitted block is not a valid scenario: %v", err)
	}
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("ttft_s,latency_s,in,out\n0.5,1,500,10\n0.5,1,lots,10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := hedgesim(t, append(args, bad)...); code != 2 || !strings.Contains(errOut, `bad.csv:3: in: "lots" is not a number`) {
		t.Errorf("bad input count: exit %d, %q", code, errOut)
	}
}

// TestFitPrometheusAPIErrorGuessed: a Prometheus API error response (the
// envelope with status "error" and no result) is recognised as the API's
// JSON, whatever its name, and its error given — not read as an llmperf
// log ("want a JSON array of request objects … got an object"); a JSON
// Lines log whose rows hold a status of their own stays a log.
func TestFitPrometheusAPIErrorGuessed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"api_err.json", "api_err.txt"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(`{"status":"error","errorType":"bad_data","error":"parse error"}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := hedgesim(t, "fit", p)
		if code != 2 || !strings.Contains(errOut, `the query failed ("error"): bad_data parse error`) || strings.Contains(errOut, "llmperf") {
			t.Errorf("%s: exit %d, %q; want exit 2 with the query's error", name, code, errOut)
		}
	}
	if got := guessFormat("x.log", []byte(`{"status": "error", "ttft_s": 0.2}`+"\n")); got != "jsonl" {
		t.Errorf("a log row with a status guessed as %q, want jsonl", got)
	}
}

// TestFitTwoRowsInterval: with two rows the p50's 95 % interval is
// unbounded on both sides and prints n/a, not [-Inf, +Inf].
func TestFitTwoRowsInterval(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "two.csv")
	if err := os.WriteFile(p, []byte("latency_ms\n123\n456\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := hedgesim(t, "fit", "--latency", "latency_ms", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "-Inf") || !regexp.MustCompile(`95% interval +n/a +\[0\.123, \+Inf\]`).MatchString(out) {
		t.Errorf("p50 interval of two rows not n/a:\n%s", out)
	}
}
