package scenario

import (
	"strconv"
	"strings"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// stepTable is one [[classes.steps]] entry of a pipeline class: a call, as
// a one-call class has it, and where it sits in the pipeline.
type stepTable struct {
	Name         *string     `toml:"name"`
	InputTokens  *dist.Spec  `toml:"input_tokens"`
	OutputTokens *dist.Spec  `toml:"output_tokens"`
	Deadline     *Duration   `toml:"deadline"`
	OnTimeout    *string     `toml:"on_timeout"`
	Hedge        *hedgeTable `toml:"hedge"`
	Retry        *retryTable `toml:"retry"`
	AttemptRetry *retryTable `toml:"attempt_retry"`
	// The pipeline: group runs consecutive steps as one stage, fan_out
	// starts the call k times at once, wait_for says how many calls of the
	// stage must be done ("all", "any" or a count), repeat and max_repeat
	// repeat it, input_growth adds tokens per earlier iteration, input_from
	// adds earlier steps' tokens, visible marks the step the user sees.
	Group       *string    `toml:"group"`
	FanOut      *int64     `toml:"fan_out"`
	WaitFor     *waitFor   `toml:"wait_for"`
	Repeat      *dist.Spec `toml:"repeat"`
	MaxRepeat   *int64     `toml:"max_repeat"`
	InputGrowth *float64   `toml:"input_growth"`
	InputFrom   []string   `toml:"input_from"`
	Visible     *bool      `toml:"visible"`
}

// waitFor is wait_for as written: "all", "any" or a whole number of calls.
type waitFor struct{ raw any }

// UnmarshalTOML implements toml.Unmarshaler; pipeline checks the value.
func (w *waitFor) UnmarshalTOML(v any) error {
	w.raw = v
	return nil
}

// oneCallKeys are the keys of a one-call class that a pipeline class has
// in its steps instead; notForPipelines those a pipeline class cannot have
// at all.
var (
	oneCallKeys     = []string{"input_tokens", "output_tokens", "hedge", "retry", "attempt_retry"}
	notForPipelines = []string{"clients", "think_time", "match"}
)

// pipelineClass builds the pipeline of the class at key from its steps,
// recording problems. The class's deadline and on_timeout are the
// end-to-end ones.
func (c *checker) pipelineClass(key string, t *classTable, cl *sim.Class) {
	set := map[string]bool{
		"input_tokens": t.InputTokens != nil, "output_tokens": t.OutputTokens != nil, "hedge": t.Hedge != nil,
		"retry": t.Retry != nil, "attempt_retry": t.AttemptRetry != nil, "clients": t.Clients != nil,
		"think_time": t.ThinkTime != nil, "match": t.Match != nil,
	}
	for _, k := range oneCallKeys {
		if set[k] {
			c.keep(c.errorf(key+"."+k, "a pipeline class (one with [[classes.steps]]) has no %s of its own: each step is a call with its own; move %s into the steps", k, k))
		}
	}
	for _, k := range notForPipelines {
		if set[k] {
			c.keep(c.errorf(key+"."+k, "a pipeline class (one with [[classes.steps]]) takes open arrivals by its share: it cannot be closed-loop (clients, think_time) or take replayed requests by match; remove %s, or write the class without steps", k))
		}
	}
	if len(t.Steps) == 0 {
		c.keep(c.errorf(key+".steps", "a pipeline needs at least one step; add [[classes.steps]] tables, or drop steps for a one-call class"))
		return
	}
	if len(t.Steps) > sim.MaxPipelineSteps {
		c.keep(c.errorf(key+".steps", "%d steps; at most %d", len(t.Steps), sim.MaxPipelineSteps))
		return
	}
	if t.Deadline != nil {
		cl.Deadline = time.Duration(*t.Deadline)
	}
	var err error
	cl.OnTimeout, err = enum(c, key+".on_timeout", t.OnTimeout, sim.FailClosed, sim.FailOpen, sim.FailClosed)
	c.keep(err)
	pl := &sim.Pipeline{}
	index := map[string]int{}
	stageOf := make([]int, len(t.Steps))
	group := ""
	for i := range t.Steps {
		st := &t.Steps[i]
		sk := indexKey(key+".steps", i)
		s := c.step(sk, st)
		if i == 0 {
			c.keep(c.replayFirstStep(sk, st, &s))
		}
		if s.Name != "" {
			if j, dup := index[s.Name]; dup {
				c.keep(c.errorf(sk+".name", "duplicate step name %q; steps[%d] (line %d) already uses it", s.Name, j, c.lines.lineOf(indexKey(key+".steps", j)+".name")))
			} else {
				index[s.Name] = i
			}
		}
		g := ""
		if st.Group != nil {
			if g = *st.Group; strings.TrimSpace(g) == "" {
				c.keep(c.errorf(sk+".group", "blank; name the group its parallel steps share, or omit group"))
			}
		}
		switch {
		case i > 0 && g != "" && g == group:
			stageOf[i] = len(pl.Stages) - 1
			pl.Stages[stageOf[i]].Steps = append(pl.Stages[stageOf[i]].Steps, i)
		default:
			if g != "" && c.groupUsed(pl, t.Steps, g) {
				c.keep(c.errorf(sk+".group", "group %q was used by steps before, not right before this one; the steps of a group must be consecutive", g))
			}
			pl.Stages = append(pl.Stages, sim.Stage{Steps: []int{i}})
			stageOf[i] = len(pl.Stages) - 1
		}
		group = g
		for j, ref := range st.InputFrom {
			rk := indexKey(sk+".input_from", j)
			name, what, ok := strings.Cut(ref, ".")
			if !ok || (what != "input" && what != "output") {
				c.keep(c.errorf(rk, "%q is not a token reference; write STEP.input or STEP.output, such as \"guard-question.input\"", ref))
				continue
			}
			k, found := index[name]
			switch {
			case !found && c.laterStep(t.Steps[i+1:], name):
				c.keep(c.errorf(rk, "step %q runs after this one; a step can only read the tokens of steps in earlier stages", name))
			case !found:
				c.keep(c.errorf(rk, "no step %q before this one; steps so far: %s", name, strings.Join(stepNames(t.Steps[:i]), ", ")))
			case stageOf[k] == stageOf[i]:
				c.keep(c.errorf(rk, "step %q runs in parallel with this one (group %q); a step can only read the tokens of steps in earlier stages", name, g))
			default:
				s.InputFrom = append(s.InputFrom, sim.TokenRef{Step: k, Output: what == "output"})
			}
		}
		pl.Steps = append(pl.Steps, s)
	}
	visible := -1
	for i := range pl.Steps {
		if pl.Steps[i].Visible {
			if visible >= 0 {
				c.keep(c.errorf(indexKey(key+".steps", i)+".visible", "steps[%d] is already the visible step; one step streams to the user", visible))
			}
			visible = i
		}
	}
	c.stages(key, t.Steps, pl)
	if calls := pl.Calls(); calls > sim.MaxPipelineCalls {
		c.keep(c.errorf(key+".steps", "up to %d calls per request (fan_out × max_repeat, summed over the steps); at most %d", calls, sim.MaxPipelineCalls))
	}
	cl.Pipeline = pl
}

// step builds the step at key from t, recording problems.
func (c *checker) step(key string, t *stepTable) sim.Step {
	var s sim.Step
	switch {
	case t.Name == nil || strings.TrimSpace(*t.Name) == "":
		c.keep(c.errorf(key+".name", "missing or blank; every step needs a name unique in its pipeline"))
	case strings.ContainsAny(*t.Name, "."):
		c.keep(c.errorf(key+".name", "%q contains a dot, which token references (STEP.input) use; choose another name", *t.Name))
	default:
		if err := c.checkName(key+".name", "step name", *t.Name); err != nil {
			c.keep(err)
		} else {
			s.Name = *t.Name
		}
	}
	cl := &s.Call
	cl.Name = s.Name
	var err error
	cl.InputTokens, err = c.tokens(key+".input_tokens", t.InputTokens)
	c.keep(err)
	cl.OutputTokens, err = c.tokens(key+".output_tokens", t.OutputTokens)
	c.keep(err)
	if t.Deadline != nil {
		cl.Deadline = time.Duration(*t.Deadline)
	}
	cl.OnTimeout, err = enum(c, key+".on_timeout", t.OnTimeout, sim.FailClosed, sim.FailOpen, sim.FailClosed)
	c.keep(err)
	c.callPolicy(key, t.Hedge, t.Retry, t.AttemptRetry, cl)
	s.FanOut = 1
	if t.FanOut != nil {
		if n := *t.FanOut; n < 1 || n > sim.MaxPipelineCalls {
			c.keep(c.errorf(key+".fan_out", "%d is out of range; want 1 to %d calls started at once", n, sim.MaxPipelineCalls))
		} else {
			s.FanOut = int(n)
		}
	}
	if t.Repeat != nil {
		d, err := c.dist(key+".repeat", t.Repeat, "iterations", false)
		c.keep(err)
		s.Repeat = d
		if t.MaxRepeat == nil {
			c.keep(c.errorf(key+".repeat", "a repeated step needs max_repeat, the most iterations one request may make (the draw is rounded and capped there), such as max_repeat = 20"))
		}
		if t.FanOut != nil && s.FanOut != 1 {
			c.keep(c.errorf(key+".fan_out", "a repeated step runs one call per iteration; drop fan_out or repeat"))
		}
	}
	if t.MaxRepeat != nil {
		switch n := *t.MaxRepeat; {
		case t.Repeat == nil:
			c.keep(c.errorf(key+".max_repeat", "max_repeat needs repeat, the distribution of the number of iterations"))
		case n < 1 || n > sim.MaxPipelineCalls:
			c.keep(c.errorf(key+".max_repeat", "%d is out of range; want 1 to %d iterations", n, sim.MaxPipelineCalls))
		default:
			s.MaxRepeat = int(n)
		}
	}
	if t.InputGrowth != nil {
		switch g := *t.InputGrowth; {
		case t.Repeat == nil:
			c.keep(c.errorf(key+".input_growth", "input_growth applies to a repeated step (repeat); remove it or add repeat"))
		case !(g >= 0) || g > 1e9:
			c.keep(c.errorf(key+".input_growth", "%g is out of range; want input tokens added per earlier iteration in [0, 1e9]", g))
		default:
			s.InputGrowth = g
		}
	}
	if t.Visible != nil {
		s.Visible = *t.Visible
	}
	return s
}

// stages checks each stage's wait_for and fills in Need, recording
// problems.
func (c *checker) stages(key string, steps []stepTable, pl *sim.Pipeline) {
	for g := range pl.Stages {
		st := &pl.Stages[g]
		calls := 0
		for _, s := range st.Steps {
			calls += pl.Steps[s].FanOut
		}
		if len(st.Steps) > 1 {
			for _, s := range st.Steps {
				if steps[s].Repeat != nil {
					c.keep(c.errorf(indexKey(key+".steps", s)+".group", "a repeated step runs in a stage of its own; drop group or repeat"))
				}
			}
		}
		// A fan_out that could not be read (out of range, wrong type)
		// counts as 1 call above; the stage's size is then unknown, and a
		// wait_for checked against it would be reported before the real
		// problem.
		sized := true
		for _, s := range st.Steps {
			if c.hasErrorsWithin(indexKey(key+".steps", s) + ".fan_out") {
				sized = false
			}
		}
		set := -1
		for _, s := range st.Steps {
			w := steps[s].WaitFor
			if w == nil {
				continue
			}
			wk := indexKey(key+".steps", s) + ".wait_for"
			if set >= 0 {
				c.keep(c.errorf(wk, "the group's wait_for is already set by steps[%d]; set it on one step of the group", set))
				continue
			}
			set = s
			if !sized {
				continue
			}
			need, err := c.need(wk, w.raw, calls)
			c.keep(err)
			st.Need = need
		}
	}
}

// need reads a wait_for value against a stage of calls calls.
func (c *checker) need(key string, v any, calls int) (int, error) {
	switch x := v.(type) {
	case string:
		switch x {
		case "all":
			return 0, nil
		case "any":
			return 1, nil
		}
		if n, err := strconv.Atoi(x); err == nil {
			return c.need(key, int64(n), calls)
		}
		return 0, c.errorf(key, "%q is not allowed; want \"all\", \"any\" or a number of calls from 1 to %d", x, calls)
	case int64:
		if x < 1 || x > int64(calls) {
			return 0, c.errorf(key, "%d of %d calls; want 1 to %d (k of n needs k ≤ n)", x, calls, calls)
		}
		return int(x), nil
	}
	return 0, c.errorf(key, "%s is not allowed; want \"all\", \"any\" or a number of calls from 1 to %d", describe(v), calls)
}

// groupUsed reports whether a step of pl so far belongs to group g.
func (c *checker) groupUsed(pl *sim.Pipeline, steps []stepTable, g string) bool {
	for _, st := range pl.Stages {
		for _, s := range st.Steps {
			if steps[s].Group != nil && *steps[s].Group == g {
				return true
			}
		}
	}
	return false
}

// laterStep reports whether one of steps is called name.
func (c *checker) laterStep(steps []stepTable, name string) bool {
	for i := range steps {
		if steps[i].Name != nil && *steps[i].Name == name {
			return true
		}
	}
	return false
}

func stepNames(steps []stepTable) []string {
	out := []string{}
	for i := range steps {
		if steps[i].Name != nil {
			out = append(out, strconv.Quote(*steps[i].Name))
		}
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}
