package readers

import (
	"reflect"
	"strings"
	"testing"
)

// TestFailedLatencies: a failed row's latency is kept when it is a time
// > 0 written as the successes write theirs; an empty, null, zero,
// negative or non-numeric cell, or one with a unit beside plain numbers,
// is a failure without a latency, never an error. 429s and invalid
// answers are not failures here.
func TestFailedLatencies(t *testing.T) {
	csv := "latency_ms,code\n" +
		"30ms,503\n" + // before any success: kept until the successes show plain numbers
		"400,200\n" +
		"25,500\n" +
		",502\n" +
		"timeout,504\n" +
		"0,500\n" +
		"-1,500\n" +
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
	if want := []float64{0.025, 0.04}; !reflect.DeepEqual(lat, want) || missing != 6 {
		t.Errorf("csv: got %v and %d missing, want %v and 6 missing", lat, missing, want)
	}
	if c := l.Counts(); c.OK != 2 || c.Failed != 8 || c.RateLimited != 1 || c.Invalid != 1 {
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
