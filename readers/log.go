package readers

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Request is one logged request. Times are in seconds; a measurement the
// log does not have is NaN.
type Request struct {
	// Line is the line of the file where the request's record starts.
	Line int
	// Status is the request's outcome; only OK requests are fitted.
	Status Status
	// Code is the raw status or error code of a request that is not OK
	// ("" when the log has none, and for OK requests).
	Code string
	// Latency is the whole-call (end-to-end) latency, s.
	Latency float64
	// TTFT is the time to first token, s.
	TTFT float64
	// InputTokens and OutputTokens are the request's token counts.
	InputTokens, OutputTokens float64
}

// Log is a latency log: its requests in file order. It is stored by
// column, so that a log of ten million requests of which only the latency
// is known takes about 13 bytes a request (a []Request would take 64):
// At returns one request, Add appends one.
type Log struct {
	// File is the file name given to the loader.
	File string
	// Format names the loader: "csv", "jsonl" or "llmperf".
	Format string

	line   []int32
	status []Status
	// codes holds the Code of the requests that have one, by index.
	codes map[int]string
	// lat holds every request's latency; ttft, in and out are nil until a
	// request has the measurement, then as long as lat (NaN where a
	// request lacks it).
	lat, ttft, in, out []float64
}

// Len returns the number of requests.
func (l *Log) Len() int { return len(l.status) }

// At returns request i, 0 ≤ i < Len.
func (l *Log) At(i int) Request {
	r := Request{Line: int(l.line[i]), Status: l.status[i], Code: l.codes[i], Latency: l.lat[i],
		TTFT: math.NaN(), InputTokens: math.NaN(), OutputTokens: math.NaN()}
	for _, c := range []struct {
		col []float64
		dst *float64
	}{{l.ttft, &r.TTFT}, {l.in, &r.InputTokens}, {l.out, &r.OutputTokens}} {
		if c.col != nil {
			*c.dst = c.col[i]
		}
	}
	return r
}

// Add appends r. The Code of an OK request is not kept.
func (l *Log) Add(r Request) {
	i := l.Len()
	line := int32(math.MaxInt32)
	if r.Line >= 0 && r.Line < math.MaxInt32 {
		line = int32(r.Line)
	}
	l.line = append(l.line, line)
	l.status = append(l.status, r.Status)
	if r.Code != "" && r.Status != OK {
		if l.codes == nil {
			l.codes = map[int]string{}
		}
		l.codes[i] = r.Code
	}
	l.lat = append(l.lat, r.Latency)
	for _, c := range []struct {
		col *[]float64
		v   float64
	}{{&l.ttft, r.TTFT}, {&l.in, r.InputTokens}, {&l.out, r.OutputTokens}} {
		if *c.col == nil && math.IsNaN(c.v) {
			continue
		}
		for len(*c.col) < i {
			*c.col = append(*c.col, math.NaN())
		}
		*c.col = append(*c.col, c.v)
	}
}

// Counts counts a log's requests by Status.
type Counts struct {
	Total, OK, Failed, RateLimited, Invalid int
	// Codes counts the raw codes of the requests that are not OK, by
	// status.
	Codes map[Status]map[string]int
}

// Counts returns the number of requests of each Status.
func (l *Log) Counts() Counts {
	c := Counts{Total: l.Len(), Codes: map[Status]map[string]int{}}
	for i, s := range l.status {
		switch s {
		case OK:
			c.OK++
			continue
		case Failed:
			c.Failed++
		case RateLimited:
			c.RateLimited++
		case Invalid:
			c.Invalid++
		}
		if c.Codes[s] == nil {
			c.Codes[s] = map[string]int{}
		}
		c.Codes[s][l.codes[i]]++
	}
	return c
}

// Successful returns the OK requests, in file order.
func (l *Log) Successful() []Request {
	var out []Request
	for i, s := range l.status {
		if s == OK {
			out = append(out, l.At(i))
		}
	}
	return out
}

// okValues returns col's values of the OK requests that are not NaN, in
// file order (none when col is nil).
func (l *Log) okValues(col []float64) []float64 {
	if col == nil {
		return nil
	}
	n := 0
	for i, s := range l.status {
		if s == OK && !math.IsNaN(col[i]) {
			n++
		}
	}
	out := make([]float64, 0, n)
	for i, s := range l.status {
		if s == OK && !math.IsNaN(col[i]) {
			out = append(out, col[i])
		}
	}
	return out
}

// Streamed reports whether the log's successful requests all carry a time
// to first token and an output token count, so that TTFT and decode speed
// can be fitted separately.
func (l *Log) Streamed() bool {
	any := false
	for i, s := range l.status {
		if s != OK {
			continue
		}
		any = true
		if l.ttft == nil || l.out == nil || math.IsNaN(l.ttft[i]) || math.IsNaN(l.out[i]) || math.IsNaN(l.lat[i]) {
			return false
		}
	}
	return any
}

// Latencies returns the whole-call latencies of the OK requests in seconds,
// in file order.
func (l *Log) Latencies() []float64 { return l.okValues(l.lat) }

// TTFTs returns the times to first token of the OK requests in seconds.
func (l *Log) TTFTs() []float64 { return l.okValues(l.ttft) }

// DecodeSpeeds returns the decode speeds of the OK requests in tokens per
// second, OutputTokens ÷ (Latency − TTFT): the speed at which a streamed
// call delivers its answer after the first token, as a hedgesim model's
// tokens_per_s means it. Requests without output tokens, or whose stream
// took no time after the first token, have no speed and are left out.
func (l *Log) DecodeSpeeds() []float64 {
	var out []float64
	if l.ttft == nil || l.out == nil {
		return out
	}
	for i, s := range l.status {
		d := l.lat[i] - l.ttft[i]
		if s == OK && l.out[i] > 0 && d > 0 {
			out = append(out, l.out[i]/d)
		}
	}
	return out
}

// OutputTokenCounts returns the output token counts of the OK requests.
func (l *Log) OutputTokenCounts() []float64 { return l.okValues(l.out) }

// InputTokenCounts returns the input token counts (prompt lengths) of the
// OK requests that have one.
func (l *Log) InputTokenCounts() []float64 { return l.okValues(l.in) }

// HasInputTokens reports whether every OK request carries an input token
// count, so that InputTokenCounts lines up with TTFTs and
// OutputTokenCounts of a streamed log, request by request.
func (l *Log) HasInputTokens() bool {
	any := false
	for i, s := range l.status {
		if s != OK {
			continue
		}
		any = true
		if l.in == nil || math.IsNaN(l.in[i]) {
			return false
		}
	}
	return any
}

// Columns says which columns (CSV) or fields (JSON Lines) of a log hold
// what. Latency is required; TTFT and OutputTokens together with Latency
// make a streamed log whose TTFT and decode speed are fitted separately.
type Columns struct {
	// Latency names the whole-call latency column.
	Latency string
	// TTFT names the time-to-first-token column ("" if none).
	TTFT string
	// OutputTokens names the output-token-count column ("" if none).
	OutputTokens string
	// InputTokens names the input-token-count (prompt length) column of a
	// streamed log ("" if none); with it, fit regresses the time to first
	// token on the prompt length (the prefill speed).
	InputTokens string
	// Status names a status or error column ("" if none). A row is OK when
	// its value is one of OK; other rows are counted by classify (429 and
	// rate-limit texts as rate-limited, "invalid"/"truncated" as invalid,
	// the rest as failed) and not fitted, and their other cells are not
	// checked: their latency is kept when it is a time > 0 written as the
	// successes write theirs, else NaN (see Log.FailedLatencies), but a
	// negative or non-finite number is an *InputError as on an OK row.
	Status string
	// Unit is the unit of the time columns. When 0, each time column's
	// unit comes from its name ("latency_ms", "ttft_s"); a cell may also
	// carry its own unit ("250ms").
	Unit Unit
	// OK lists the status values that mean success; empty means DefaultOK.
	// With OK empty, a Status column of booleans (and empty or null cells)
	// whose false rows are more than half of the rows is refused with an
	// *InputError asking which boolean means success: an error flag
	// ("is_error": false) would otherwise read backwards.
	OK []string
}

// check returns an error when c names no latency column or the same
// column twice.
func (c *Columns) check() error {
	if c.Latency == "" {
		return errors.New("no latency column named; say which column holds the latency")
	}
	seen := map[string]string{}
	for _, f := range []struct{ role, name string }{
		{"latency", c.Latency}, {"ttft", c.TTFT}, {"output tokens", c.OutputTokens}, {"status", c.Status},
		{"input tokens", c.InputTokens},
	} {
		if f.name == "" {
			continue
		}
		if r, dup := seen[f.name]; dup {
			return fmt.Errorf("column %q named for both %s and %s", f.name, r, f.role)
		}
		seen[f.name] = f.role
	}
	if (c.TTFT == "") != (c.OutputTokens == "") {
		return errors.New("a streamed log needs both a ttft and an output-tokens column (or neither)")
	}
	if c.InputTokens != "" && c.TTFT == "" {
		return errors.New("an input-tokens column is used with a streamed log only; name the ttft and output-tokens columns too")
	}
	return nil
}

func (c *Columns) okValues() []string {
	if len(c.OK) == 0 {
		return DefaultOK
	}
	return c.OK
}

// unitOf returns the unit of time column col.
func (c *Columns) unitOf(col string) Unit {
	if c.Unit != 0 {
		return c.Unit
	}
	return unitFromName(col)
}

// cellGetter returns the text of a named cell of the current row and the
// line it is on; ok is false when the row has no such cell.
type cellGetter func(col string) (text string, line int, ok bool, null bool)

// rowReader builds Requests from rows, remembering how each time column
// writes its values so that a column mixing forms is caught.
type rowReader struct {
	*Columns
	// forms holds, per time column, the unit its first value was written
	// with (0 for a plain number) and that value's line, from the
	// successful rows.
	forms map[string]unitForm
	// rows counts the rows read; failed holds the latency cells of the
	// failed rows that have one (failedLatency).
	rows   int
	failed []failedCell
	// bools counts the status values that are booleans (checkBoolStatus).
	bools boolCount
}

type unitForm struct {
	unit Unit
	line int
}

func newRowReader(c *Columns) *rowReader {
	return &rowReader{Columns: c, forms: map[string]unitForm{}}
}

// sameForm reports an error when the value of col on line is written with
// another unit (or none) than the column's first value: "500", "0.5s" and
// "500ms" in one column mean a log stitched from different sources.
func (rr *rowReader) sameForm(file string, line int, col, v string, form Unit) error {
	first, ok := rr.forms[col]
	if !ok {
		rr.forms[col] = unitForm{form, line}
		return nil
	}
	if first.unit == form {
		return nil
	}
	desc := func(u Unit) string {
		if u == 0 {
			return "as a plain number (in " + rr.unitOf(col).String() + ")"
		}
		return "with the unit " + u.String()
	}
	return inputErr(file, line, col, "%q is written %s, but the column's first value (line %d) is written %s; write every value of a column the same way",
		clip(strings.TrimSpace(v)), desc(form), first.line, desc(first.unit))
}

// row builds the Request of one row, reporting bad cells.
func (rr *rowReader) row(file string, line int, get cellGetter) (Request, error) {
	c := rr.Columns
	i := rr.rows
	rr.rows++
	r := Request{Line: line, Latency: math.NaN(), TTFT: math.NaN(), InputTokens: math.NaN(), OutputTokens: math.NaN()}
	if c.Status != "" {
		v, l, ok, null := get(c.Status)
		if !ok {
			return r, inputErr(file, l, c.Status, `missing; every row needs the status field (null or "" for a success)`)
		}
		if null {
			v = "null"
		}
		rr.bools.add(v)
		r.Code = strings.TrimSpace(v)
		r.Status = classify(v, c.okValues())
		if r.Status != OK {
			// Not fitted: its other cells need not be valid, and its
			// latency is kept only when it is one (failedLatency).
			var err error
			r.Latency, err = rr.failedLatency(file, i, get)
			return r, err
		}
	}
	timeCell := func(col string) (float64, error) {
		v, l, ok, null := get(col)
		switch {
		case !ok:
			return 0, inputErr(file, l, col, "missing")
		case null:
			return 0, inputErr(file, l, col, "null on a successful row; want a latency > 0 (mark failed rows in a status column)")
		}
		x, form, err := parseTime(v, c.unitOf(col))
		if err != nil {
			return 0, inputErr(file, l, col, "%v", err)
		}
		if err := rr.sameForm(file, l, col, v, form); err != nil {
			return 0, err
		}
		if x < 0 {
			return 0, inputErr(file, l, col, "%s is negative; a latency must be > 0", strings.TrimSpace(v))
		}
		if x == 0 {
			return 0, inputErr(file, l, col, "%s is zero; a latency must be > 0 (mark failed rows in a status column)", strings.TrimSpace(v))
		}
		return x, nil
	}
	var err error
	if r.Latency, err = timeCell(c.Latency); err != nil {
		return r, err
	}
	if c.TTFT == "" {
		return r, nil
	}
	if r.TTFT, err = timeCell(c.TTFT); err != nil {
		return r, err
	}
	if r.TTFT > r.Latency {
		_, l, _, _ := get(c.TTFT)
		return r, inputErr(file, l, c.TTFT, "time to first token %g s exceeds the latency %g s (%s)", r.TTFT, r.Latency, c.Latency)
	}
	v, l, ok, null := get(c.OutputTokens)
	if !ok || null {
		return r, inputErr(file, l, c.OutputTokens, "missing; want an output token count ≥ 0")
	}
	if r.OutputTokens, err = parseCount(v); err != nil {
		return r, inputErr(file, l, c.OutputTokens, "%v", err)
	}
	if c.InputTokens == "" {
		return r, nil
	}
	v, l, ok, null = get(c.InputTokens)
	if !ok || null {
		return r, inputErr(file, l, c.InputTokens, "missing; want an input token count ≥ 0")
	}
	if r.InputTokens, err = parseCount(v); err != nil {
		return r, inputErr(file, l, c.InputTokens, "%v", err)
	}
	return r, nil
}

// parseCount parses a token count: a whole number ≥ 0.
func parseCount(s string) (float64, error) {
	v, err := parseNumber(s)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, fmt.Errorf("%s is negative; want a token count ≥ 0", strings.TrimSpace(s))
	}
	if v != math.Trunc(v) {
		return 0, fmt.Errorf("%s is not a whole number of tokens", strings.TrimSpace(s))
	}
	if v > 1e12 {
		return 0, fmt.Errorf("%s is too large for a token count", strings.TrimSpace(s))
	}
	return v, nil
}

// ReadCSV reads a latency log in CSV: a header line naming the columns,
// then one row per request; the columns named in c are used, others
// ignored. Fields are separated by commas, or by semicolons or tabs when
// the header line has no comma (see csvSeparator). Quoted fields and CRLF
// line ends are accepted. Problems are
// reported as *InputError with the line: an empty file, a missing column
// or one the header names twice,
// a row with the wrong number of fields, a value that is not a number, a
// negative or zero latency, an unknown unit. An error in c itself is a
// plain error.
func ReadCSV(r io.Reader, file string, c Columns) (*Log, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	sep, r := csvSeparator(r)
	cr := csv.NewReader(limitLines(r, file))
	cr.Comma = sep
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, inputErr(file, 1, "", "empty file; want a header line naming the columns, then one row per request")
	}
	if err != nil {
		return nil, csvError(file, err)
	}
	header = append([]string(nil), header...)
	header[0] = strings.TrimPrefix(header[0], "\ufeff")
	index := map[string]int{}
	for i, h := range header {
		if !utf8.ValidString(h) {
			return nil, inputErr(file, 1, "", "column %d's name is not valid UTF-8", i+1)
		}
		if _, dup := index[h]; !dup {
			index[h] = i
		}
	}
	for _, col := range []string{c.Latency, c.TTFT, c.OutputTokens, c.Status, c.InputTokens} {
		if at := dupColumns(header, col); len(at) > 1 {
			return nil, inputErr(file, 1, col, "the header names this column %d times (columns %s); which to read is unclear: rename or drop all but one", len(at), strings.Join(at, " and "))
		}
		if _, ok := index[col]; col != "" && !ok {
			read := ""
			if sep != ',' {
				read = " (read as " + separatorName(sep) + "-separated: the header line has no comma)"
			}
			return nil, inputErr(file, 1, col, "no such column; the header has%s: %s", read, quoteList(header))
		}
	}
	log := &Log{File: file, Format: "csv"}
	rows := newRowReader(&c)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(file, err)
		}
		line, _ := cr.FieldPos(0)
		get := func(col string) (string, int, bool, bool) {
			i := index[col]
			l, _ := cr.FieldPos(i)
			return rec[i], l, true, false
		}
		req, err := rows.row(file, line, get)
		if err != nil {
			return nil, err
		}
		log.Add(req)
	}
	rows.finish(log)
	if err := rows.checkBoolStatus(file, rows.bools, rows.rows); err != nil {
		return nil, err
	}
	if log.Len() == 0 {
		return nil, inputErr(file, 2, "", "no rows after the header; want one row per request")
	}
	return log, nil
}

// csvError converts an encoding/csv error into an *InputError.
func csvError(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		msg := pe.Err.Error()
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			msg = "wrong number of fields; every row needs as many fields as the header"
		}
		return inputErr(file, pe.Line, "", "%s", msg)
	}
	return err
}

// quoteList quotes xs for a message, comma-separated: each item clipped,
// and the list cut after about maxQuote bytes with the number left out.
func quoteList(xs []string) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 && b.Len() > maxQuote {
			fmt.Fprintf(&b, ", … (%d more)", len(xs)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", clip(x))
	}
	return b.String()
}

// maxLine is the longest line the JSON Lines readers accept.
const maxLine = 16 << 20

// ReadJSONL reads a latency log in JSON Lines: one JSON object per line
// (blank lines are skipped), the fields named in c holding numbers, or
// strings with a unit such as "250ms". Problems are reported as
// *InputError with the line, as for ReadCSV; a line that is not one JSON
// object is an error too.
func ReadJSONL(r io.Reader, file string, c Columns) (*Log, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	log := &Log{File: file, Format: "jsonl"}
	rows := newRowReader(&c)
	err := eachJSONLine(r, file, func(line int, obj map[string]any) error {
		get := func(col string) (string, int, bool, bool) {
			v, ok := obj[col]
			if !ok {
				return "", line, false, false
			}
			s, null := jsonText(v)
			return s, line, true, null
		}
		req, err := rows.row(file, line, get)
		if err != nil {
			return err
		}
		log.Add(req)
		return nil
	})
	if err != nil {
		return nil, err
	}
	rows.finish(log)
	if err := rows.checkBoolStatus(file, rows.bools, rows.rows); err != nil {
		return nil, err
	}
	if log.Len() == 0 {
		return nil, inputErr(file, 1, "", "empty file; want one JSON object per line, one line per request")
	}
	return log, nil
}

// eachJSONLine calls fn with every non-blank line of r decoded as a JSON
// object (members as jsonValue gives them), with its 1-based line number.
func eachJSONLine(r io.Reader, file string, fn func(line int, obj map[string]any) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\ufeff"))
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var raw map[string]json.RawMessage
		if err := dec.Decode(&raw); err != nil || raw == nil {
			return inputErr(file, line, "", "not a JSON object: %s", jsonMsg(err, b))
		}
		obj := make(map[string]any, len(raw))
		for k, v := range raw {
			obj[k] = jsonValue(v)
		}
		if dec.More() {
			return inputErr(file, line, "", "more than one JSON value on the line; want one object per line")
		}
		if err := fn(line, obj); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return inputErr(file, line+1, "", "line longer than %d MiB", maxLine>>20)
		}
		return err
	}
	return nil
}

// jsonMsg describes why b is not a JSON object.
func jsonMsg(err error, b []byte) string {
	if err == nil {
		return "got null"
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "got a JSON " + te.Value
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v (at byte %d)", se, se.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of line"
	}
	return fmt.Sprintf("%v in %q", err, clip(string(b)))
}

// jsonCompound stands for a JSON array or object member, which no reader
// uses: "array" or "object". Arrays and objects are skipped rather than
// decoded, so that a member of millions of elements costs its bytes, not
// tens of bytes per element and seconds per million.
type jsonCompound string

// jsonValue decodes one JSON value: null as nil, a number as json.Number,
// a string, a bool, or the jsonCompound of an array or object.
func jsonValue(raw json.RawMessage) any {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return nil
	}
	switch b[0] {
	case '[':
		return jsonCompound("array")
	case '{':
		return jsonCompound("object")
	case 'n':
		return nil
	case 't':
		return true
	case 'f':
		return false
	case '"':
		var s string
		json.Unmarshal(b, &s) // valid: the decoder checked the document
		return s
	}
	return json.Number(b)
}

// jsonText returns a decoded JSON scalar as text for the cell parsers, and
// whether it was null.
func jsonText(v any) (string, bool) {
	switch v := v.(type) {
	case nil:
		return "", true
	case json.Number:
		return v.String(), false
	case string:
		return v, false
	case bool:
		if v {
			return "true", false
		}
		return "false", false
	}
	return fmt.Sprintf("<%s>", jsonKind(v)), false
}

func jsonKind(v any) string {
	switch v := v.(type) {
	case jsonCompound:
		return string(v)
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}

// dupColumns returns the 1-based positions of the columns of header named
// col (none for an empty col).
func dupColumns(header []string, col string) []string {
	var at []string
	for i, h := range header {
		if col != "" && h == col {
			at = append(at, strconv.Itoa(i+1))
		}
	}
	return at
}
