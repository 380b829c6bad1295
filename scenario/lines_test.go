package scenario

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestScanLines checks the key→line scanner on the TOML constructs it must
// see through: comments and strings containing delimiters, multi-line
// strings and arrays, inline tables (nested, and in arrays), dotted and
// quoted keys, and arrays of tables with sub-tables.
func TestScanLines(t *testing.T) {
	src := `# a comment with = and [brackets] and { braces }
name = "x # not a comment = [no] {no}"   # comment
note = """
line one
key = "not a key"
"""
lit = 'c:\path' # a literal string
[arrivals]   # header comment
rate = 1.0
[models."gpt-4.1"]
latency = { kind = "mixture", weights = [0.5,
   0.5], components = [
  { kind = "uniform", min = 0.1, max = 0.3 },
  { kind = "quantiles", quantiles = { p50 = 1, "p99.9" = 9 } },
] }
ttft.kind = "constant"
[[classes]]
name = "a"
[classes.hedge]
delays = [
  "1s",   # first gap
  "2s",
]
[[classes]]
'name' = "b"
[ classes . hedge ]
primary = "gpt-4.1"
when = 1979-05-27 07:32:00Z
`
	got := scanLines([]byte(src))
	want := map[string]int{
		"name":                                   2,
		"note":                                   3,
		"lit":                                    7,
		"arrivals":                               8,
		"arrivals.rate":                          9,
		"models":                                 10,
		`models."gpt-4.1"`:                       10,
		`models."gpt-4.1".latency`:               11,
		`models."gpt-4.1".latency.kind`:          11,
		`models."gpt-4.1".latency.weights[1]`:    12,
		`models."gpt-4.1".latency.components`:    12,
		`models."gpt-4.1".latency.components[0]`: 13,
		`models."gpt-4.1".latency.components[0].max`:               13,
		`models."gpt-4.1".latency.components[1].kind`:              14,
		`models."gpt-4.1".latency.components[1].quantiles.p50`:     14,
		`models."gpt-4.1".latency.components[1].quantiles."p99.9"`: 14,
		`models."gpt-4.1".ttft`:                                    16,
		`models."gpt-4.1".ttft.kind`:                               16,
		"classes":                                                  17,
		"classes[0]":                                               17,
		"classes[0].name":                                          18,
		"classes[0].hedge":                                         19,
		"classes[0].hedge.delays":                                  20,
		"classes[0].hedge.delays[0]":                               21,
		"classes[0].hedge.delays[1]":                               22,
		"classes[1]":                                               24,
		"classes[1].name":                                          25,
		"classes[1].hedge":                                         26,
		"classes[1].hedge.primary":                                 27,
		"classes[1].hedge.when":                                    28,
	}
	for k, line := range want {
		if got[k] != line {
			t.Errorf("line of %s = %d, want %d", k, got[k], line)
		}
	}
	// Nothing inside strings or comments is taken for a key.
	for k := range got {
		if _, ok := want[k]; !ok && !strings.HasPrefix(k, "models.") {
			t.Errorf("unexpected key %s on line %d", k, got[k])
		}
	}

	// Keys not in the file fall back to their longest present prefix.
	for key, line := range map[string]int{
		"classes[1].hedge.delay":                                  26,
		`models."gpt-4.1".latency.components[1].sigma`:            14,
		`models."gpt-4.1".latency.components[1].quantiles."p9.9"`: 14,
		"requests": 0,
	} {
		if got := got.lineOf(key); got != line {
			t.Errorf("lineOf(%s) = %d, want %d", key, got, line)
		}
	}
}

func TestKeyPaths(t *testing.T) {
	if got := joinKey(joinKey("", "models"), "gpt-4.1"); got != `models."gpt-4.1"` {
		t.Errorf("joinKey = %s", got)
	}
	var parents []string
	for k, ok := `models."a.b[1]".x[2].y`, true; ok; k, ok = parentKey(k) {
		parents = append(parents, k)
	}
	want := []string{`models."a.b[1]".x[2].y`, `models."a.b[1]".x[2]`, `models."a.b[1]".x`, `models."a.b[1]"`, "models"}
	if !cmp.Equal(parents, want) {
		t.Errorf("parents = %q, want %q", parents, want)
	}
	if got := stripIndices(`classes[12].hedge."x[1]".targets[0]`); got != `classes.hedge."x[1]".targets` {
		t.Errorf("stripIndices = %s", got)
	}
}
