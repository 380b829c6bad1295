package readers

import (
	"errors"
	"math"
	"os"
	"runtime"
	"strings"
	"testing"
)

// Shipped extracts (scenarios/data, copied verbatim from ../shared/data;
// see the SOURCE.md beside each).
const (
	dataDir      = "../scenarios/data/"
	togetherLog  = dataDir + "llmperf-leaderboard/individual/together_13b.json"
	anyscaleLog  = dataDir + "llmperf-leaderboard/individual/anyscale_13b.json"
	togetherSum  = dataDir + "llmperf-leaderboard/summary/together_13b.json"
	azureTrace   = dataDir + "azure-llm-inference-2023/conv-first3000.csv"
	mooncakeFile = dataDir + "mooncake-fast25-conversation/conversation-first300.jsonl"
)

func open(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// badCase is an input a loader must reject: the error must be an
// *InputError on line with field, its message containing msg.
type badCase struct {
	name  string
	in    string
	line  int
	field string
	msg   string
}

func checkBad(t *testing.T, tc badCase, err error) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("%s: got %v (%T), want an *InputError", tc.name, err, err)
	}
	if ie.File != "in" || ie.Line != tc.line || ie.Field != tc.field || !strings.Contains(ie.Msg, tc.msg) {
		t.Errorf("%s: got %q (line %d, field %q), want line %d, field %q, message containing %q",
			tc.name, ie.Error(), ie.Line, ie.Field, tc.line, tc.field, tc.msg)
	}
	if !strings.HasPrefix(ie.Error(), "in:") {
		t.Errorf("%s: %q does not start with file:line", tc.name, ie.Error())
	}
}

var csvCols = Columns{Latency: "latency_ms", Status: "status"}

func TestReadCSV(t *testing.T) {
	in := "id,latency_ms,status\r\n1,120,ok\r\n2,\"1500\",200\r\n3,,error 500\r\n4,x,429 Too Many Requests\r\n5,88.5,\r\n"
	l, err := ReadCSV(strings.NewReader(in), "in", csvCols)
	if err != nil {
		t.Fatal(err)
	}
	got := l.Latencies()
	want := []float64{0.12, 1.5, 0.0885}
	if len(got) != len(want) {
		t.Fatalf("latencies %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Errorf("latency %d = %v, want %v", i, got[i], want[i])
		}
	}
	c := l.Counts()
	if c.Total != 5 || c.OK != 3 || c.Failed != 1 || c.RateLimited != 1 {
		t.Errorf("counts %+v", c)
	}
	if l.At(4).Line != 6 {
		t.Errorf("row 5 on line %d, want 6", l.At(4).Line)
	}
}

func TestReadCSVBad(t *testing.T) {
	for _, tc := range []badCase{
		{"empty file", "", 1, "", "empty file"},
		{"header only", "latency_ms,status\n", 2, "", "no rows"},
		{"missing column", "lat,status\n1,ok\n", 1, "latency_ms", `no such column; the header has: "lat", "status"`},
		{"non-numeric", "latency_ms,status\n12,ok\n1 2,ok\n", 3, "latency_ms", `"1 2" is not a number`},
		{"negative", "latency_ms,status\n-4,ok\n", 2, "latency_ms", "negative"},
		{"zero", "latency_ms,status\n0,ok\n", 2, "latency_ms", "zero"},
		{"unknown unit", "latency_ms,status\n12min,ok\n", 2, "latency_ms", `unknown unit "min"`},
		{"infinite", "latency_ms,status\nInf,ok\n", 2, "latency_ms", "not a finite number"},
		{"field count", "latency_ms,status\n12,ok,extra\n", 2, "", "wrong number of fields"},
		{"bad quote", "latency_ms,status\n\"12,ok\n", 2, "", "quote"},
		{"mixed units", "latency_ms,status\n500ms,ok\n0.5s,ok\n500,ok\n", 3, "latency_ms", `"0.5s" is written with the unit s, but the column's first value (line 2) is written with the unit ms`},
		{"plain then unit", "latency_ms,status\n500,ok\n0.5s,ok\n", 3, "latency_ms", `"0.5s" is written with the unit s, but the column's first value (line 2) is written as a plain number (in ms)`},
		{"unit then plain", "latency_ms,status\n500ms,ok\n500,ok\n", 3, "latency_ms", `"500" is written as a plain number (in ms), but the column's first value (line 2) is written with the unit ms`},
		{"long header quoted briefly", strings.Repeat("x", 10000) + ",status\n1,ok\n", 1, "latency_ms", `no such column; the header has: "xxxxxxxx`},
	} {
		_, err := ReadCSV(strings.NewReader(tc.in), "in", csvCols)
		checkBad(t, tc, err)
		if err != nil && len(err.Error()) > 300 {
			t.Errorf("%s: a %d-byte message; quotes must be clipped", tc.name, len(err.Error()))
		}
	}
}

func TestReadCSVUnit(t *testing.T) {
	// No unit stated and none in the column name: every plain number is an error.
	_, err := ReadCSV(strings.NewReader("latency\n12\n"), "in", Columns{Latency: "latency"})
	checkBad(t, badCase{"no unit", "", 2, "latency", "has no unit"}, err)
	l, err := ReadCSV(strings.NewReader("latency\n12\n0.25\n"), "in", Columns{Latency: "latency", Unit: Seconds})
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Latencies(); got[0] != 12 || got[1] != 0.25 {
		t.Errorf("latencies %v, want [12 0.25]", got)
	}
	// A unit in every cell serves for a column without one.
	l, err = ReadCSV(strings.NewReader("latency\n12s\n250ms\n"), "in", Columns{Latency: "latency"})
	if err == nil {
		t.Fatal("12s and 250ms in one column accepted")
	}
	l, err = ReadCSV(strings.NewReader("latency\n12s\n0.25s\n"), "in", Columns{Latency: "latency"})
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Latencies(); got[0] != 12 || got[1] != 0.25 {
		t.Errorf("latencies %v, want [12 0.25]", got)
	}
	if _, err := ParseUnit("minutes"); err == nil {
		t.Error("ParseUnit(minutes) accepted")
	}
	for s, u := range map[string]Unit{"s": Seconds, "MS": Milliseconds, "µs": Microseconds, "us": Microseconds} {
		if got, err := ParseUnit(s); err != nil || got != u {
			t.Errorf("ParseUnit(%q) = %v, %v; want %v", s, got, err, u)
		}
	}
}

func TestReadCSVStreamed(t *testing.T) {
	in := "ttft_ms,e2e_ms,out\n200,1200,100\n300,1300,50\n"
	l, err := ReadCSV(strings.NewReader(in), "in", Columns{Latency: "e2e_ms", TTFT: "ttft_ms", OutputTokens: "out"})
	if err != nil {
		t.Fatal(err)
	}
	if !l.Streamed() {
		t.Fatal("not streamed")
	}
	if s := l.DecodeSpeeds(); s[0] != 100 || s[1] != 50 {
		t.Errorf("speeds %v, want [100 50]", s)
	}
	_, err = ReadCSV(strings.NewReader("ttft_ms,e2e_ms,out\n2000,1200,100\n"), "in", Columns{Latency: "e2e_ms", TTFT: "ttft_ms", OutputTokens: "out"})
	checkBad(t, badCase{"ttft after end", "", 2, "ttft_ms", "exceeds the latency"}, err)
	_, err = ReadCSV(strings.NewReader("ttft_ms,e2e_ms,out\n200,1200,1.5\n"), "in", Columns{Latency: "e2e_ms", TTFT: "ttft_ms", OutputTokens: "out"})
	checkBad(t, badCase{"fractional tokens", "", 2, "out", "not a whole number"}, err)
}

// TestReadCSVInputTokens: an input-tokens column gives each request its
// prompt length, lined up with its TTFT; a bad or missing count is an
// error on its line.
func TestReadCSVInputTokens(t *testing.T) {
	cols := Columns{Latency: "e2e_ms", TTFT: "ttft_ms", OutputTokens: "out", InputTokens: "in"}
	l, err := ReadCSV(strings.NewReader("ttft_ms,e2e_ms,out,in\n200,1200,100,550\n300,1300,50,4000\n"), "in", cols)
	if err != nil {
		t.Fatal(err)
	}
	if !l.HasInputTokens() {
		t.Fatal("input tokens not read")
	}
	if in, ttft := l.InputTokenCounts(), l.TTFTs(); in[0] != 550 || in[1] != 4000 || ttft[1] != 0.3 {
		t.Errorf("input %v, ttft %v", in, ttft)
	}
	_, err = ReadCSV(strings.NewReader("ttft_ms,e2e_ms,out,in\n200,1200,100,-5\n"), "in", cols)
	checkBad(t, badCase{"negative input", "", 2, "in", "negative"}, err)
	_, err = ReadCSV(strings.NewReader("ttft_ms,e2e_ms,out,in\n200,1200,100,\n"), "in", cols)
	checkBad(t, badCase{"empty input", "", 2, "in", ""}, err)
	_, err = ReadCSV(strings.NewReader("ttft_ms,e2e_ms,out\n200,1200,100\n"), "in", cols)
	checkBad(t, badCase{"no input column", "", 1, "in", "no such column"}, err)
	if _, err := ReadCSV(strings.NewReader("e2e_ms,in\n1,2\n"), "in", Columns{Latency: "e2e_ms", InputTokens: "in"}); err == nil {
		t.Error("an input-tokens column without ttft accepted")
	}
	l, err = ReadCSV(strings.NewReader("ttft_ms,e2e_ms,out\n200,1200,100\n"), "in", Columns{Latency: "e2e_ms", TTFT: "ttft_ms", OutputTokens: "out"})
	if err != nil || l.HasInputTokens() {
		t.Errorf("a log without input counts: %v, has input %v", err, l.HasInputTokens())
	}
}

func TestReadJSONL(t *testing.T) {
	in := `{"latency_ms": 120, "status": "ok"}

{"latency_ms": 500, "status": null}
{"latency_ms": null, "status": 503}
`
	l, err := ReadJSONL(strings.NewReader(in), "in", csvCols)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Latencies(); len(got) != 2 || got[0] != 0.12 || got[1] != 0.5 {
		t.Errorf("latencies %v", got)
	}
	if c := l.Counts(); c.Failed != 1 || c.Codes[Failed]["503"] != 1 {
		t.Errorf("counts %+v", c)
	}
	if l.At(1).Line != 3 {
		t.Errorf("second request on line %d, want 3", l.At(1).Line)
	}
}

func TestReadJSONLBad(t *testing.T) {
	for _, tc := range []badCase{
		{"empty file", "", 1, "", "empty file"},
		{"blank lines only", "\n\n", 1, "", "empty file"},
		{"missing field", `{"status": "ok"}`, 1, "latency_ms", "missing"},
		{"not an object", "{\"latency_ms\": 1, \"status\": \"ok\"}\n[1, 2]\n", 2, "", "not a JSON object"},
		{"syntax", `{"latency_ms": 1,`, 1, "", "not a JSON object"},
		{"two values", `{"latency_ms": 1, "status": "ok"} {}`, 1, "", "more than one JSON value"},
		{"non-numeric", `{"latency_ms": "fast", "status": "ok"}`, 1, "latency_ms", `"fast" is not a number`},
		{"object value", `{"latency_ms": {"v": 1}, "status": "ok"}`, 1, "latency_ms", `is not a number`},
		{"negative", `{"latency_ms": -1, "status": "ok"}`, 1, "latency_ms", "negative"},
		{"null on ok row", `{"latency_ms": null, "status": "ok"}`, 1, "latency_ms", "null"},
		{"unknown unit", `{"latency_ms": "3 parsecs", "status": "ok"}`, 1, "latency_ms", "unknown unit"},
		{"huge number", `{"latency_ms": 1e999, "status": "ok"}`, 1, "latency_ms", "out of range"},
	} {
		_, err := ReadJSONL(strings.NewReader(tc.in), "in", csvCols)
		checkBad(t, tc, err)
	}
}

func TestColumnsCheck(t *testing.T) {
	for _, c := range []Columns{
		{},
		{Latency: "a", Status: "a"},
		{Latency: "a", TTFT: "b"},
	} {
		if _, err := ReadCSV(strings.NewReader("a,b\n1,2\n"), "in", c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

func TestReadLLMPerf(t *testing.T) {
	l, err := ReadLLMPerf(open(t, togetherLog), togetherLog)
	if err != nil {
		t.Fatal(err)
	}
	c := l.Counts()
	// SOURCE.md: 150 records, 1 with error_code -1.
	if c.Total != 150 || c.OK != 149 || c.Failed != 1 || c.Codes[Failed]["-1"] != 1 {
		t.Errorf("counts %+v", c)
	}
	if !l.Streamed() {
		t.Error("llmperf log not streamed")
	}
	// The first record starts on line 2 with ttft_s 0.7063910059998761;
	// record 60 is the failed one (checked with Python's json module).
	if r := l.At(0); r.Line != 2 || r.TTFT != 0.7063910059998761 {
		t.Errorf("first request: line %d, ttft %v", r.Line, r.TTFT)
	}
	if r := l.At(60); r.Status != Failed || r.Code != "-1" {
		t.Errorf("request 60: %+v, want failed with code -1", r)
	}
}

const okRecord = `{"error_code": null, "ttft_s": 0.2, "end_to_end_latency_s": 1.2, "number_output_tokens": 150}`

func TestReadLLMPerfBad(t *testing.T) {
	for _, tc := range []badCase{
		{"empty file", "  \n", 1, "", "empty file"},
		{"object, not array", "{\n}", 1, "", "want a JSON array"},
		{"empty array", "[]", 1, "", "no requests"},
		{"element not object", "[\n" + okRecord + ",\n 3\n]", 3, "", "want a request object, got a number"},
		{"missing field", "[\n{\"error_code\": null,\n \"ttft_s\": 0.2,\n \"number_output_tokens\": 1}\n]", 2, "end_to_end_latency_s", "missing"},
		{"non-numeric", "[\n{\"error_code\": null,\n \"ttft_s\": \"soon\",\n \"end_to_end_latency_s\": 1, \"number_output_tokens\": 1}\n]", 3, "ttft_s", `"soon" is not a number`},
		{"negative", "[\n{\"error_code\": null, \"ttft_s\": 0.1,\n \"end_to_end_latency_s\": -1, \"number_output_tokens\": 1}\n]", 3, "end_to_end_latency_s", "negative"},
		{"zero on ok", "[{\"error_code\": null, \"ttft_s\": 0, \"end_to_end_latency_s\": 1, \"number_output_tokens\": 1}]", 1, "ttft_s", "a latency must be > 0"},
		{"ttft after end", "[{\"error_code\": null, \"ttft_s\": 2, \"end_to_end_latency_s\": 1, \"number_output_tokens\": 1}]", 1, "ttft_s", "exceeds"},
		{"bad code", "[{\"error_code\": true}]", 1, "error_code", "not an error code"},
		{"repeated key", "[{\"error_code\": null,\n\"error_code\": 429}]", 2, "error_code", "repeated; already given on line 1"},
		{"truncated", "[\n" + okRecord + ",\n", 3, "", "cut short"},
		{"syntax", "[\n" + okRecord + ",\n {\"error_code\": nul}]", 3, "", "invalid JSON"},
		{"trailing data", "[" + okRecord + "]\n[]", 2, "", "after the JSON document"},
	} {
		_, err := ReadLLMPerf(strings.NewReader(tc.in), "in")
		checkBad(t, tc, err)
	}
}

func TestReadLLMPerfSummary(t *testing.T) {
	s, err := ReadLLMPerfSummary(open(t, togetherSum), togetherSum)
	if err != nil {
		t.Fatal(err)
	}
	m := s.Metric("ttft_s")
	if m == nil || len(m.Ps) != 6 || m.Ps[0] != 0.25 || m.Ps[5] != 0.99 {
		t.Fatalf("ttft_s metric %+v", m)
	}
	if s.Completed != 149 || s.Errors != 1 || s.Framework != "together" || s.MeanOutputTokens != 150 {
		t.Errorf("summary %+v", s)
	}
}

func TestReadLLMPerfSummaryBad(t *testing.T) {
	for _, tc := range []badCase{
		{"empty", "", 1, "", "empty file"},
		{"array", "[]", 1, "", "want a JSON object"},
		{"no quantiles", `{"model": "x"}`, 1, "", "no results_<metric>_quantiles"},
		{"decreasing", "{\n\"results_ttft_s_quantiles_p50\": 2,\n\"results_ttft_s_quantiles_p90\": 1\n}", 3, "results_ttft_s_quantiles_p90", "below"},
		{"non-numeric", "{\n\"results_ttft_s_quantiles_p50\": \"x\"\n}", 2, "results_ttft_s_quantiles_p50", "not a number"},
		{"negative", "{\n\"results_ttft_s_quantiles_p50\": -2\n}", 2, "results_ttft_s_quantiles_p50", "negative"},
		{"bad percentile", "{\n\"results_ttft_s_quantiles_p100\": 2\n}", 2, "results_ttft_s_quantiles_p100", "not in (0, 100)"},
	} {
		_, err := ReadLLMPerfSummary(strings.NewReader(tc.in), "in")
		checkBad(t, tc, err)
	}
}

// TestCSVLineBound: a CSV row longer than 16 MiB (a file without line ends,
// a runaway quoted field) is an error on its line, not a field held in
// memory to the end of the file.
func TestCSVLineBound(t *testing.T) {
	long := strings.Repeat("9", maxLine+1)
	_, err := ReadCSV(strings.NewReader("latency_ms\n12\n"+long+"\n"), "in", Columns{Latency: "latency_ms"})
	checkBad(t, badCase{"long row", "", 3, "", "line longer than 16 MiB"}, err)
	_, err = ReadAzureTrace(strings.NewReader("TIMESTAMP,ContextTokens,GeneratedTokens\n\""+long), "in")
	checkBad(t, badCase{"runaway quote", "", 2, "", "line longer than 16 MiB"}, err)
	// Exactly at the bound is fine.
	l, err := ReadCSV(strings.NewReader("latency_ms\n"+strings.Repeat(" ", maxLine-2)+"12\n"), "in", Columns{Latency: "latency_ms"})
	if err != nil || l.Len() != 1 {
		t.Errorf("a %d-byte line: %v", maxLine, err)
	}
}

// TestLargeJSONMembersSkipped: a member no reader uses that holds an
// array of millions of elements (an llmperf record, a JSON Lines row) is
// skipped, not decoded: 2·10⁶ elements once cost 40 bytes each and
// seconds; now reading allocates a few times the file's size.
func TestLargeJSONMembersSkipped(t *testing.T) {
	junk := `"junk": [` + strings.Repeat("1,", 2_000_000) + `1], "nested": {"a": [1, {"b": 2}]}`
	llmperf := `[{"error_code": null, "ttft_s": 0.5, "end_to_end_latency_s": 2, "number_output_tokens": 10, ` + junk + "},\n" +
		`{"error_code": null, "ttft_s": 0.4, "end_to_end_latency_s": 1.5, "number_output_tokens": 12}]`
	jsonl := `{"lat": 1.5, ` + junk + "}\n" + `{"lat": 1.2}` + "\n"
	for _, tc := range []struct {
		name, src string
		read      func() (*Log, error)
	}{
		{"llmperf", llmperf, func() (*Log, error) { return ReadLLMPerf(strings.NewReader(llmperf), "l.json") }},
		{"jsonl", jsonl, func() (*Log, error) {
			return ReadJSONL(strings.NewReader(jsonl), "l.jsonl", Columns{Latency: "lat", Unit: Seconds})
		}},
	} {
		var l *Log
		var err error
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		l, err = tc.read()
		runtime.ReadMemStats(&b)
		if err != nil || l.Len() != 2 || l.Latencies()[0] != 1.5 && l.Latencies()[0] != 2 {
			t.Fatalf("%s: %v, %v", tc.name, l, err)
		}
		if alloc, limit := b.TotalAlloc-a.TotalAlloc, uint64(8*len(tc.src)); alloc > limit {
			t.Errorf("%s: allocated %d bytes reading %d, want ≤ %d", tc.name, alloc, len(tc.src), limit)
		}
	}
	// A member the reader needs that is an array is still an error that
	// says so.
	_, err := ReadJSONL(strings.NewReader(`{"lat": [1, 2]}`+"\n"), "l.jsonl", Columns{Latency: "lat", Unit: Seconds})
	if err == nil || !strings.Contains(err.Error(), "array") {
		t.Errorf("an array latency: %v; want an error naming the array", err)
	}
}
