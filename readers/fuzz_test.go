package readers

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"strings"
	"testing"
)

// The fuzz targets check that every loader, on any input, either returns
// a valid result or an *InputError with a line — it never panics and
// never returns values that break its documented guarantees. Run one with
//
//	go test -run XXX -fuzz FuzzReadCSV -fuzztime 60s ./readers/
//
// Without -fuzz, `go test` runs only the seed corpus below (fast).

// checkInputErr fails unless err is an *InputError for file "fuzz" with a
// line ≥ 1 and a message.
func checkInputErr(t *testing.T, err error) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error %v (%T) is not an *InputError", err, err)
	}
	if ie.File != "fuzz" || ie.Line < 1 || ie.Msg == "" {
		t.Fatalf("error %q lacks file:line or message", ie.Error())
	}
}

// checkLog checks the guarantees of a loaded log.
func checkLog(t *testing.T, l *Log) {
	t.Helper()
	if l.Len() == 0 {
		t.Fatal("no requests and no error")
	}
	for i := range l.Len() {
		r := l.At(i)
		if r.Line < 1 {
			t.Fatalf("request %d: line %d", i, r.Line)
		}
		if r.Status != OK {
			continue
		}
		if !(r.Latency > 0) || math.IsInf(r.Latency, 0) {
			t.Fatalf("request %d: latency %v", i, r.Latency)
		}
		if !math.IsNaN(r.TTFT) && !(r.TTFT > 0 && r.TTFT <= r.Latency) {
			t.Fatalf("request %d: ttft %v, latency %v", i, r.TTFT, r.Latency)
		}
		for _, v := range []float64{r.OutputTokens, r.InputTokens} {
			if !math.IsNaN(v) && !(v >= 0 && v == math.Trunc(v)) {
				t.Fatalf("request %d: token count %v", i, v)
			}
		}
	}
	for _, s := range l.DecodeSpeeds() {
		if !(s > 0) || math.IsNaN(s) {
			t.Fatalf("decode speed %v", s)
		}
	}
}

// checkTrace checks the guarantees of a loaded trace.
func checkTrace(t *testing.T, tr *Trace) {
	t.Helper()
	n := tr.Len()
	if n == 0 || len(tr.Input) != n || len(tr.Output) != n || len(tr.Lines) != n {
		t.Fatalf("lengths %d %d %d %d", n, len(tr.Input), len(tr.Output), len(tr.Lines))
	}
	if tr.Arrivals[0] != 0 {
		t.Fatalf("first arrival %v, want 0", tr.Arrivals[0])
	}
	for i := range n {
		if tr.Arrivals[i] < 0 || (i > 0 && tr.Arrivals[i] < tr.Arrivals[i-1]) || tr.Arrivals[i] > maxOffset {
			t.Fatalf("arrival %d: %v after %v", i, tr.Arrivals[i], tr.Arrivals[max(i-1, 0)])
		}
		for _, v := range []float64{tr.Input[i], tr.Output[i]} {
			if !(v >= 0 && v == math.Trunc(v)) {
				t.Fatalf("request %d: token count %v", i, v)
			}
		}
	}
	if s, err := tr.Scaled(0.37); err != nil || s.Len() != n {
		t.Fatalf("Scaled: %v", err)
	}
}

// seedFile returns the first n bytes of a shipped file, for the corpus.
func seedFile(f *testing.F, name string, n int) string {
	data, err := os.ReadFile(name)
	if err != nil {
		f.Fatal(err)
	}
	return string(data[:min(n, len(data))])
}

// The seeds taken from shipped files are a few records each: Go's fuzzer
// minimizes every new interesting input, and on a large seed (the whole
// 58 KB llmperf log) the minimizer took the whole run.

// seedJSONArray returns the first n elements of a shipped JSON array file,
// as a JSON array.
func seedJSONArray(f *testing.F, name string, n int) string {
	var all []json.RawMessage
	if err := json.Unmarshal([]byte(seedFile(f, name, 1<<20)), &all); err != nil {
		f.Fatal(err)
	}
	out, err := json.Marshal(all[:min(n, len(all))])
	if err != nil {
		f.Fatal(err)
	}
	return string(out)
}

// seedJSONKeys returns the members of a shipped JSON object file whose
// names start with one of prefixes, as a JSON object.
func seedJSONKeys(f *testing.F, name string, prefixes ...string) string {
	var all map[string]json.RawMessage
	if err := json.Unmarshal([]byte(seedFile(f, name, 1<<20)), &all); err != nil {
		f.Fatal(err)
	}
	some := map[string]json.RawMessage{}
	for k, v := range all {
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) {
				some[k] = v
			}
		}
	}
	out, err := json.Marshal(some)
	if err != nil {
		f.Fatal(err)
	}
	return string(out)
}

// seedLines returns the first n lines of a shipped file.
func seedLines(f *testing.F, name string, n int) string {
	lines := strings.SplitAfter(seedFile(f, name, 1<<20), "\n")
	return strings.Join(lines[:min(n, len(lines))], "")
}

var fuzzCols = Columns{Latency: "latency_ms", TTFT: "ttft_ms", OutputTokens: "out", Status: "status"}

func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"latency_ms,ttft_ms,out,status\n1200,200,100,ok\n1300,300,50,\n",
		"status,out,ttft_ms,latency_ms\r\n429,,,\r\nok,7,0.1s,2s\r\n",
		"latency_ms,ttft_ms,out,status\n\"1,2\",3,4,ok\n",
		"latency_ms,ttft_ms,out,status\n-1,3,4,ok\n",
		"latency_ms,ttft_ms,out,status\n12min,3,4,ok\n",
		"\ufefflatency_ms,ttft_ms,out,status\n5,3,4,OK\n",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		l, err := ReadCSV(strings.NewReader(in), "fuzz", fuzzCols)
		if err != nil {
			checkInputErr(t, err)
			return
		}
		checkLog(t, l)
	})
}

func FuzzReadJSONL(f *testing.F) {
	for _, s := range []string{
		`{"latency_ms": 1200, "ttft_ms": 200, "out": 100, "status": "ok"}` + "\n" + `{"latency_ms": "2s", "ttft_ms": "1s", "out": 3, "status": null}`,
		`{"status": 500}` + "\n\n" + `{"latency_ms": 1, "ttft_ms": 1, "out": 0, "status": "ok"}`,
		`{"latency_ms": 1e999, "ttft_ms": 1, "out": 1, "status": "ok"}`,
		`[1]`,
		`{"latency_ms": {"a": 1}}`,
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		l, err := ReadJSONL(strings.NewReader(in), "fuzz", fuzzCols)
		if err != nil {
			checkInputErr(t, err)
			return
		}
		checkLog(t, l)
	})
}

func FuzzReadLLMPerf(f *testing.F) {
	f.Add(seedJSONArray(f, togetherLog, 2))
	for _, s := range []string{
		"[" + okRecord + "]",
		`[{"error_code": 429, "ttft_s": 0, "end_to_end_latency_s": 0}, {"error_code": -100}]`,
		`[{"error_code": null, "ttft_s": "0.2", "end_to_end_latency_s": 1, "number_output_tokens": 3, "number_input_tokens": 550}]`,
		"[\n" + okRecord + ",\n",
		`{}`,
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		l, err := ReadLLMPerf(strings.NewReader(in), "fuzz")
		if err != nil {
			checkInputErr(t, err)
			return
		}
		checkLog(t, l)
	})
}

func FuzzReadLLMPerfSummary(f *testing.F) {
	f.Add(seedJSONKeys(f, togetherSum, "results_ttft_s_quantiles", "results_error_code_frequency"))
	for _, s := range []string{
		`{"results_end_to_end_latency_s_quantiles_p50": 1, "results_end_to_end_latency_s_quantiles_p99": 2, "results_end_to_end_latency_s_mean": "1.1"}`,
		`{"results_ttft_s_quantiles_p50": 2, "results_ttft_s_quantiles_p90": 2, "results_error_code_frequency": "{429.0: 3}"}`,
		`{"results_x_quantiles_p0": 1}`,
		`[]`,
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ReadLLMPerfSummary(strings.NewReader(in), "fuzz")
		if err != nil {
			checkInputErr(t, err)
			return
		}
		for _, m := range s.Metrics {
			if len(m.Ps) < 2 || len(m.Ps) != len(m.Xs) {
				t.Fatalf("metric %s: %d points", m.Name, len(m.Ps))
			}
			for i := range m.Ps {
				if !(m.Ps[i] > 0 && m.Ps[i] < 1) || !(m.Xs[i] >= 0) || (i > 0 && (m.Ps[i] <= m.Ps[i-1] || m.Xs[i] < m.Xs[i-1])) {
					t.Fatalf("metric %s: points %v %v", m.Name, m.Ps, m.Xs)
				}
			}
		}
	})
}

func FuzzReadAzureTrace(f *testing.F) {
	f.Add(seedFile(f, azureTrace, 4096))
	for _, s := range []string{
		"TIMESTAMP,ContextTokens,GeneratedTokens\r\n2023-11-16 18:15:46.6805900,374,44\r\n2023-11-16 18:15:50.9951690,396,109",
		"GeneratedTokens,TIMESTAMP,ContextTokens\n1,2023-01-01 00:00:00,2\n",
		"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,1,2\n2023-11-16 18:15:45,1,2\n",
		"TIMESTAMP,ContextTokens,GeneratedTokens\n0001-01-01 00:00:00,1,2\n9999-12-31 23:59:59.999999999,1,2\n",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		tr, err := ReadAzureTrace(strings.NewReader(in), "fuzz")
		if err != nil {
			checkInputErr(t, err)
			return
		}
		checkTrace(t, tr)
	})
}

func FuzzReadMooncakeTrace(f *testing.F) {
	f.Add(seedLines(f, mooncakeFile, 3))
	for _, s := range []string{
		`{"timestamp": 0, "input_length": 6758, "output_length": 500, "hash_ids": [0, 1]}` + "\n" + `{"timestamp": 1.5, "input_length": 1, "output_length": 2}`,
		`{"timestamp": 5, "input_length": 1, "output_length": 2}` + "\n" + `{"timestamp": 4, "input_length": 1, "output_length": 2}`,
		`{"timestamp": 1e300, "input_length": 1, "output_length": 2}`,
		`{"timestamp": -0, "input_length": 0, "output_length": 0}`,
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		tr, err := ReadMooncakeTrace(strings.NewReader(in), "fuzz")
		if err != nil {
			checkInputErr(t, err)
			return
		}
		checkTrace(t, tr)
	})
}
