package scenario

import (
	"errors"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/dist"
)

// numericPatterns walks the decoded form of a scenario file (fileTable)
// and returns the pattern of every key that holds a number, a duration, a
// list of them or a distribution: what ranges must cover.
func numericPatterns() []string {
	var out []string
	var walk func(t reflect.Type, pat string)
	walk = func(t reflect.Type, pat string) {
		switch t {
		case reflect.TypeFor[dist.Spec](), reflect.TypeFor[thinkTime]():
			out = append(out, pat) // a distribution: the range of its values
			return
		case reflect.TypeFor[Duration](), reflect.TypeFor[Span](), reflect.TypeFor[HedgeDelay]():
			out = append(out, pat)
			return
		}
		switch t.Kind() {
		case reflect.Pointer:
			walk(t.Elem(), pat)
		case reflect.Slice:
			walk(t.Elem(), pat+"[]")
		case reflect.Map:
			walk(t.Elem(), pat+".*")
		case reflect.Struct:
			for i := range t.NumField() {
				f := t.Field(i)
				name := f.Tag.Get("toml")
				if name == "" {
					continue
				}
				walk(f.Type, joinKey(pat, name))
			}
		case reflect.Float64, reflect.Int64, reflect.Int:
			out = append(out, pat)
		}
	}
	walk(reflect.TypeFor[fileTable](), "")
	sort.Strings(out)
	return out
}

// TestEveryNumericKeyHasARange: every key of the file format that holds a
// number, a duration or a distribution has a range in ranges, and ranges
// lists no key the format does not have. A new key fails here until its
// range is written down.
func TestEveryNumericKeyHasARange(t *testing.T) {
	pats := numericPatterns()
	if len(pats) < 50 {
		t.Fatalf("only %d numeric keys found: %q", len(pats), pats)
	}
	for _, p := range pats {
		if _, ok := ranges[p]; !ok {
			t.Errorf("numeric key %s has no range in ranges (ranges.go)", p)
		}
	}
	for p := range ranges {
		if !slicesContains(pats, p) {
			t.Errorf("ranges lists %s, which is no numeric key of the file format", p)
		}
	}
}

func slicesContains(s []string, x string) bool {
	i := sort.SearchStrings(s, x)
	return i < len(s) && s[i] == x
}

// extremeCases are values each inside what the key's own check allows
// (finite, > 0, ≥ 0) that a run cannot turn into finite figures: a rate
// whose spend per month overflows, token counts whose cost does. Each is
// refused with the file, line, key, value and range.
var extremeCases = []struct {
	name, from, to string
	line           int
	key, msg       string
}{
	{"rate 1e308", "rate = 1", "rate = 1e308", 3, "arrivals.rate", "1e+308 is out of range; want a value in (0, 1e6] requests per second"},
	{"rate 1e306", "rate = 1", "rate = 1e306", 3, "arrivals.rate", "out of range"},
	{"constant tokens", `name = "c"`, `name = "c"
input_tokens = { kind = "constant", value = 1e308 }`, 8, "classes[0].input_tokens", "constant distribution reaches 1e+308; want values in [0, 1e9] tokens"},
	{"uniform tokens", `name = "c"`, `name = "c"
output_tokens = { kind = "uniform", min = 1, max = 1e308 }`, 8, "classes[0].output_tokens", "uniform distribution reaches 1e+308"},
	{"lognormal tokens", `name = "c"`, `name = "c"
input_tokens = { kind = "lognormal", median = 1000, p95 = 1e12 }`, 8, "classes[0].input_tokens", "at its 99.9999th percentile"},
	{"deadline", `name = "c"`, `name = "c"
deadline = "9000h"`, 8, "classes[0].deadline", `9000h0m0s is out of range; want a value in [0s, 8760h0m0s]`},
	{"delays", `name = "c"`, `name = "c"
hedge = { delays = ["1s", "fallback", "10000h"] }`, 8, "classes[0].hedge.delays[2]", "out of range"},
	{"hedges per second", `name = "c"`, `name = "c"
hedge = { delay = "1s", budget = { hedges_per_second = 1e300 } }`, 8, "classes[0].hedge.budget.hedges_per_second", "want a value in [0, 1e6] copies per second"},
	{"rate at the bound", "rate = 1", "rate = 1e6", 0, "", ""}, // in range: no error
	// Integer keys whose own check gives the message name the upper end
	// too: 2^63-1 is ≥ 0, so "want an integer ≥ 0" would be no answer.
	{"provider concurrency", `name = "c"`, `name = "c"
[providers.m]
concurrency = 9223372036854775807`, 9, "providers.m.concurrency", "9223372036854775807 is not allowed; want an integer in [0, 2147483647] (0 = unlimited)"},
	{"provider queue_limit", `name = "c"`, `name = "c"
[providers.m]
concurrency = 1
queue_limit = 2147483648`, 10, "providers.m.queue_limit", "want an integer in [0, 2147483647] (0 = no queue"},
	{"pool concurrency", `name = "c"`, `name = "c"
[providers.m.pool]
replicas = 2
concurrency = 9223372036854775807`, 10, "providers.m.pool.concurrency", "9223372036854775807 is not allowed; want an integer in [0, 2147483647] per replica (0 = unlimited)"},
	{"pool queue_limit", `name = "c"`, `name = "c"
[providers.m.pool]
replicas = 2
concurrency = 1
queue_limit = -1`, 11, "providers.m.pool.queue_limit", "-1 is not allowed; want an integer in [0, 2147483647] per replica"},
	{"budget count", `name = "c"`, `name = "c"
hedge = { delay = "1s", budget = { max_parallel = 9223372036854775807 } }`, 8, "classes[0].hedge.budget.max_parallel", "want an integer in [0, 2147483647] (0 = off)"},
	{"warm_up", `name = "c"`, `name = "c"
hedge = { adaptive = { percentile = 0.9, warm_up = 9223372036854775807 } }`, 8, "classes[0].hedge.adaptive.warm_up", "want an integer in [0, 1073741824] samples"},
	{"pool concurrency at the bound", `name = "c"`, `name = "c"
[providers.m.pool]
replicas = 2
concurrency = 2147483647`, 0, "", ""},
}

// TestRangesRefuseExtremes: values out of their key's range are refused
// at load time, each with the usual file:line error.
func TestRangesRefuseExtremes(t *testing.T) {
	for _, tc := range extremeCases {
		src := strings.Replace(minimal, tc.from, tc.to, 1)
		_, err := Parse("extreme.toml", []byte(src))
		if tc.key == "" {
			if err != nil {
				t.Errorf("%s: %v; want no error", tc.name, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Line != tc.line || e.Key != tc.key || !strings.Contains(e.Msg, tc.msg) {
			t.Errorf("%s: got %v; want line %d, key %s, message with %q", tc.name, err, tc.line, tc.key, tc.msg)
		}
		var list Errors
		if errors.As(err, &list) {
			t.Errorf("%s: %d problems; want one message per value:\n%v", tc.name, len(list), err)
		}
	}
}

// TestRangeOneMessage: a value another check already refuses (a negative
// rate) gets that check's message only.
func TestRangeOneMessage(t *testing.T) {
	_, err := Parse("neg.toml", []byte(strings.Replace(minimal, "rate = 1", "rate = -1", 1)))
	var e *Error
	var list Errors
	if !errors.As(err, &e) || !strings.Contains(e.Msg, "not a valid rate") || errors.As(err, &list) {
		t.Errorf("got %v; want the rate check's own message, once", err)
	}
}

// TestRangeOfOverride: a --set value is checked against the key's range
// and the error names the override.
func TestRangeOfOverride(t *testing.T) {
	_, err := ParseWith("s.toml", []byte(minimal), &Options{Set: []string{"arrivals.rate=1e300"}})
	var e *Error
	if !errors.As(err, &e) || e.Set != "--set arrivals.rate=1e300" || !strings.Contains(e.Msg, "out of range") {
		t.Errorf("got %v; want the range error naming --set", err)
	}
}

// TestRangesOfSteps: a pipeline step's keys have the ranges of a one-call
// class's, and its own keys theirs.
func TestRangesOfSteps(t *testing.T) {
	for _, tc := range []struct{ line, key string }{
		{`input_tokens = { kind = "constant", value = 1e308 }`, "classes[0].steps[0].input_tokens"},
		{`hedge = { delay = "9000h" }`, "classes[0].steps[0].hedge.delay"},
		{`retry = { max_attempts = 3, initial_backoff = "9000h", max_backoff = "9000h" }`, "classes[0].steps[0].retry.initial_backoff"},
	} {
		_, err := Parse("p.toml", []byte(pipelineHead+step("s", tc.line)))
		var e *Error
		if !errors.As(err, &e) || e.Key != tc.key || e.Line != 11 {
			t.Errorf("%s: got %v; want an error at line 11, key %s", tc.line, err, tc.key)
		}
	}
}

// TestRangeMessagesDocumented: the range errors scenarios/README.md shows
// are the ones the loader writes.
func TestRangeMessagesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../scenarios/README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ from, to string }{
		{"rate = 1", "rate = 1e308"},
		{`name = "c"`, `name = "c"` + "\n" + `input_tokens = { kind = "constant", value = 1e308 }`},
	} {
		_, err := Parse("gateway.toml", []byte(strings.Replace(minimal, tc.from, tc.to, 1)))
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: %v", tc.to, err)
		}
		if msg := e.Key + ": " + e.Msg; !strings.Contains(string(doc), msg) {
			t.Errorf("scenarios/README.md does not show %q", msg)
		}
	}
}
