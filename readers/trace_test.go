package readers

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// azureOffsets parses the Azure extract independently of ReadAzureTrace:
// integer arithmetic on the timestamp text (all rows are on 2023-11-16),
// so the loader's offsets can be checked exactly.
func azureOffsets(t *testing.T, name string) (offs []time.Duration, in, out []float64) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\r\n"), "\r\n")
	var first int64
	for i, line := range lines[1:] {
		f := strings.Split(line, ",")
		date, clock, _ := strings.Cut(f[0], " ")
		if date != "2023-11-16" {
			t.Fatalf("row %d: date %s", i, date)
		}
		hms, frac, _ := strings.Cut(clock, ".")
		p := strings.Split(hms, ":")
		h, _ := strconv.ParseInt(p[0], 10, 64)
		m, _ := strconv.ParseInt(p[1], 10, 64)
		s, _ := strconv.ParseInt(p[2], 10, 64)
		ns, _ := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
		v := ((h*60+m)*60+s)*1e9 + ns
		if i == 0 {
			first = v
		}
		offs = append(offs, time.Duration(v-first))
		a, _ := strconv.Atoi(f[1])
		b, _ := strconv.Atoi(f[2])
		in, out = append(in, float64(a)), append(out, float64(b))
	}
	return offs, in, out
}

func TestReadAzureTraceExact(t *testing.T) {
	tr, err := ReadAzureTrace(open(t, azureTrace), azureTrace)
	if err != nil {
		t.Fatal(err)
	}
	offs, in, out := azureOffsets(t, azureTrace)
	if tr.Len() != 3000 || len(offs) != 3000 {
		t.Fatalf("%d requests (independent parse: %d), want 3000", tr.Len(), len(offs))
	}
	for i := range offs {
		if tr.Arrivals[i] != offs[i] || tr.Input[i] != in[i] || tr.Output[i] != out[i] {
			t.Fatalf("request %d: got (%v, %v, %v), want (%v, %v, %v)", i, tr.Arrivals[i], tr.Input[i], tr.Output[i], offs[i], in[i], out[i])
		}
	}
	// SOURCE.md: the first request is at 18:15:46.6805900 and the 3000th
	// at 18:26:15.3839880.
	if want := 10*time.Minute + 28*time.Second + 703398*time.Microsecond; tr.Arrivals[2999] != want {
		t.Errorf("last offset %v, want %v", tr.Arrivals[2999], want)
	}
	if tr.Lines[0] != 2 || tr.Lines[2999] != 3001 {
		t.Errorf("lines %d…%d, want 2…3001", tr.Lines[0], tr.Lines[2999])
	}
}

func TestReadMooncakeTraceExact(t *testing.T) {
	tr, err := ReadMooncakeTrace(open(t, mooncakeFile), mooncakeFile)
	if err != nil {
		t.Fatal(err)
	}
	f := open(t, mooncakeFile)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	i := 0
	for sc.Scan() {
		var rec struct {
			Timestamp int64 `json:"timestamp"`
			In        int   `json:"input_length"`
			Out       int   `json:"output_length"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if want := time.Duration(rec.Timestamp) * time.Millisecond; tr.Arrivals[i] != want || tr.Input[i] != float64(rec.In) || tr.Output[i] != float64(rec.Out) {
			t.Fatalf("request %d: got (%v, %v, %v), want (%v, %d, %d)", i, tr.Arrivals[i], tr.Input[i], tr.Output[i], want, rec.In, rec.Out)
		}
		i++
	}
	if i != 300 || tr.Len() != 300 {
		t.Errorf("%d requests, %d lines; want 300", tr.Len(), i)
	}
}

func TestTraceScaled(t *testing.T) {
	tr := &Trace{Arrivals: []time.Duration{0, 3, 1001 * time.Millisecond}, Input: []float64{1, 2, 3}, Output: []float64{4, 5, 6}, Lines: []int{1, 2, 3}}
	s, err := tr.Scaled(0.5)
	if err != nil {
		t.Fatal(err)
	}
	if s.Arrivals[1] != 2 || s.Arrivals[2] != 500500*time.Microsecond || tr.Arrivals[2] != 1001*time.Millisecond {
		t.Errorf("scaled %v (original %v)", s.Arrivals, tr.Arrivals)
	}
	for _, f := range []float64{0, -1, 1e300} {
		if _, err := tr.Scaled(f); err == nil {
			t.Errorf("scale %g accepted", f)
		}
	}
	if h := tr.Head(2); h.Len() != 2 || tr.Len() != 3 {
		t.Errorf("Head(2) has %d, original %d", h.Len(), tr.Len())
	}
}

func TestReadAzureTraceBad(t *testing.T) {
	const head = "TIMESTAMP,ContextTokens,GeneratedTokens\n"
	const row = "2023-11-16 18:15:46.6805900,374,44\n"
	for _, tc := range []badCase{
		{"empty", "", 1, "", "empty file"},
		{"header only", head, 2, "", "no rows"},
		{"missing column", "TIMESTAMP,ContextTokens\n", 1, "GeneratedTokens", "no such column"},
		{"bad timestamp", head + "yesterday,1,2\n", 2, "TIMESTAMP", "not a timestamp"},
		{"decreasing", head + row + "2023-11-16 18:15:45.0,1,2\n", 3, "TIMESTAMP", "earlier than the previous request's"},
		{"negative tokens", head + row + "2023-11-16 18:15:47,-1,2\n", 3, "ContextTokens", "negative"},
		{"fractional tokens", head + row + "2023-11-16 18:15:47,1,2.5\n", 3, "GeneratedTokens", "not a whole number"},
		{"non-numeric tokens", head + row + "2023-11-16 18:15:47,lots,2\n", 3, "ContextTokens", "not a number"},
		{"too far", head + row + "2199-11-16 18:15:47,1,2\n", 3, "TIMESTAMP", "100 years"},
	} {
		_, err := ReadAzureTrace(strings.NewReader(tc.in), "in")
		checkBad(t, tc, err)
	}
}

func TestReadMooncakeTraceBad(t *testing.T) {
	const row = `{"timestamp": 5, "input_length": 10, "output_length": 3}` + "\n"
	for _, tc := range []badCase{
		{"empty", "", 1, "", "empty file"},
		{"missing field", `{"timestamp": 0, "input_length": 1}`, 1, "output_length", "missing"},
		{"string timestamp", `{"timestamp": "0", "input_length": 1, "output_length": 1}`, 1, "timestamp", "not a number"},
		{"negative timestamp", `{"timestamp": -5, "input_length": 1, "output_length": 1}`, 1, "timestamp", "negative"},
		{"decreasing", row + `{"timestamp": 4, "input_length": 1, "output_length": 1}`, 2, "timestamp", "earlier"},
		{"fractional tokens", row + `{"timestamp": 6, "input_length": 1.5, "output_length": 1}`, 2, "input_length", "whole number"},
		{"not JSON", row + "timestamp=6\n", 2, "", "not a JSON object"},
	} {
		_, err := ReadMooncakeTrace(strings.NewReader(tc.in), "in")
		checkBad(t, tc, err)
	}
	if _, err := ReadTrace(strings.NewReader(row), "in", "burstgpt"); err == nil {
		t.Error("unknown format accepted")
	}
}
