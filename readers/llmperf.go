package readers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// maxJSON is the largest JSON document the llmperf readers accept.
const maxJSON = 256 << 20

// jsonDoc walks one JSON document token by token, keeping the line of
// every value for messages.
type jsonDoc struct {
	file string
	data []byte
	dec  *json.Decoder
	nl   []int // offsets of '\n'
}

func newJSONDoc(r io.Reader, file string) (*jsonDoc, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxJSON+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxJSON {
		return nil, inputErr(file, 1, "", "file larger than %d MiB", maxJSON>>20)
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, inputErr(file, 1, "", "empty file")
	}
	d := &jsonDoc{file: file, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	d.dec.UseNumber()
	for i, c := range data {
		if c == '\n' {
			d.nl = append(d.nl, i)
		}
	}
	return d, nil
}

// lineAt returns the 1-based line of byte offset off.
func (d *jsonDoc) lineAt(off int64) int {
	return 1 + sort.SearchInts(d.nl, int(off))
}

// next returns the line of the next token: the first byte after the last
// one read that is not white space or a separator.
func (d *jsonDoc) next() int {
	off := d.dec.InputOffset()
	for off < int64(len(d.data)) && strings.IndexByte(" \t\r\n,:", d.data[off]) >= 0 {
		off++
	}
	return d.lineAt(off)
}

// syntax converts a decoding error into an *InputError.
func (d *jsonDoc) syntax(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return inputErr(d.file, d.lineAt(se.Offset-1), "", "invalid JSON: %v", se)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return inputErr(d.file, d.lineAt(int64(len(d.data))), "", "unexpected end of file; the JSON is cut short")
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return inputErr(d.file, d.lineAt(te.Offset), "", "invalid JSON value: %v", err)
	}
	return inputErr(d.file, d.next(), "", "invalid JSON: %v", err)
}

// delim reads the next token, which must be the delimiter want; what names
// the expected value in the message.
func (d *jsonDoc) delim(want json.Delim, what string) error {
	line := d.next()
	tok, err := d.dec.Token()
	if err != nil {
		return d.syntax(err)
	}
	if got, ok := tok.(json.Delim); !ok || got != want {
		return inputErr(d.file, line, "", "want %s, got %s", what, tokenKind(tok))
	}
	return nil
}

func tokenKind(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			return "an object"
		case '[':
			return "an array"
		}
		return fmt.Sprintf("%q", string(t))
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", tok)
}

// jsonField is one member of a JSON object with the line of its key.
type jsonField struct {
	line  int
	value any // as jsonValue gives it
}

// object reads one JSON object (the next value) and returns its members
// by key, rejecting a repeated key. line is where the object starts.
func (d *jsonDoc) object(what string) (fields map[string]jsonField, line int, err error) {
	line = d.next()
	if err := d.delim('{', what); err != nil {
		return nil, line, err
	}
	fields = map[string]jsonField{}
	for d.dec.More() {
		kline := d.next()
		tok, err := d.dec.Token()
		if err != nil {
			return nil, line, d.syntax(err)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, line, inputErr(d.file, kline, "", "want a field name, got %s", tokenKind(tok))
		}
		var raw json.RawMessage
		if err := d.dec.Decode(&raw); err != nil {
			return nil, line, d.syntax(err)
		}
		v := jsonValue(raw)
		if prev, dup := fields[key]; dup {
			return nil, line, inputErr(d.file, kline, key, "repeated; already given on line %d", prev.line)
		}
		fields[key] = jsonField{line: kline, value: v}
	}
	if _, err := d.dec.Token(); err != nil { // the closing '}'
		return nil, line, d.syntax(err)
	}
	return fields, line, nil
}

// end checks that nothing but white space follows the document.
func (d *jsonDoc) end() error {
	line := d.next()
	if _, err := d.dec.Token(); err != io.EOF {
		return inputErr(d.file, line, "", "unexpected data after the JSON document")
	}
	return nil
}

// number returns a numeric field (a JSON number, or a string holding
// one), or an *InputError saying why not.
func (d *jsonDoc) number(fields map[string]jsonField, key string, line int) (float64, error) {
	f, ok := fields[key]
	if !ok {
		return 0, inputErr(d.file, line, key, "missing")
	}
	var text string
	switch v := f.value.(type) {
	case json.Number:
		text = v.String()
	case string: // llmperf writes some numbers as strings ("550")
		text = v
	default:
		s, _ := jsonText(f.value)
		if f.value == nil {
			s = "null"
		}
		return 0, inputErr(d.file, f.line, key, "%s is not a number", s)
	}
	v, err := parseNumber(text)
	if err != nil {
		return 0, inputErr(d.file, f.line, key, "%v", err)
	}
	return v, nil
}

// The fields of an llmperf per-request record (LLMPerf token_benchmark_ray.py,
// December 2023).
const (
	llmperfCode   = "error_code"
	llmperfTTFT   = "ttft_s"
	llmperfE2E    = "end_to_end_latency_s"
	llmperfOutput = "number_output_tokens"
	llmperfInput  = "number_input_tokens"
)

// ReadLLMPerf reads an llmperf per-request file (raw_data/individual/*.json
// of ray-project/llmperf-leaderboard): a JSON array with one object per
// request carrying error_code (null when OK), ttft_s and
// end_to_end_latency_s in seconds, number_output_tokens and, optionally,
// number_input_tokens; other fields are ignored. error_code 429 is
// RateLimited, -100 ("Output too few tokens") Invalid, any other code
// Failed; only rows with a null code are checked and fitted. The
// end_to_end_latency_s of a row with a code is kept when it is a number
// > 0 (llmperf writes 0 for a request that failed without one), else NaN. The result is
// a streamed Log (TTFT, Latency and OutputTokens set). Problems are
// reported as *InputError with the line.
func ReadLLMPerf(r io.Reader, file string) (*Log, error) {
	d, err := newJSONDoc(r, file)
	if err != nil {
		return nil, err
	}
	if err := d.delim('[', "a JSON array of request objects (an llmperf individual_responses file)"); err != nil {
		return nil, err
	}
	log := &Log{File: file, Format: "llmperf"}
	for d.dec.More() {
		fields, line, err := d.object("a request object")
		if err != nil {
			return nil, err
		}
		req, err := d.llmperfRequest(fields, line)
		if err != nil {
			return nil, err
		}
		log.Add(req)
	}
	if _, err := d.dec.Token(); err != nil { // the closing ']'
		return nil, d.syntax(err)
	}
	if err := d.end(); err != nil {
		return nil, err
	}
	if log.Len() == 0 {
		return nil, inputErr(file, 1, "", "no requests; the array is empty")
	}
	return log, nil
}

// failedLatency returns the end_to_end_latency_s of a request with an
// error code when it is a finite number > 0, else NaN; it is never an
// error, as such a row's other fields are not checked.
func (d *jsonDoc) failedLatency(fields map[string]jsonField) float64 {
	v, err := d.number(fields, llmperfE2E, 0)
	if err != nil || !(v > 0) {
		return math.NaN()
	}
	return v
}

func (d *jsonDoc) llmperfRequest(fields map[string]jsonField, line int) (Request, error) {
	req := Request{Line: line, Latency: math.NaN(), TTFT: math.NaN(), InputTokens: math.NaN(), OutputTokens: math.NaN()}
	code, ok := fields[llmperfCode]
	if !ok {
		return req, inputErr(d.file, line, llmperfCode, "missing; want null for a successful request or an error code")
	}
	switch v := code.value.(type) {
	case nil:
	case json.Number:
		c, err := parseNumber(v.String())
		if err != nil {
			return req, inputErr(d.file, code.line, llmperfCode, "%v", err)
		}
		req.Code = strconv.FormatFloat(c, 'g', -1, 64)
		switch c {
		case 429:
			req.Status = RateLimited
		case -100:
			req.Status = Invalid
		default:
			req.Status = Failed
		}
		req.Latency = d.failedLatency(fields)
		return req, nil
	case string:
		req.Code = v
		req.Status = classify(v, nil)
		req.Latency = d.failedLatency(fields)
		return req, nil
	default:
		s, _ := jsonText(v)
		return req, inputErr(d.file, code.line, llmperfCode, "%s is not an error code; want null or a number", s)
	}
	var err error
	latency := func(key string) (float64, error) {
		v, err := d.number(fields, key, line)
		if err != nil {
			return 0, err
		}
		if v < 0 {
			return 0, inputErr(d.file, fields[key].line, key, "%g is negative; a latency must be > 0", v)
		}
		if v == 0 {
			return 0, inputErr(d.file, fields[key].line, key, "0 on a successful request (error_code null); a latency must be > 0")
		}
		return v, nil
	}
	if req.TTFT, err = latency(llmperfTTFT); err != nil {
		return req, err
	}
	if req.Latency, err = latency(llmperfE2E); err != nil {
		return req, err
	}
	if req.TTFT > req.Latency {
		return req, inputErr(d.file, fields[llmperfTTFT].line, llmperfTTFT,
			"%g s exceeds %s %g s; the first token cannot come after the end", req.TTFT, llmperfE2E, req.Latency)
	}
	count := func(key string) (float64, error) {
		v, err := d.number(fields, key, line)
		if err != nil {
			return 0, err
		}
		c, err := parseCount(strconv.FormatFloat(v, 'g', -1, 64))
		if err != nil {
			return 0, inputErr(d.file, fields[key].line, key, "%v", err)
		}
		return c, nil
	}
	if req.OutputTokens, err = count(llmperfOutput); err != nil {
		return req, err
	}
	if _, ok := fields[llmperfInput]; ok {
		if req.InputTokens, err = count(llmperfInput); err != nil {
			return req, err
		}
	}
	return req, nil
}

// Summary is an llmperf run summary (raw_data/summary/*.json): the
// published percentiles of each metric, and the run's counts.
type Summary struct {
	// File is the file name given to the loader.
	File string
	// Model and Framework (the provider) as the summary names them.
	Model, Framework string
	// Completed is results_num_completed_requests; Errors
	// results_number_errors; ErrorCodes results_error_code_frequency as
	// written ("{429.0: 130}").
	Completed, Errors int
	ErrorCodes        string
	// MeanInputTokens and MeanOutputTokens are the requested token counts.
	MeanInputTokens, MeanOutputTokens float64
	// Metrics are the metrics with published percentiles, by name
	// ("ttft_s", "end_to_end_latency_s", …), in name order.
	Metrics []SummaryMetric
}

// SummaryMetric is one metric's published percentiles and moments, in the
// metric's unit (seconds for *_s).
type SummaryMetric struct {
	Name string
	// Ps are the probabilities (0.25 for p25), increasing; Xs the values.
	Ps, Xs []float64
	// Mean, Min, Max and StdDev as published (NaN when absent).
	Mean, Min, Max, StdDev float64
	// Line is the line of the metric's first percentile.
	Line int
}

// Metric returns the metric called name, or nil.
func (s *Summary) Metric(name string) *SummaryMetric {
	for i := range s.Metrics {
		if s.Metrics[i].Name == name {
			return &s.Metrics[i]
		}
	}
	return nil
}

// summaryQuantile matches "results_<metric>_quantiles_p<NN>".
var summaryQuantile = regexp.MustCompile(`^results_(.+)_quantiles_p([0-9]+(?:\.[0-9]+)?)$`)

// ReadLLMPerfSummary reads an llmperf run summary: one JSON object with
// fields results_<metric>_quantiles_p<NN> (NN in (0, 100)), and optionally
// results_<metric>_mean/_min/_max/_stddev and the run's counts. Every
// metric with at least two percentiles is returned; their values must be
// finite, ≥ 0 and non-decreasing in the percentile. Problems are reported
// as *InputError with the line.
func ReadLLMPerfSummary(r io.Reader, file string) (*Summary, error) {
	d, err := newJSONDoc(r, file)
	if err != nil {
		return nil, err
	}
	fields, _, err := d.object("a JSON object (an llmperf summary file)")
	if err != nil {
		return nil, err
	}
	if err := d.end(); err != nil {
		return nil, err
	}
	s := &Summary{File: file, MeanInputTokens: math.NaN(), MeanOutputTokens: math.NaN()}
	text := func(key string) string {
		if f, ok := fields[key]; ok {
			if v, ok := f.value.(string); ok {
				return v
			}
		}
		return ""
	}
	s.Model, s.Framework, s.ErrorCodes = text("model"), text("framework"), text("results_error_code_frequency")
	optNumber := func(key string) (float64, error) {
		if _, ok := fields[key]; !ok {
			return math.NaN(), nil
		}
		return d.number(fields, key, 0)
	}
	optCount := func(key string, dst *int) error {
		v, err := optNumber(key)
		if err != nil || math.IsNaN(v) {
			return err
		}
		if v < 0 || v != math.Trunc(v) || v > 1e12 {
			return inputErr(file, fields[key].line, key, "%g is not a count; want a whole number ≥ 0", v)
		}
		*dst = int(v)
		return nil
	}
	if err := optCount("results_num_completed_requests", &s.Completed); err != nil {
		return nil, err
	}
	if err := optCount("results_number_errors", &s.Errors); err != nil {
		return nil, err
	}
	if s.MeanInputTokens, err = optNumber("mean_input_tokens"); err != nil {
		return nil, err
	}
	if s.MeanOutputTokens, err = optNumber("mean_output_tokens"); err != nil {
		return nil, err
	}
	type point struct {
		p, x float64
		key  string
		line int
	}
	byMetric := map[string][]point{}
	keys := make([]string, 0, len(fields))
	for key := range fields {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool { // report the first problem in the file
		if li, lj := fields[keys[i]].line, fields[keys[j]].line; li != lj {
			return li < lj
		}
		return keys[i] < keys[j]
	})
	for _, key := range keys {
		f := fields[key]
		m := summaryQuantile.FindStringSubmatch(key)
		if m == nil {
			continue
		}
		pct, err := strconv.ParseFloat(m[2], 64)
		if err != nil || !(pct > 0 && pct < 100) {
			return nil, inputErr(file, f.line, key, "percentile %s is not in (0, 100)", m[2])
		}
		x, err := d.number(fields, key, f.line)
		if err != nil {
			return nil, err
		}
		if x < 0 {
			return nil, inputErr(file, f.line, key, "%g is negative", x)
		}
		byMetric[m[1]] = append(byMetric[m[1]], point{pct / 100, x, key, f.line})
	}
	names := make([]string, 0, len(byMetric))
	for name := range byMetric {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		pts := byMetric[name]
		sort.Slice(pts, func(i, j int) bool { return pts[i].p < pts[j].p })
		sm := SummaryMetric{Name: name, Line: pts[0].line}
		for i, pt := range pts {
			if i > 0 && pt.x < pts[i-1].x {
				return nil, inputErr(file, pt.line, pt.key, "%g is below %s (%g); percentiles must not decrease", pt.x, pts[i-1].key, pts[i-1].x)
			}
			if i > 0 && pt.p == pts[i-1].p {
				return nil, inputErr(file, pt.line, pt.key, "the same percentile as %s", pts[i-1].key)
			}
			sm.Ps = append(sm.Ps, pt.p)
			sm.Xs = append(sm.Xs, pt.x)
		}
		if len(pts) < 2 {
			continue
		}
		for _, mom := range []struct {
			suffix string
			dst    *float64
		}{{"mean", &sm.Mean}, {"min", &sm.Min}, {"max", &sm.Max}, {"stddev", &sm.StdDev}} {
			if *mom.dst, err = optNumber("results_" + name + "_" + mom.suffix); err != nil {
				return nil, err
			}
		}
		if err := checkMoments(file, fields, name, sm); err != nil {
			return nil, err
		}
		s.Metrics = append(s.Metrics, sm)
	}
	if len(s.Metrics) == 0 {
		return nil, inputErr(file, 1, "", "no results_<metric>_quantiles_p<NN> fields; not an llmperf summary file")
	}
	return s, nil
}
