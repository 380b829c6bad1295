package sim

import (
	"time"

	"github.com/hedgesim/hedgesim/dist"
)

// A pipeline class is a request made of several model calls: the help-chat
// turn guard(question) → retrieval → streamed chat → guard(question +
// answer), an agent's loop of tool calls, a fan-out to k retrieval shards
// or judges. Its steps run in stages, one after another; the calls of a
// stage start together, and the stage is done when Need of them are done.
// Each call is a request of its own to the engine — its own hedge policy,
// winner and error rules, retries, deadline and fail-open/closed rule — so
// pipelines share providers, queues and rate limits with every other
// request, and hedging inside a step works exactly as in a one-call class.
// The class's Deadline is the end-to-end deadline.
//
// A call is done when it is answered or when it ends without an answer
// under a fail-open step (its OnTimeout is FailOpen: a deadline, an error,
// an invalid answer): the pipeline goes on, degraded — the turn went
// through unchecked — unless the step is the one that gives the answer
// (Pipeline.AnswerStep): a request that went through without its answer
// is a miss, with that call's outcome. A call that ends without an answer under a fail-closed
// step fails; a stage with too many failed calls to reach Need ends the
// request as a miss, with that call's outcome. A request whose end-to-end
// deadline passes ends as a timeout; the calls still running are let go of
// (cancelled as losers are). When a stage is done, its calls still running
// are let go of too.

// MaxPipelineSteps bounds Pipeline.Steps (a request's degraded steps are
// kept as bits of one word).
const MaxPipelineSteps = 64

// MaxPipelineCalls bounds the calls one pipeline request may make: the sum
// over its steps of FanOut × MaxRepeat.
const MaxPipelineCalls = 4096

// Pipeline is the structure of a pipeline class.
type Pipeline struct {
	// Steps are the pipeline's steps, in the order they run: every step of
	// stage i comes before every step of stage i+1. 1 to MaxPipelineSteps.
	Steps []Step
	// Stages are the steps that start together, in order; each step is in
	// exactly one stage.
	Stages []Stage
}

// Stage is a group of steps whose calls start together.
type Stage struct {
	// Steps are indices in Pipeline.Steps, ascending and consecutive.
	Steps []int
	// Need is how many of the stage's calls (the sum of its steps'
	// FanOut) must be done for the stage to be done: 1 waits for any, the
	// number of calls (or 0) for all, k between for k of n.
	Need int
}

// Step is one step of a pipeline: a call made FanOut times at once, or
// repeated a random number of times in a row.
type Step struct {
	// Name identifies the step in reports and token references.
	Name string
	// Call is the call the step makes: its models and hedge policy
	// (Policy), token counts, per-call deadline and fail-open/closed rule
	// (OnTimeout), retries. Its Name, Share, Clients, ThinkTime and
	// Pipeline are unused.
	Call Class
	// FanOut ≥ 1 is how many calls of the step start at once, each with
	// its own draws (the same step k times: shards, judges).
	FanOut int
	// Repeat, when set, is the number of times the step's call runs, one
	// after another (an agent's tool-call iterations): a draw rounded to
	// a whole number, at most MaxRepeat. A draw of 0 skips the step: it
	// makes no call and its stage takes no time (the step's time is 0),
	// and the request goes on to the next stage. A repeated step has
	// FanOut 1 and a stage of its own.
	Repeat dist.Dist
	// MaxRepeat ≥ 1 caps Repeat; it is required with Repeat.
	MaxRepeat int
	// InputGrowth is the input tokens added per earlier iteration of a
	// repeated step (the context an agent accumulates); ≥ 0.
	InputGrowth float64
	// InputFrom are token counts of earlier steps added to each call's
	// drawn input tokens (the answer guard reads the question and the
	// answer).
	InputFrom []TokenRef
	// Visible marks the step whose answer streams to the user: the time
	// to first visible token is its call's start plus its first token
	// (TTFT), from the request's arrival.
	Visible bool
}

// TokenRef names token counts of an earlier step: its input or output
// tokens, summed over its calls (every iteration and fanned-out call).
type TokenRef struct {
	Step   int  // index in Pipeline.Steps of a step in an earlier stage
	Output bool // the output tokens; otherwise the input tokens
}

// Calls returns the most calls the pipeline's steps can make in one
// request: the sum over its steps of FanOut × MaxRepeat (1 for a step that
// does not repeat); at most MaxPipelineCalls in a valid pipeline.
func (p *Pipeline) Calls() int {
	n := 0
	for i := range p.Steps {
		s := &p.Steps[i]
		n += s.FanOut * max(1, s.MaxRepeat)
	}
	return n
}

// AnswerStep returns the index of the step that gives the user the answer:
// the step marked Visible, or, without one, the last step. A request in
// which a call of the answer step ended without an answer has none to give,
// whatever the step's fail-open/closed rule: when the step fails open, the
// request is counted with that call's outcome (a timeout open, an error, an
// invalid answer), a miss, not a degraded answer. Only the other fail-open
// steps are checks, which a request may go through degraded.
func (p *Pipeline) AnswerStep() int {
	if v := p.visibleStep(); v >= 0 {
		return v
	}
	return len(p.Steps) - 1
}

// OneCall reports whether the pipeline is one plain step — a single call,
// neither fanned out nor repeated nor visible. Such a pipeline is that call
// written as a class, and is counted and reported exactly as the class
// would be: a call that fails open is a timeout open (or an error, an
// invalid answer), not an answer — as for the answer step of every
// pipeline (AnswerStep). Every pipeline counts a request that went through
// its last stage, its answer step answered, as answered, checked or
// degraded (PipelineResult).
func (p *Pipeline) OneCall() bool {
	return len(p.Steps) == 1 && p.Steps[0].FanOut == 1 && p.Steps[0].Repeat == nil && !p.Steps[0].Visible
}

// validate checks the pipeline's structure and each step's call; models is
// the number of models, deadline the class's end-to-end deadline.
func (p *Pipeline) validate(models int) error {
	if len(p.Steps) == 0 {
		return invalid("a pipeline needs at least one step")
	}
	if len(p.Steps) > MaxPipelineSteps {
		return invalid("%d steps; at most %d", len(p.Steps), MaxPipelineSteps)
	}
	if n := p.Calls(); n > MaxPipelineCalls {
		return invalid("up to %d calls per request (fan-out × max repeat summed over steps); at most %d", n, MaxPipelineCalls)
	}
	stageOf := make([]int, len(p.Steps))
	for i := range stageOf {
		stageOf[i] = -1
	}
	next := 0
	for g, st := range p.Stages {
		if len(st.Steps) == 0 {
			return invalid("stage %d has no steps", g)
		}
		calls := 0
		for _, s := range st.Steps {
			if s != next {
				return invalid("stage %d: steps must be listed once each, in order (want step %d, got %d)", g, next, s)
			}
			stageOf[s] = g
			next++
			calls += p.Steps[s].FanOut
		}
		if st.Need < 0 || st.Need > calls {
			return invalid("stage %d waits for %d of its %d calls; want 1 to %d", g, st.Need, calls, calls)
		}
	}
	if next != len(p.Steps) {
		return invalid("step %d (%s) is in no stage", next, p.Steps[next].Name)
	}
	names := make(map[string]bool, len(p.Steps))
	for i := range p.Steps {
		s := &p.Steps[i]
		if names[s.Name] {
			return invalid("duplicate step name %q", s.Name)
		}
		names[s.Name] = true
		if s.FanOut < 1 {
			return invalid("step %s: fan-out %d; want ≥ 1", s.Name, s.FanOut)
		}
		if s.Repeat != nil {
			if s.MaxRepeat < 1 {
				return invalid("step %s: a repeated step needs a maximum number of iterations ≥ 1", s.Name)
			}
			if s.FanOut != 1 || len(p.Stages[stageOf[i]].Steps) != 1 {
				return invalid("step %s: a repeated step has a stage of its own and a fan-out of 1", s.Name)
			}
		} else if s.MaxRepeat > 1 {
			return invalid("step %s: a maximum number of iterations without repeat", s.Name)
		}
		if !(s.InputGrowth >= 0) || s.InputGrowth > 1e12 {
			return invalid("step %s: input growth %g tokens per iteration; want a number in [0, 1e12]", s.Name, s.InputGrowth)
		}
		for _, ref := range s.InputFrom {
			if ref.Step < 0 || ref.Step >= len(p.Steps) || stageOf[ref.Step] >= stageOf[i] {
				return invalid("step %s: a token reference to a step that has not ended before it", s.Name)
			}
		}
		if c := &s.Call; c.Clients > 0 || c.Pipeline != nil {
			return invalid("step %s: a step is one call; it cannot be closed-loop or a pipeline", s.Name)
		}
	}
	return nil
}

// pipelined reports whether any class of cfg is a pipeline.
func (cfg *Config) pipelined() bool {
	for i := range cfg.Classes {
		if cfg.Classes[i].Pipeline != nil {
			return true
		}
	}
	return false
}

// withSteps returns the configuration the engine runs for cfg: cfg itself
// when no class is a pipeline; otherwise a copy whose classes are cfg's
// followed by one class per pipeline step (Share 0: only pipelines start
// their requests), in order of class and step. steps[c] is the index of
// the first step class of pipeline class c (0 for other classes).
func (cfg *Config) withSteps() (run *Config, steps []int) {
	if !cfg.pipelined() {
		return cfg, nil
	}
	c := *cfg
	c.Classes = append([]Class(nil), cfg.Classes...)
	steps = make([]int, len(cfg.Classes))
	for i := range cfg.Classes {
		pl := cfg.Classes[i].Pipeline
		if pl == nil {
			continue
		}
		steps[i] = len(c.Classes)
		// The arrival draws the first call's token counts, as a one-call
		// class draws its own.
		c.Classes[i].InputTokens = pl.Steps[0].Call.InputTokens
		c.Classes[i].OutputTokens = pl.Steps[0].Call.OutputTokens
		for j := range pl.Steps {
			call := pl.Steps[j].Call
			call.Name = cfg.Classes[i].Name + "/" + pl.Steps[j].Name
			call.Share = 0
			c.Classes = append(c.Classes, call)
		}
	}
	return &c, steps
}

// noHedgingPipeline returns a copy of p whose steps do not hedge
// (NoHedging on each step's policy).
func noHedgingPipeline(p *Pipeline) *Pipeline {
	q := *p
	q.Steps = append([]Step(nil), p.Steps...)
	for i := range q.Steps {
		NoHedging(&q.Steps[i].Call.Policy)
	}
	return &q
}

// stepDeadlineLonger returns the names of p's steps whose own deadline is
// longer than the end-to-end deadline e2e (> 0): the end-to-end deadline
// cuts them first, so their own never fires.
func (p *Pipeline) stepDeadlineLonger(e2e time.Duration) []string {
	var out []string
	for i := range p.Steps {
		if d := p.Steps[i].Call.Deadline; e2e > 0 && d > e2e {
			out = append(out, p.Steps[i].Name)
		}
	}
	return out
}
