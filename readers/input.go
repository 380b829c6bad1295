package readers

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// InputError is a problem in an input file. Every loader in this package
// reports bad input as an *InputError, never by panicking:
//
//	latency.csv:17: latency_ms: "12,5" is not a number
//	together_13b.json:42: ttft_s: -0.3 is negative; a latency must be > 0
type InputError struct {
	// File is the file name given to the loader.
	File string
	// Line is the 1-based line the problem is on (1 for an empty file);
	// 0 for a histogram decoded as a whole (Prometheus API and OTLP JSON,
	// a series of the text format), where the problem has no one line,
	// and for a problem of a whole column (a boolean status column that
	// reads as mostly failed, see Columns.OK).
	Line int
	// Field is the column or field at fault; "" when the problem is not
	// about one field (a syntax error, an empty file).
	Field string
	// Msg says what is wrong, quoting the bad value, and what is allowed.
	Msg string
}

// Error returns "file:line: field: msg", leaving out an empty field.
func (e *InputError) Error() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	if e.Field != "" {
		s += ": " + e.Field
	}
	return s + ": " + e.Msg
}

// inputErr returns an *InputError.
func inputErr(file string, line int, field, format string, args ...any) *InputError {
	return &InputError{File: file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Unit is a unit of time, given as the number of seconds in one unit. The
// zero Unit means "not stated".
type Unit float64

// The units a log may state.
const (
	Seconds      Unit = 1
	Milliseconds Unit = 1e-3
	Microseconds Unit = 1e-6
)

// unitNames are the accepted spellings of each unit, the first canonical.
var unitNames = []struct {
	u     Unit
	names []string
}{
	{Seconds, []string{"s", "sec", "secs", "seconds"}},
	{Milliseconds, []string{"ms", "msec", "milliseconds"}},
	{Microseconds, []string{"us", "µs", "usec", "microseconds"}},
}

// ParseUnit returns the unit called s: "s", "ms" or "us" (also "sec",
// "msec", "µs", …; case-insensitive). It returns an error naming the
// accepted units for anything else.
func ParseUnit(s string) (Unit, error) {
	l := strings.ToLower(strings.TrimSpace(s))
	for _, u := range unitNames {
		for _, n := range u.names {
			if l == n {
				return u.u, nil
			}
		}
	}
	return 0, fmt.Errorf("unknown unit %q; want s, ms or us", clip(s))
}

// String returns "s", "ms", "us", or "unstated" for the zero Unit.
func (u Unit) String() string {
	for _, n := range unitNames {
		if n.u == u {
			return n.names[0]
		}
	}
	if u == 0 {
		return "unstated"
	}
	return strconv.FormatFloat(float64(u), 'g', -1, 64) + "s"
}

// unitFromName infers the unit of a column from a suffix of its name:
// "_s", "_ms", "_us" (or "-s", " (ms)", "[ms]"), case-insensitive, such as
// llmperf's "ttft_s" or "latency_ms". It returns 0 when there is none.
func unitFromName(col string) Unit {
	l := strings.ToLower(strings.TrimSpace(col))
	for _, u := range unitNames {
		n := u.names[0]
		for _, suffix := range []string{"_" + n, "-" + n, "(" + n + ")", "[" + n + "]"} {
			if strings.HasSuffix(l, suffix) && len(l) > len(suffix) {
				return u.u
			}
		}
	}
	return 0
}

// parseNumber parses a finite decimal number, describing the problem
// otherwise.
func parseNumber(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("empty; want a number")
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%q is out of range", clip(s))
		}
		return 0, fmt.Errorf("%q is not a number", clip(s))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a finite number", clip(s))
	}
	return v, nil
}

// parseTime parses a time value in seconds: a plain number in unit u, or a
// number followed by a unit ("250ms", "1.5 s"), which overrides u. It
// rejects a plain number when u is 0 (no unit stated), an unknown unit, and
// values that are not finite. form is the unit written in s, or 0 for a
// plain number.
func parseTime(s string, u Unit) (v float64, form Unit, err error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, 0, fmt.Errorf("empty; want a number")
	}
	// Split a trailing unit off the number.
	i := len(t)
	for i > 0 && isUnitChar(t[i-1]) {
		i--
	}
	// "1e3" ends in a digit, "Inf"/"NaN" are all letters: only split when
	// a number remains and the tail is not part of an exponent.
	if i < len(t) && i > 0 && !strings.EqualFold(t, "inf") && !strings.EqualFold(t, "nan") {
		num, tail := strings.TrimSpace(t[:i]), t[i:]
		if _, err := strconv.ParseFloat(num, 64); err == nil {
			unit, err := ParseUnit(tail)
			if err != nil {
				return 0, 0, fmt.Errorf("unknown unit %q in %q; want s, ms or us (or a plain number in the stated unit)", clip(tail), clip(s))
			}
			v, err := parseNumber(num)
			if err != nil {
				return 0, 0, err
			}
			return v * float64(unit), unit, nil
		}
	}
	v, err = parseNumber(t)
	if err != nil {
		return 0, 0, err
	}
	if u == 0 {
		return 0, 0, fmt.Errorf("%q has no unit; state the column's unit (hedgesim fit --unit s, ms or us), name the column with a unit suffix such as latency_ms, or write the unit after the number, such as \"250ms\"", clip(s))
	}
	return v * float64(u), 0, nil
}

func isUnitChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == 0xb5 || c == 0xc2 // µ is C2 B5 in UTF-8
}

// Status is the outcome of one logged request.
type Status uint8

const (
	// OK: a successful request; its latencies are fitted.
	OK Status = iota
	// Failed: an error response (5xx, timeout, client error). Counted in
	// the error rate.
	Failed
	// RateLimited: a 429 or another rate-limit rejection. Counted in the
	// error rate and reported separately.
	RateLimited
	// Invalid: a response that arrived but is unusable (truncated, empty).
	// Counted in the invalid rate.
	Invalid
)

// String returns "ok", "failed", "rate-limited" or "invalid".
func (s Status) String() string {
	switch s {
	case Failed:
		return "failed"
	case RateLimited:
		return "rate-limited"
	case Invalid:
		return "invalid"
	}
	return "ok"
}

// DefaultOK are the status values that mean success when Columns.OK is
// empty, compared case-insensitively after trimming spaces: an empty cell,
// "ok", "success", "succeeded", "healthy", "200", "null", "none" and
// "true" (a boolean success field such as JSON's "ok": true; false is a
// failure).
var DefaultOK = []string{"", "ok", "success", "succeeded", "healthy", "200", "null", "none", "true"}

// classify returns the Status of a status value: OK when it is one of ok
// (case-insensitive), RateLimited when it contains "429", "rate limit",
// "rate_limit", "ratelimit" or "too many requests", Invalid when it
// contains "invalid" or "truncat", else Failed.
func classify(v string, ok []string) Status {
	l := strings.ToLower(strings.TrimSpace(v))
	for _, o := range ok {
		if l == strings.ToLower(strings.TrimSpace(o)) {
			return OK
		}
	}
	for _, k := range []string{"429", "rate limit", "rate_limit", "ratelimit", "too many requests"} {
		if strings.Contains(l, k) {
			return RateLimited
		}
	}
	for _, k := range []string{"invalid", "truncat"} {
		if strings.Contains(l, k) {
			return Invalid
		}
	}
	return Failed
}

// maxQuote is about the most bytes of a file's text an error message
// quotes: enough to recognise a value or a header, not a whole foreign
// file's first line.
const maxQuote = 80

// clip returns s cut to at most maxQuote bytes at a rune boundary, with
// "…" appended when it was cut.
func clip(s string) string {
	if len(s) <= maxQuote {
		return s
	}
	i := maxQuote
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
