package scenario

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// pipelineHead is a valid scenario up to its pipeline class's steps.
const pipelineHead = `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "turn"
deadline = "30s"
`

// step returns a [[classes.steps]] table named name with extra lines.
func step(name string, extra ...string) string {
	return "[[classes.steps]]\nname = \"" + name + "\"\n" + strings.Join(extra, "\n") + "\n"
}

// TestPipelineParses: a pipeline's steps, groups, fan-outs, waits, loops
// and token references become the sim.Pipeline they say.
func TestPipelineParses(t *testing.T) {
	src := pipelineHead +
		step("guard", `deadline = "3s"`, `on_timeout = "fail_open"`, `input_tokens = { kind = "constant", value = 400 }`, "[classes.steps.hedge]", `delay = "1s"`, "max_copies = 2") +
		step("a", `group = "judges"`, "fan_out = 3", `wait_for = 2`) +
		step("b", `group = "judges"`) +
		step("agent", `repeat = { kind = "uniform", min = 1, max = 5 }`, "max_repeat = 5", "input_growth = 100", `input_from = ["guard.input", "a.output"]`, "visible = true")
	s, err := Parse("p.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	cl := s.Config.Classes[0]
	pl := cl.Pipeline
	if pl == nil {
		t.Fatal("no pipeline")
	}
	if cl.Deadline != 30*time.Second || cl.OnTimeout != sim.FailClosed {
		t.Errorf("end to end: %v %v", cl.Deadline, cl.OnTimeout)
	}
	if len(pl.Steps) != 4 || len(pl.Stages) != 3 {
		t.Fatalf("%d steps in %d stages, want 4 in 3", len(pl.Steps), len(pl.Stages))
	}
	if st := pl.Stages[1]; len(st.Steps) != 2 || st.Need != 2 || pl.Steps[1].FanOut != 3 {
		t.Errorf("judges: %+v, fan-out %d", st, pl.Steps[1].FanOut)
	}
	g := pl.Steps[0].Call
	if g.Deadline != 3*time.Second || g.OnTimeout != sim.FailOpen || g.Policy.Copies != 2 {
		t.Errorf("guard call: %+v", g)
	}
	ag := pl.Steps[3]
	if ag.Repeat == nil || ag.MaxRepeat != 5 || ag.InputGrowth != 100 || !ag.Visible ||
		len(ag.InputFrom) != 2 || ag.InputFrom[0] != (sim.TokenRef{Step: 0}) || ag.InputFrom[1] != (sim.TokenRef{Step: 1, Output: true}) {
		t.Errorf("agent: %+v", ag)
	}
	if _, err := sim.Run(&s.Config); err != nil {
		t.Fatal(err)
	}
}

// TestPipelineBad: every mistake in a pipeline gets the file, line, key and
// what to do.
func TestPipelineBad(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		line      int
		key, msg  string
	}{
		{"unknown step", pipelineHead + step("a", `input_from = ["nope.output"]`), 11, "classes[0].steps[0].input_from[0]", `no step "nope" before this one`},
		{"later step", pipelineHead + step("a", `input_from = ["b.output"]`) + step("b"), 11, "classes[0].steps[0].input_from[0]", `step "b" runs after this one`},
		{"own stage", pipelineHead + step("a", `group = "g"`) + step("b", `group = "g"`, `input_from = ["a.output"]`), 15, "classes[0].steps[1].input_from[0]", "runs in parallel with this one"},
		{"not a reference", pipelineHead + step("a") + step("b", `input_from = ["a"]`), 14, "classes[0].steps[1].input_from[0]", "write STEP.input or STEP.output"},
		{"k > n", pipelineHead + step("a", "fan_out = 3", "wait_for = 4"), 12, "classes[0].steps[0].wait_for", "4 of 3 calls; want 1 to 3 (k of n needs k ≤ n)"},
		{"bad wait", pipelineHead + step("a", `wait_for = "most"`), 11, "classes[0].steps[0].wait_for", `"most" is not allowed; want "all", "any"`},
		{"loop without max", pipelineHead + step("a", `repeat = { kind = "constant", value = 3 }`), 11, "classes[0].steps[0].repeat", "needs max_repeat"},
		{"max without loop", pipelineHead + step("a", "max_repeat = 3"), 11, "classes[0].steps[0].max_repeat", "needs repeat"},
		{"repeat in a group", pipelineHead + step("a", `group = "g"`) + step("b", `group = "g"`, `repeat = { kind = "constant", value = 3 }`, "max_repeat = 3"), 14, "classes[0].steps[1].group", "a stage of its own"},
		{"no steps", pipelineHead + "steps = []\n", 9, "classes[0].steps", "at least one step"},
		{"one-call key", pipelineHead + "input_tokens = { kind = \"constant\", value = 1 }\n" + step("a"), 9, "classes[0].input_tokens", "move input_tokens into the steps"},
		{"one-call hedge", pipelineHead + "[classes.hedge]\ndelay = \"1s\"\n" + step("a"), 9, "classes[0].hedge", "has no hedge of its own"},
		{"duplicate step", pipelineHead + step("a") + step("a"), 13, "classes[0].steps[1].name", `duplicate step name "a"`},
		{"dot in name", pipelineHead + step("a.b"), 10, "classes[0].steps[0].name", "contains a dot"},
		{"two visible", pipelineHead + step("a", "visible = true") + step("b", "visible = true"), 14, "classes[0].steps[1].visible", "already the visible step"},
		{"group not consecutive", pipelineHead + step("a", `group = "g"`) + step("b") + step("c", `group = "g"`), 17, "classes[0].steps[2].group", "must be consecutive"},
		{"misspelt key", pipelineHead + step("a", "fanout = 2"), 11, "classes[0].steps[0].fanout", `did you mean "fan_out"`},
		{"fan-out 0", pipelineHead + step("a", "fan_out = 0"), 11, "classes[0].steps[0].fan_out", "want 1 to 4096"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("bad.toml", []byte(tc.src))
			if err == nil {
				t.Fatalf("no error; want %d: %s: …%s…", tc.line, tc.key, tc.msg)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is a %T, not a *scenario.Error", err, err)
			}
			if e.Line != tc.line || e.Key != tc.key || !strings.Contains(e.Msg, tc.msg) {
				t.Errorf("got  %v\nwant bad.toml:%d: %s: …%s…", err, tc.line, tc.key, tc.msg)
			}
		})
	}
}

// TestPipelineBadFanOutHidesWaitFor: a fan_out that cannot be read (out of
// range, or not an integer), in the file or by --set, is the one problem
// reported; the stage's wait_for is not checked against the 1 call the
// unread fan_out stands for ("5 of 1 calls"), which came first before.
func TestPipelineBadFanOutHidesWaitFor(t *testing.T) {
	const key = "classes[0].steps[0].fan_out"
	for _, tc := range []struct {
		name, fanOut string
		set          []string
		msg          string
	}{
		{"too many in the file", "fan_out = 4097", nil, "4097 is out of range; want 1 to 4096"},
		{"float in the file", "fan_out = 6.5", nil, "wrong type"},
		{"too many by --set", "fan_out = 6", []string{key + "=4097"}, "4097 is out of range; want 1 to 4096"},
		{"float by --set", "fan_out = 6", []string{key + "=6.5"}, "wrong type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := pipelineHead + step("a", tc.fanOut, "wait_for = 5")
			_, err := ParseWith("bad.toml", []byte(src), &Options{Set: tc.set})
			var e *Error
			if err == nil || !errors.As(err, &e) {
				t.Fatalf("error %v (%T); want a *scenario.Error at %s", err, err, key)
			}
			var list Errors
			if errors.As(err, &list) {
				t.Errorf("%d problems:\n%v\nwant the fan_out one alone", len(list), err)
			}
			if e.Key != key || !strings.Contains(e.Msg, tc.msg) {
				t.Errorf("got %v; want %s: …%s…", err, key, tc.msg)
			}
		})
	}
	// A readable fan_out still has its wait_for checked against it.
	_, err := Parse("bad.toml", []byte(pipelineHead+step("a", "fan_out = 4", "wait_for = 5")))
	var e *Error
	if !errors.As(err, &e) || e.Key != "classes[0].steps[0].wait_for" || !strings.Contains(e.Msg, "5 of 4 calls") {
		t.Errorf("got %v; want classes[0].steps[0].wait_for: 5 of 4 calls", err)
	}
}
