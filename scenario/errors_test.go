package scenario

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestParseEveryError checks that independent problems anywhere in a file
// are reported together, sorted by line, each with its key.
func TestParseEveryError(t *testing.T) {
	src := `
seed = -3
[arrivals]
rate = 0
[models.a]
latency = { kind = "constant", value = 1 }
error_rate = 1.5
price_input_per_mtok = -1
[models.b]
latency = { kind = "lognormal", median = 1, p95 = 4, sigmaa = 2 }
[[classes]]
name = "x"
share = 0.5
hedge = { primary = "gpt", delay = "1s", winner = "fastest" }
[[classes]]
name = "y"
share = 0.5
on_timeout = "shrug"
[correlation]
same_model = 2
`
	_, err := Parse("bad.toml", []byte(src))
	var list Errors
	if !errors.As(err, &list) {
		t.Fatalf("got %T %v; want Errors", err, err)
	}
	want := []struct {
		line int
		key  string
	}{
		{2, "seed"},
		{4, "arrivals.rate"},
		{7, "models.a.error_rate"},
		{8, "models.a.price_input_per_mtok"},
		{10, "models.b.latency.sigmaa"},
		{14, "classes[0].hedge.primary"},
		{14, "classes[0].hedge.winner"},
		{15, "classes[1].hedge.primary"}, // absent: the line of its class
		{18, "classes[1].on_timeout"},
		{20, "correlation.same_model"},
	}
	if len(list) != len(want) {
		t.Fatalf("got %d problems; want %d:\n%v", len(list), len(want), err)
	}
	for i, w := range want {
		if list[i].Line != w.line || list[i].Key != w.key || list[i].File != "bad.toml" {
			t.Errorf("problem %d: got %v; want bad.toml:%d: %s", i, list[i], w.line, w.key)
		}
	}
	// The first problem is what errors.As finds as an *Error.
	var first *Error
	if !errors.As(err, &first) || first != list[0] {
		t.Errorf("errors.As(*Error) = %v; want the first problem %v", first, list[0])
	}
	if got := strings.Count(err.Error(), "\n") + 1; got != len(want) {
		t.Errorf("Error() has %d lines; want one per problem (%d):\n%s", got, len(want), err)
	}
}

// TestParseConsequencesLeftOut checks that a value that cannot be decoded
// or a misspelled key is reported once, not again as a missing key or as a
// share sum that no longer adds up.
func TestParseConsequencesLeftOut(t *testing.T) {
	tests := []struct {
		name, toml, key string
	}{
		{"share of the wrong type", `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "a"
share = "half"
[[classes]]
name = "b"
share = 0.5
`, "classes[0].share"},
		{"misspelled required key", `
[arrivals]
rat = 1
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "a"
`, "arrivals.rat"},
		{"model of the wrong type", `
[arrivals]
rate = 1
[models]
m = 3
[[classes]]
name = "a"
hedge = { primary = "m" }
`, "models.m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("bad.toml", []byte(tt.toml))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %T %v; want one *Error", err, err)
			}
			if e.Key != tt.key {
				t.Errorf("got %v; want only %s", err, tt.key)
			}
		})
	}
}

// TestErrorsCap checks that Error lists MaxErrors problems and counts the rest.
func TestErrorsCap(t *testing.T) {
	var b strings.Builder
	b.WriteString("[arrivals]\nrate = 1\n[[classes]]\nname = \"c\"\n")
	const n = MaxErrors + 5
	for i := range n {
		fmt.Fprintf(&b, "[models.m%02d]\nlatency = { kind = \"constant\", value = 1 }\nerror_rate = 2\n", i)
	}
	_, err := Parse("many.toml", []byte(b.String()))
	var list Errors
	if !errors.As(err, &list) {
		t.Fatalf("got %T %v; want Errors", err, err)
	}
	// One error_rate per model, plus the missing primary of the class.
	if len(list) != n+1 {
		t.Fatalf("got %d problems; want %d", len(list), n+1)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != MaxErrors+1 || lines[MaxErrors] != fmt.Sprintf("and %d more", n+1-MaxErrors) {
		t.Errorf("Error() ends with %q after %d lines; want %d problems then \"and %d more\"",
			lines[len(lines)-1], len(lines), MaxErrors, n+1-MaxErrors)
	}
	for i := 1; i < len(list); i++ {
		if list[i].Line != 0 && list[i].Line < list[i-1].Line {
			t.Errorf("problem %d on line %d comes after line %d; want sorted by line", i, list[i].Line, list[i-1].Line)
		}
	}
}

// TestParseEveryBudgetError: the limits of a budget are checked one by one.
func TestParseEveryBudgetError(t *testing.T) {
	_, err := Parse("b.toml", []byte(minimal+`[classes.hedge]
delay = "1s"
[classes.hedge.budget]
max_hedge_share = 2
hedges_per_second = -1
max_parallel = -3
`))
	var list Errors
	if !errors.As(err, &list) || len(list) != 3 {
		t.Fatalf("got %v; want three problems", err)
	}
	for i, key := range []string{"classes[0].hedge.budget.max_hedge_share", "classes[0].hedge.budget.hedges_per_second", "classes[0].hedge.budget.max_parallel"} {
		if list[i].Key != key || list[i].Line != 11+i {
			t.Errorf("problem %d: %v; want line %d, key %s", i, list[i], 11+i, key)
		}
	}
}

// TestParseEveryOptimizeError: the settings of [optimize] are checked one
// by one.
func TestParseEveryOptimizeError(t *testing.T) {
	_, err := Parse("o.toml", []byte(minimal+`[optimize]
requests = 0
confidence = 2
min_gain_pct = -1
`))
	var list Errors
	if !errors.As(err, &list) || len(list) != 3 || list[0].Key != "optimize.requests" || list[1].Key != "optimize.confidence" || list[2].Key != "optimize.min_gain_pct" {
		t.Fatalf("got %v; want problems with requests, confidence and min_gain_pct", err)
	}
}

// TestParseWrongTypeKeepsOtherProblems: a value of the wrong type deep in
// a class does not hide the share sum of the classes.
func TestParseWrongTypeKeepsOtherProblems(t *testing.T) {
	_, err := Parse("w.toml", []byte(`
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "a"
share = 0.5
on_timeout = 3
[[classes]]
name = "b"
share = 0.4
`))
	var list Errors
	if !errors.As(err, &list) || len(list) != 2 || list[0].Key != "classes" || list[1].Key != "classes[0].on_timeout" {
		t.Fatalf("got %v; want the share sum and the wrong type", err)
	}
}

// TestParseIndependentProblemsInNestedTables: an unknown process does not
// hide a bad rate, an undefined target does not hide a delay past the
// deadline, one bad adaptive setting does not hide another, and one
// replay rule a class breaks hides neither another nor the class's hedge
// table.
func TestParseIndependentProblemsInNestedTables(t *testing.T) {
	keysOf := func(err error) []string {
		var list Errors
		var one *Error
		switch {
		case errors.As(err, &list):
			var keys []string
			for _, e := range list {
				keys = append(keys, e.Key)
			}
			return keys
		case errors.As(err, &one):
			return []string{one.Key}
		}
		return nil
	}
	models := "[models.a]\nlatency = { kind = \"constant\", value = 1 }\n"
	for _, tc := range []struct {
		name string
		doc  string
		keys []string
	}{
		{"process and rate", "[arrivals]\nprocess = \"bursty\"\nrate = -3\n" + models + "[[classes]]\nname = \"c\"\n",
			[]string{"arrivals.process", "arrivals.rate"}},
		{"target and gap", "[arrivals]\nrate = 1\n" + models + "[[classes]]\nname = \"c\"\ndeadline = \"2s\"\n[classes.hedge]\ntargets = [\"zzz\"]\ndelay = \"5s\"\n",
			[]string{"classes[0].hedge.targets[0]", "classes[0].hedge.delay"}},
		{"adaptive", "[arrivals]\nrate = 1\n" + models + "[[classes]]\nname = \"c\"\n[classes.hedge]\ndelay = \"1s\"\nadaptive = { percentile = 2, window = 0, source = \"vibes\" }\n",
			[]string{"classes[0].hedge.adaptive.percentile", "classes[0].hedge.adaptive.source", "classes[0].hedge.adaptive.window"}},
	} {
		_, err := Parse("n.toml", []byte(tc.doc))
		if got := keysOf(err); strings.Join(got, " ") != strings.Join(tc.keys, " ") {
			t.Errorf("%s: problems at %q, want %q: %v", tc.name, got, tc.keys, err)
		}
	}
	_, err := loadReplay("[arrivals]\nprocess = \"replay\"\ntrace = \"t.csv\"\nformat = \"azure\"\n" + replayModels +
		"[[classes]]\nname = \"c\"\ninput_tokens = { kind = \"constant\", value = 3 }\noutput_tokens = { kind = \"constant\", value = 3 }\n[classes.hedge]\nprimary = \"zzz\"\n")
	if got, want := keysOf(err), []string{"classes[0].input_tokens", "classes[0].output_tokens", "classes[0].hedge.primary"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("replay class: problems at %q, want %q: %v", got, want, err)
	}
}
