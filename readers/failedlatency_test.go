package readers

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestFailedLatencies: a failed row's latency is kept when it is a time
// > 0 written as the successes write theirs; an empty, null, zero or
// non-numeric cell, or one with a unit beside plain numbers, is a failure
// without a latency, never an error. 429s and invalid answers are not
// failures here.
func TestFailedLatencies(t *testing.T) {
	csv := "latency_ms,code\n" +
		"30ms,503\n" + // before any success: kept until the successes show plain numbers
		"400,200\n" +
		"25,500\n" +
		",502\n" +
		"timeout,504\n" +
		"0,500\n" +
		"12,429\n" +
		"390,truncated\n" +
		"410,ok\n" +
		"0.05 s,500\n" +
		"40,upstream error\n"
	l, err := ReadCSV(strings.NewReader(csv), "f.csv", Columns{Latency: "latency_ms", Status: "code"})
	if err != nil {
		t.Fatal(err)
	}
	lat, missing := l.FailedLatencies()
	if want := []float64{0.025, 0.04}; !reflect.DeepEqual(lat, want) || missing != 5 {
		t.Errorf("csv: got %v and %d missing, want %v and 5 missing", lat, missing, want)
	}
	if c := l.Counts(); c.OK != 2 || c.Failed != 7 || c.RateLimited != 1 || c.Invalid != 1 {
		t.Errorf("csv: counts %+v", c)
	}

	jsonl := `{"latency": "0.4s", "status": null}
{"latency": "0.02s", "status": "500"}
{"latency": null, "status": "500"}
{"status": "500"}
{"latency": [1], "status": "500"}
{"latency": 0.03, "status": "500"}
`
	l, err = ReadJSONL(strings.NewReader(jsonl), "f.jsonl", Columns{Latency: "latency", Status: "status", Unit: Seconds})
	if err != nil {
		t.Fatal(err)
	}
	// The last row's plain number is in doubt beside "0.4s": dropped.
	if lat, missing := l.FailedLatencies(); !reflect.DeepEqual(lat, []float64{0.02}) || missing != 4 {
		t.Errorf("jsonl: got %v and %d missing, want [0.02] and 4 missing", lat, missing)
	}

	llmperf := `[
{"error_code": null, "ttft_s": 0.1, "end_to_end_latency_s": 1.5, "number_output_tokens": 20},
{"error_code": -1, "ttft_s": 0, "end_to_end_latency_s": 0, "number_output_tokens": 1},
{"error_code": 500, "end_to_end_latency_s": 0.07},
{"error_code": "boom", "end_to_end_latency_s": "x"},
{"error_code": 429, "end_to_end_latency_s": 0.01}
]`
	l, err = ReadLLMPerf(strings.NewReader(llmperf), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	if lat, missing := l.FailedLatencies(); !reflect.DeepEqual(lat, []float64{0.07}) || missing != 2 {
		t.Errorf("llmperf: got %v and %d missing, want [0.07] and 2 missing", lat, missing)
	}
}

// TestFailedLatencyBadNumber: a negative or non-finite latency on a failed
// row is refused with its file, line and column, as on a successful row,
// also in a column of no stated unit; empty and 0 stay a failure without
// a latency.
func TestFailedLatencyBadNumber(t *testing.T) {
	for _, tc := range []struct {
		name, cell, unitCol, want string
		ok                        string
	}{
		{"negative", "-5", "latency_ms", "f.csv:3: latency_ms: -5 on a failed row is negative", "400"},
		{"negative with unit", "-5ms", "latency_ms", "f.csv:3: latency_ms: -5ms on a failed row is negative", "400"},
		{"negative, no unit", "-5", "latency", "f.csv:3: latency: -5 on a failed row is negative", "400ms"},
		{"NaN", "NaN", "latency_ms", `f.csv:3: latency_ms: "NaN" on a failed row is not a finite number`, "400"},
		{"Inf", "+Inf", "latency_ms", `f.csv:3: latency_ms: "+Inf" on a failed row is not a finite number`, "400"},
	} {
		csv := tc.unitCol + ",ok\n" + tc.ok + ",true\n" + tc.cell + ",false\n" + tc.ok + ",true\n"
		_, err := ReadCSV(strings.NewReader(csv), "f.csv", Columns{Latency: tc.unitCol, Status: "ok"})
		var ie *InputError
		if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: got error %v, want an *InputError starting %q", tc.name, err, tc.want)
		}
	}
	jsonl := `{"latency_ms": 400, "ok": true}
{"latency_ms": -5, "ok": false}
`
	_, err := ReadJSONL(strings.NewReader(jsonl), "f.jsonl", Columns{Latency: "latency_ms", Status: "ok"})
	if want := "f.jsonl:2: latency_ms: -5 on a failed row is negative"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("jsonl: got error %v, want one starting %q", err, want)
	}
	l, err := ReadCSV(strings.NewReader("latency_ms,ok\n400,true\n,false\n0,false\n410,true\n"), "f.csv", Columns{Latency: "latency_ms", Status: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	if lat, missing := l.FailedLatencies(); len(lat) != 0 || missing != 2 {
		t.Errorf("empty and 0: got %v and %d missing, want none and 2 missing", lat, missing)
	}
}
