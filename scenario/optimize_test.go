package scenario

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hedgesim/hedgesim/optimize"
)

// twoClasses is a valid scenario without [optimize]; the tests append one.
const twoClasses = `
[arrivals]
rate = 10
[models.big]
latency = { kind = "lognormal", median = 1, p95 = 5 }
[models.small]
latency = { kind = "lognormal", median = 0.5, p95 = 2 }
[[classes]]
name = "a"
share = 0.5
[classes.hedge]
primary = "big"
[[classes]]
name = "b"
share = 0.5
[classes.hedge]
primary = "big"
`

func TestOptimizeDefaults(t *testing.T) {
	sc, err := Parse("x.toml", []byte(twoClasses))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(optimize.DefaultSettings(), sc.Optimize, cmp.AllowUnexported(optimize.Objective{})); diff != "" {
		t.Errorf("without [optimize] (-want +got):\n%s", diff)
	}
}

func TestOptimizeTable(t *testing.T) {
	sc, err := Parse("x.toml", []byte(twoClasses+`
[optimize]
requests = 5000
confidence = 0.99
objective = "p99"
max_added_cost_pct = 25
max_hedged_pct = 40
min_gain_pct = 15
min_gain_per_cost = 2
min_unanswered_cut_per_cost = 0.25
require_significant = false
classes = ["b", "a"]
delays = ["1s", "250ms", "1s"]
copies = [1, 2]
targets = ["small", "big"]

[optimize.class.b]
objective = "cost"
sla = "1.5s"
from = "100ms"
to = "300ms"
step = "100ms"
`))
	if err != nil {
		t.Fatal(err)
	}
	want := optimize.DefaultSettings()
	want.Requests = 5000
	want.Level = 0.99
	want.Rule = optimize.Rule{MinGainPct: 15, MinGainPerCost: 2, MinUnansweredCutPerCost: 0.25}
	want.Only = []string{"b", "a"}
	o := &want.Search.Objective
	o.SetName("p99")
	o.MaxAddedCostPct, o.MaxHedgedPct = 25, 40
	want.Search.Delays = []time.Duration{250 * time.Millisecond, time.Second}
	want.Search.Copies = []int{1, 2}
	want.Search.Targets = []string{"small", "big"}
	b := want.Search
	b.Objective.SetName("cost")
	b.Objective.SLA = 1500 * time.Millisecond
	b.Delays = []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond}
	want.PerClass = map[string]optimize.Search{"b": b}
	if diff := cmp.Diff(want, sc.Optimize, cmp.AllowUnexported(optimize.Objective{})); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	if got := sc.Optimize.For("a").Objective.Name(); got != "p99" {
		t.Errorf("class a: objective %s", got)
	}

	// inf lifts the cost cap; a range may start at 0 by default.
	sc, err = Parse("x.toml", []byte(twoClasses+`
[optimize]
max_added_cost_pct = inf
to = "2s"
step = "500ms"
`))
	if err != nil {
		t.Fatal(err)
	}
	if s := sc.Optimize.Search; !math.IsInf(s.Objective.MaxAddedCostPct, 1) || len(s.Delays) != 5 || s.Delays[0] != 0 {
		t.Errorf("search %+v", s)
	}
}

// optimizeBadCases are the inputs of TestOptimizeTableBad, kept at package level so that
// the fuzz targets start from them too.
var optimizeBadCases = []struct {
	name string
	toml string
	line int
	key  string
	msg  string
}{
	{"unknown key", `
[optimize]
delay = ["1s"]
`, 3, "optimize.delay", `did you mean "delays"`},
	{"unknown objective", `
[optimize]
objective = "p50"
`, 3, "optimize.objective", `allowed: "p95", "p99", "cost", "knee"`},
	{"bare number delay", `
[optimize]
delays = [1]
`, 3, "optimize.delays[0]", "want a duration string"},
	{"negative delay", `
[optimize]
delays = ["1s", "-1s"]
`, 3, "optimize.delays[1]", "negative duration"},
	{"empty delays", `
[optimize]
delays = []
`, 3, "optimize.delays", "empty list"},
	{"delays and range", `
[optimize]
delays = ["1s"]
step = "1s"
`, 4, "optimize.step", "exclusive"},
	{"range without step", `
[optimize]
from = "1s"
to = "2s"
`, 2, "optimize.step", "missing"},
	{"range backwards", `
[optimize]
from = "2s"
to = "1s"
step = "100ms"
`, 4, "optimize.to", "below from"},
	{"range too long", `
[optimize]
to = "1h"
step = "1ms"
`, 4, "optimize.step", "at most 1000"},
	{"zero step", `
[optimize]
to = "1s"
step = "0s"
`, 4, "optimize.step", "must be > 0"},
	{"copies out of range", `
[optimize]
copies = [1, 8]
`, 3, "optimize.copies[1]", "want copies beyond the primary in [1, 7]"},
	{"unknown target", `
[optimize]
targets = ["big", "gpt"]
`, 3, "optimize.targets[1]", `model "gpt" is not defined; defined models: big, small`},
	{"cost without sla", `
[optimize]
objective = "cost"
`, 3, "optimize.objective", `needs sla`},
	{"cost without sla in a class", `
[optimize]
sla = "1s"
[optimize.class.a]
objective = "knee"
[optimize.class.b]
objective = "cost"
sla = "0s"
`, 8, "optimize.class.b.sla", "want a latency > 0"},
	{"unknown class table", `
[optimize]
[optimize.class.c]
objective = "knee"
`, 3, "optimize.class.c", `class "c" is not defined; defined classes: a, b`},
	{"unknown class in list", `
[optimize]
classes = ["a", "z"]
`, 3, "optimize.classes[1]", `class "z" is not defined`},
	{"requests", `
[optimize]
requests = 0
`, 3, "optimize.requests", "out of range"},
	{"confidence", `
[optimize]
confidence = 95
`, 3, "optimize.confidence", "[0.5, 0.9999]"},
	{"hedged pct", `
[optimize]
max_hedged_pct = 150
`, 3, "optimize.max_hedged_pct", "[0, 100]"},
	{"cost pct", `
[optimize]
max_added_cost_pct = -1
`, 3, "optimize.max_added_cost_pct", "≥ 0"},
	{"min gain", `
[optimize]
min_gain_pct = nan
`, 3, "optimize.min_gain_pct", "out of range"},
	{"significance type", `
[optimize]
require_significant = "yes"
`, 3, "optimize.require_significant", "want true or false"},
	{"checked on one-call classes", `
[optimize]
objective = "checked"
target = "2s"
`, 3, "optimize.objective", `class "a": objective "checked" (every fail-open step of a pipeline turn answered in time) needs a pipeline class with steps; a one-call class has no steps to check: use "answered"`},
	{"checked on a one-call class's table", `
[optimize]
target = "2s"
[optimize.class.b]
objective = "checked"
`, 5, "optimize.class.b.objective", `class "b": objective "checked"`},
	{"class table key", `
[optimize]
[optimize.class.a]
requests = 10
`, 4, "optimize.class.a.requests", "unknown key"},
}

func TestOptimizeTableBad(t *testing.T) {
	tests := optimizeBadCases
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.toml", []byte(twoClasses+tc.toml))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v; want an *Error", err)
			}
			line := tc.line + strings.Count(twoClasses, "\n")
			if e.Line != line || e.Key != tc.key || !strings.Contains(e.Msg, tc.msg) {
				t.Errorf("got %s:%d %s: %s\nwant line %d, key %s, msg containing %q", e.File, e.Line, e.Key, e.Msg, line, tc.key, tc.msg)
			}
		})
	}
}

// TestReadmeOptimizeExample parses the [optimize] example of
// ../scenarios/README.md after a scenario that has its class.
func TestReadmeOptimizeExample(t *testing.T) {
	data, err := os.ReadFile("../scenarios/README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(data), "## `[optimize]` (optional)")
	if !ok {
		t.Fatal("README.md has no [optimize] section")
	}
	_, block, ok := strings.Cut(sec, "```toml\n")
	if !ok {
		t.Fatal("no toml block in the [optimize] section")
	}
	block, _, _ = strings.Cut(block, "```")
	sc, err := Parse("README.md", []byte(strings.Replace(twoClasses, `name = "b"`, `name = "strict-sla"`, 1)+block))
	if err != nil {
		t.Fatal(err)
	}
	if o := sc.Optimize.For("strict-sla").Objective; o.Name() != "cost" || o.SLA != 1200*time.Millisecond {
		t.Errorf("strict-sla objective %+v", o)
	}
	if d := sc.Optimize.For("a").Delays; len(d) != 31 {
		t.Errorf("class a: %d delays; want 31", len(d))
	}
}

// TestGroupObjectiveKeys: group_objective and group_weights reach the
// settings; an unknown objective, a weight of an undefined class and a
// negative weight are errors naming the key.
func TestGroupObjectiveKeys(t *testing.T) {
	base := `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "a"
share = 0.5
[[classes]]
name = "b"
share = 0.5
[optimize]
`
	sc, err := Parse("g.toml", []byte(base+"group_objective = \"worst\"\ngroup_weights = { a = 3, b = 1 }\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s := sc.Optimize; s.GroupObjective != "worst" || s.GroupWeights["a"] != 3 || s.GroupWeights["b"] != 1 {
		t.Errorf("settings %q %v", s.GroupObjective, s.GroupWeights)
	}
	if sc, err := Parse("g.toml", []byte(base)); err != nil || sc.Optimize.GroupObjective != "weighted" {
		t.Errorf("default: %v, %v; want weighted", sc, err)
	}
	for _, tt := range []struct{ toml, want string }{
		{"group_objective = \"best\"\n", `optimize.group_objective: unknown value "best"`},
		{"group_weights = { c = 1 }\n", `optimize.group_weights.c: class "c" is not defined`},
		{"group_weights = { a = -1 }\n", `optimize.group_weights.a: -1 is out of range`},
	} {
		if _, err := Parse("g.toml", []byte(base+tt.toml)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v; want %q", tt.toml, err, tt.want)
		}
	}
}
