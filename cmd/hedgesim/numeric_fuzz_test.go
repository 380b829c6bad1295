package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenarios"
)

// A numeric field of a shipped scenario: where its literal is in the text,
// and whether it is a duration string (its number before the unit).
type numericField struct {
	from, to int
	unit     string // "ms", "s", … for a duration; "" for a number
	integer  bool   // an integer literal (a count)
}

var (
	// numberRE matches a number in value position: after "=", "[" or ",".
	numberRE = regexp.MustCompile(`(?:=|\[|,)\s*([-+]?(?:[0-9][0-9_]*(?:\.[0-9_]+)?(?:[eE][-+]?[0-9]+)?|inf|nan))`)
	// durationRE matches the number of a duration string such as "700ms".
	durationRE = regexp.MustCompile(`"([0-9]+(?:\.[0-9]+)?)(ns|us|ms|s|m|h)"`)
)

// numericFields lists the numeric fields of a scenario's text: every
// number and duration outside comments, in order.
func numericFields(src string) []numericField {
	var out []numericField
	off := 0
	for _, line := range strings.SplitAfter(src, "\n") {
		code := line
		if i := commentStart(line); i >= 0 {
			code = line[:i]
		}
		for _, m := range numberRE.FindAllStringSubmatchIndex(code, -1) {
			lit := code[m[2]:m[3]]
			out = append(out, numericField{from: off + m[2], to: off + m[3], integer: !strings.ContainsAny(lit, ".eEna")})
		}
		for _, m := range durationRE.FindAllStringSubmatchIndex(code, -1) {
			out = append(out, numericField{from: off + m[2], to: off + m[3], unit: code[m[4]:m[5]]})
		}
		off += len(line)
	}
	return out
}

// commentStart returns where a TOML comment starts on line, outside
// strings, or −1.
func commentStart(line string) int {
	var quote byte
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote == 0 && c == '#':
			return i
		}
	}
	return -1
}

// mutate writes x into field k of src: a TOML number (inf and nan as TOML
// spells them; an integer where the literal was one and x is whole), or
// the number of a duration.
func mutate(src string, fields []numericField, k int, x float64) string {
	f := fields[k]
	var lit string
	switch {
	case math.IsNaN(x):
		lit = "nan"
	case math.IsInf(x, 1):
		lit = "inf"
	case math.IsInf(x, -1):
		lit = "-inf"
	case f.integer && x == math.Trunc(x) && math.Abs(x) < 1<<63:
		lit = strconv.FormatInt(int64(x), 10)
	default:
		lit = strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(lit, ".e") {
			lit += ".0" // a TOML float
		}
	}
	if f.unit != "" {
		lit = strconv.FormatFloat(x, 'f', -1, 64) // ParseDuration reads no exponent
	}
	return src[:f.from] + lit + src[f.to:]
}

// infNaN finds a non-finite figure in a text report: "Inf", "NaN" or
// "+Inf" standing as a value. The quantile rule's explanation of how a
// miss counts ("+Inf for percentiles") is prose, not a figure.
var infNaN = regexp.MustCompile(`(^|[\s$(+-])(NaN|[+-]?Inf)\b`)

func checkFinite(t testing.TB, what, out string) {
	t.Helper()
	if !strings.Contains(out, "Inf") && !strings.Contains(out, "NaN") {
		return // the regular expression costs a fuzz execution a fifth of its time
	}
	out = strings.ReplaceAll(out, "+Inf for percentiles", "")
	if m := infNaN.FindString(out); m != "" {
		t.Errorf("%s: a non-finite figure %q:\n%s", what, m, out)
	}
}

// numericCorpus holds the shipped scenarios and their numeric fields, and a
// directory to write mutants into (with the scenarios' data beside them:
// replayed traces are named relative to the scenario file).
type numericCorpus struct {
	dir     string
	names   []string
	sources []string
	fields  [][]numericField
}

func newNumericCorpus(tb testing.TB) *numericCorpus {
	c := &numericCorpus{dir: tb.TempDir(), names: scenarios.Names()}
	abs, err := filepath.Abs("../../scenarios/data")
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.Symlink(abs, filepath.Join(c.dir, "data")); err != nil {
		tb.Skipf("symlink: %v", err)
	}
	c.sources = make([]string, len(c.names))
	c.fields = make([][]numericField, len(c.names))
	for i, n := range c.names {
		src, err := fs.ReadFile(scenarios.FS, n)
		if err != nil {
			tb.Fatal(err)
		}
		c.sources[i], c.fields[i] = string(src), numericFields(string(src))
	}
	return c
}

// addSeeds adds a few extreme values on fields of every scenario (under
// -short a third of them: each value on a third of the scenarios).
func (c *numericCorpus) addSeeds(f *testing.F) {
	for i := range c.names {
		for j, x := range []float64{1e308, -1, 0, math.Inf(1), 1e-300, 4e18} {
			if testing.Short() && (i+j)%3 != 0 {
				continue // -short: every value, each on a third of the scenarios
			}
			f.Add(uint8(i), uint16(7*i+13*j), x)
		}
	}
}

// check sets field of scenario which to x and runs validate on it: exit 0
// (valid) or 2 (refused), never an internal error. When simulate is set
// and the mutant is valid, it also runs run (text and JSON) and optimize
// --json: exit 0 or 2, JSON that parses, and no figure Inf or NaN.
func (c *numericCorpus) check(t testing.TB, which uint8, field uint16, x float64, simulate bool) {
	i := int(which) % len(c.names)
	if len(c.fields[i]) == 0 {
		return
	}
	src := mutate(c.sources[i], c.fields[i], int(field)%len(c.fields[i]), x)
	p := filepath.Join(c.dir, "fuzzed.toml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := hedgesimTB("validate", p)
	if code != 0 && code != 2 || strings.Contains(errOut, "internal error") {
		t.Fatalf("validate: exit %d: %s\n%s", code, errOut, src)
	}
	if code != 0 || !simulate {
		return
	}
	requests := "300"
	if strings.Contains(src, `process = "replay"`) {
		requests = "" // the trace's requests
	}
	for _, args := range [][]string{
		{"run", "--json"}, {"run"}, {"optimize", "--json", "--check-requests", "0"},
	} {
		if requests != "" {
			args = append(args, "--requests", requests)
		}
		args = append(args, p)
		code, out, errOut := hedgesimTB(args...)
		if code != 0 && code != 2 || strings.Contains(errOut, "internal error") {
			t.Fatalf("%q: exit %d: %s\n%s", args, code, errOut, src)
		}
		if code != 0 {
			continue
		}
		if args[1] == "--json" {
			var v any
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatalf("%q: output is not JSON: %v", args, err)
			}
		}
		checkFinite(t, strings.Join(args[:len(args)-1], " "), out+errOut)
	}
}

// hedgesimTB runs the command line args as hedgesim would, for a test or
// a benchmark.
func hedgesimTB(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

// FuzzNumericFields sets one numeric field of a shipped scenario to a
// fuzzed value and runs validate on it: no panic, exit 0 (valid) or 2
// (refused with the file's line), never an internal error. It checks
// what the loader accepts; FuzzNumericFieldsSimulate runs what it
// accepts. With go test both run their seeds, a few extreme values on
// fields of every scenario; bench/fuzz.sh runs them long.
func FuzzNumericFields(f *testing.F) {
	c := newNumericCorpus(f)
	c.addSeeds(f)
	f.Fuzz(func(t *testing.T, which uint8, field uint16, x float64) {
		c.check(t, which, field, x, false)
	})
}

// FuzzNumericFieldsSimulate is FuzzNumericFields that also runs run
// (text and JSON, 300 requests or the replayed trace's) and optimize
// --json on every mutant validate accepts: no panic, exit 0 or 2, every
// JSON output parses, and no figure is Inf or NaN. An execution is
// inherently costly, a simulation and an optimize sweep (see
// BenchmarkNumericFields and docs/performance.md).
func FuzzNumericFieldsSimulate(f *testing.F) {
	c := newNumericCorpus(f)
	c.addSeeds(f)
	f.Fuzz(func(t *testing.T, which uint8, field uint16, x float64) {
		c.check(t, which, field, x, true)
	})
}

// BenchmarkNumericFields times one execution of the numeric-field fuzz
// targets' body, validate only and validate with simulation, over a
// fixed set of their seeds.
func BenchmarkNumericFields(b *testing.B) {
	c := newNumericCorpus(b)
	// The same mutants with each field's own value: valid, so simulated.
	b.Run("simulate-valid", func(b *testing.B) {
		k := 0
		for b.Loop() {
			i := k % len(c.names)
			f := c.fields[i][(7*i+13*(k/len(c.names)%6))%len(c.fields[i])]
			x, err := strconv.ParseFloat(strings.ReplaceAll(c.sources[i][f.from:f.to], "_", ""), 64)
			if err != nil {
				b.Fatal(err)
			}
			c.check(b, uint8(i), uint16(7*i+13*(k/len(c.names)%6)), x, true)
			k++
		}
	})
	for _, simulate := range []bool{false, true} {
		name := "validate"
		if simulate {
			name = "simulate"
		}
		b.Run(name, func(b *testing.B) {
			k := 0
			for b.Loop() {
				i := k % len(c.names)
				c.check(b, uint8(i), uint16(7*i+13*(k/len(c.names)%6)), []float64{1e308, -1, 0, math.Inf(1), 1e-300, 4e18}[k/len(c.names)%6], simulate)
				k++
			}
		})
	}
}

// TestNumericFieldsFound: the fuzz target finds the numbers and durations
// of every shipped scenario, and writes a value where each was.
func TestNumericFieldsFound(t *testing.T) {
	for _, n := range scenarios.Names() {
		src, err := fs.ReadFile(scenarios.FS, n)
		if err != nil {
			t.Fatal(err)
		}
		fs := numericFields(string(src))
		if len(fs) < 5 {
			t.Errorf("%s: %d numeric fields", n, len(fs))
		}
		for k := range fs {
			out := mutate(string(src), fs, k, 12.375)
			if len(out) == len(src) && out == string(src) {
				t.Errorf("%s: field %d not changed", n, k)
			}
		}
	}
}

// TestExtremeNumbersRefused: the values that made optimize panic ("index
// out of range [-1]") and run --json fail with "json: unsupported value:
// +Inf" are refused up front with the file's line (exit 2).
func TestExtremeNumbersRefused(t *testing.T) {
	base := `requests = 2000
[arrivals]
rate = 10.0
[models.a]
latency = { kind = "lognormal", median = 1.0, p95 = 3.0 }
price_input_per_mtok = 3.0
[[classes]]
name = "c"
input_tokens = { kind = "constant", value = 100 }
[classes.hedge]
delay = "1s"
`
	dir := t.TempDir()
	for _, tc := range []struct {
		from, to string
		args     []string
		want     string
	}{
		{"value = 100", "value = 1e308", []string{"optimize", "--requests", "1000", "--check-requests", "0"}, "x.toml:9: classes[0].input_tokens:"},
		{`kind = "constant", value = 100`, `kind = "uniform", min = 1, max = 1e308`, []string{"optimize", "--requests", "1000", "--check-requests", "0"}, "x.toml:9: classes[0].input_tokens:"},
		{"rate = 10.0", "rate = 1e306", []string{"run", "--json"}, "x.toml:3: arrivals.rate:"},
		{"rate = 10.0", "rate = 1e308", []string{"optimize", "--json"}, "x.toml:3: arrivals.rate:"},
	} {
		p := writeTestFile(t, dir, "x.toml", strings.Replace(base, tc.from, tc.to, 1))
		code, _, errOut := hedgesim(t, append(tc.args, p)...)
		if code != 2 || !strings.Contains(errOut, tc.want) || strings.Contains(errOut, "internal error") {
			t.Errorf("%s with %q: exit %d, %q; want 2 and %q", tc.to, tc.args, code, errOut, tc.want)
		}
	}
}
