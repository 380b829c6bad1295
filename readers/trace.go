package readers

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// Trace is recorded traffic: when each request arrived and how many tokens
// it sent and received. It is what a scenario replays.
type Trace struct {
	// File is the file name given to the loader; Format its format.
	File, Format string
	// Arrivals are the arrival times as offsets from the first request's
	// (so Arrivals[0] == 0), non-decreasing, at the trace's own resolution
	// (100 ns for Azure, 1 ms for Mooncake): exact, not rounded further.
	Arrivals []time.Duration
	// Input and Output are the input (prompt/context) and output
	// (generated) token counts, whole numbers ≥ 0.
	Input, Output []float64
	// Lines are the lines the requests are on, for messages.
	Lines []int
}

// Len returns the number of requests.
func (t *Trace) Len() int { return len(t.Arrivals) }

// TraceFormats are the formats ReadTrace reads.
var TraceFormats = []string{"azure", "mooncake"}

// ReadTrace reads a trace in the named format (one of TraceFormats): see
// ReadAzureTrace and ReadMooncakeTrace. An unknown format is a plain error.
func ReadTrace(r io.Reader, file, format string) (*Trace, error) {
	switch format {
	case "azure":
		return ReadAzureTrace(r, file)
	case "mooncake":
		return ReadMooncakeTrace(r, file)
	}
	return nil, fmt.Errorf("unknown trace format %q; want %s", format, strings.Join(quoted(TraceFormats), " or "))
}

func quoted(xs []string) []string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return q
}

// The columns of the Azure LLM inference trace 2023 (AzurePublicDataset,
// data/AzureLLMInferenceTrace_{code,conv}.csv).
const (
	azureTime   = "TIMESTAMP"
	azureInput  = "ContextTokens"
	azureOutput = "GeneratedTokens"
	// azureLayout reads "2023-11-16 18:15:46.6805900" (any number of
	// fractional digits, or none); no time zone is given, so all times are
	// read as UTC, which leaves their differences exact.
	azureLayout = "2006-01-02 15:04:05.999999999"
)

// maxOffset bounds arrival offsets, so that they and their scaled values
// stay far from time.Duration's overflow (about 292 years).
const maxOffset = 100 * 365 * 24 * time.Hour

// ReadAzureTrace reads the Azure LLM inference trace (CSV with a header
// naming TIMESTAMP, ContextTokens and GeneratedTokens; other columns are
// ignored; CRLF line ends accepted). TIMESTAMP is "YYYY-MM-DD hh:mm:ss.fffffff";
// arrivals are the offsets from the first row's timestamp, exact to the
// nanosecond, and the rows must be in arrival order. Problems are reported
// as *InputError with the line: an empty file, a missing column, a bad or
// decreasing timestamp, a token count that is not a whole number ≥ 0.
func ReadAzureTrace(r io.Reader, file string) (*Trace, error) {
	cr := csv.NewReader(limitLines(r, file))
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, inputErr(file, 1, "", "empty file; want the header %s,%s,%s and one row per request", azureTime, azureInput, azureOutput)
	}
	if err != nil {
		return nil, csvError(file, err)
	}
	header = append([]string(nil), header...)
	header[0] = strings.TrimPrefix(header[0], "\ufeff")
	idx := map[string]int{}
	for i, h := range header {
		if _, dup := idx[h]; !dup {
			idx[h] = i
		}
	}
	for _, col := range []string{azureTime, azureInput, azureOutput} {
		if _, ok := idx[col]; !ok {
			return nil, inputErr(file, 1, col, "no such column; the header has: %s (an Azure LLM inference trace has %s, %s, %s)",
				quoteList(header), azureTime, azureInput, azureOutput)
		}
	}
	t := &Trace{File: file, Format: "azure"}
	var first, prev time.Time
	prevLine := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(file, err)
		}
		cell := func(col string) (string, int) {
			l, _ := cr.FieldPos(idx[col])
			return rec[idx[col]], l
		}
		s, line := cell(azureTime)
		at, err := time.Parse(azureLayout, strings.TrimSpace(s))
		if err != nil {
			return nil, inputErr(file, line, azureTime, "%q is not a timestamp like \"2023-11-16 18:15:46.6805900\"", clip(s))
		}
		if t.Len() == 0 {
			first = at
		} else if at.Before(prev) {
			return nil, inputErr(file, line, azureTime, "%s is earlier than the previous request's %s (line %d); the trace must be in arrival order",
				strings.TrimSpace(s), prev.Format(azureLayout), prevLine)
		}
		off := at.Sub(first)
		if off > maxOffset {
			return nil, inputErr(file, line, azureTime, "%s is more than 100 years after the first request", strings.TrimSpace(s))
		}
		prev, prevLine = at, line
		in, err := countCell(file, cell, azureInput)
		if err != nil {
			return nil, err
		}
		out, err := countCell(file, cell, azureOutput)
		if err != nil {
			return nil, err
		}
		t.Arrivals = append(t.Arrivals, off)
		t.Input = append(t.Input, in)
		t.Output = append(t.Output, out)
		t.Lines = append(t.Lines, line)
	}
	if t.Len() == 0 {
		return nil, inputErr(file, 2, "", "no rows after the header; want one row per request")
	}
	return t, nil
}

func countCell(file string, cell func(string) (string, int), col string) (float64, error) {
	s, line := cell(col)
	v, err := parseCount(s)
	if err != nil {
		return 0, inputErr(file, line, col, "%v", err)
	}
	return v, nil
}

// The fields of the Mooncake FAST'25 traces (kvcache-ai/Mooncake,
// FAST25-release/traces/*.jsonl).
const (
	mooncakeTime   = "timestamp"
	mooncakeInput  = "input_length"
	mooncakeOutput = "output_length"
)

// ReadMooncakeTrace reads a Mooncake trace: JSON Lines, one object per
// request with timestamp (arrival in milliseconds from the start of the
// trace), input_length and output_length (tokens); other fields (hash_ids)
// are ignored. Arrivals are the offsets from the first request's
// timestamp, exact for whole milliseconds (fractions are rounded to the
// nanosecond); timestamps must not decrease. Problems are reported as
// *InputError with the line.
func ReadMooncakeTrace(r io.Reader, file string) (*Trace, error) {
	t := &Trace{File: file, Format: "mooncake"}
	var first, prev float64
	prevLine := 0
	err := eachJSONLine(r, file, func(line int, obj map[string]any) error {
		num := func(key string) (string, error) {
			v, ok := obj[key]
			if !ok {
				return "", inputErr(file, line, key, "missing")
			}
			n, ok := v.(json.Number)
			if !ok {
				s, null := jsonText(v)
				if null {
					s = "null"
				}
				return "", inputErr(file, line, key, "%s is not a number", s)
			}
			return n.String(), nil
		}
		s, err := num(mooncakeTime)
		if err != nil {
			return err
		}
		ms, err := parseNumber(s)
		if err != nil {
			return inputErr(file, line, mooncakeTime, "%v", err)
		}
		switch {
		case ms < 0:
			return inputErr(file, line, mooncakeTime, "%s is negative; want milliseconds ≥ 0 from the start of the trace", s)
		case t.Len() > 0 && ms < prev:
			return inputErr(file, line, mooncakeTime, "%s is earlier than the previous request's %g (line %d); the trace must be in arrival order", s, prev, prevLine)
		}
		if t.Len() == 0 {
			first = ms
		}
		offMs := ms - first
		if offMs*1e6 > float64(maxOffset) {
			return inputErr(file, line, mooncakeTime, "%s ms is more than 100 years after the first request", s)
		}
		prev, prevLine = ms, line
		var counts [2]float64
		for i, key := range []string{mooncakeInput, mooncakeOutput} {
			s, err := num(key)
			if err != nil {
				return err
			}
			if counts[i], err = parseCount(s); err != nil {
				return inputErr(file, line, key, "%v", err)
			}
		}
		t.Arrivals = append(t.Arrivals, msDuration(offMs))
		t.Input = append(t.Input, counts[0])
		t.Output = append(t.Output, counts[1])
		t.Lines = append(t.Lines, line)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if t.Len() == 0 {
		return nil, inputErr(file, 1, "", "empty file; want one JSON object per line with %s, %s, %s", mooncakeTime, mooncakeInput, mooncakeOutput)
	}
	return t, nil
}

// msDuration converts milliseconds to a Duration: exactly for whole
// milliseconds, rounded to the nanosecond otherwise.
func msDuration(ms float64) time.Duration {
	if w := math.Trunc(ms); w == ms && w <= float64(math.MaxInt64/int64(time.Millisecond)) {
		return time.Duration(w) * time.Millisecond
	}
	return time.Duration(math.Round(ms * 1e6))
}

// Scaled returns a copy of t whose arrival offsets are multiplied by
// factor (> 0 and finite; 0.5 replays the traffic twice as fast), rounded
// to the nanosecond. Factor 1 returns the offsets unchanged.
func (t *Trace) Scaled(factor float64) (*Trace, error) {
	if !(factor > 0) || math.IsInf(factor, 0) {
		return nil, fmt.Errorf("time scale %g: must be finite and > 0", factor)
	}
	c := *t
	c.Arrivals = append([]time.Duration(nil), t.Arrivals...)
	if factor == 1 {
		return &c, nil
	}
	for i, a := range c.Arrivals {
		v := math.Round(float64(a) * factor)
		if v > float64(maxOffset) {
			return nil, errors.New("time scale makes the trace longer than 100 years")
		}
		c.Arrivals[i] = time.Duration(v)
	}
	return &c, nil
}

// Head returns the first n requests of t (all of them when n ≥ Len).
func (t *Trace) Head(n int) *Trace {
	if n >= t.Len() {
		return t
	}
	c := *t
	c.Arrivals, c.Input, c.Output, c.Lines = t.Arrivals[:n:n], t.Input[:n:n], t.Output[:n:n], t.Lines[:n:n]
	return &c
}
