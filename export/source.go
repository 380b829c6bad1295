package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// ScenarioPolicies returns the policy each class of cfg is configured with
// (Source FromScenario).
func ScenarioPolicies(cfg *sim.Config) *Document {
	d := &Document{Format: DocumentFormat, Version: DocumentVersion, Scenario: cfg.Name, Source: FromScenario}
	for i := range cfg.Classes {
		cl := &cfg.Classes[i]
		if cl.Pipeline == nil {
			d.Classes = append(d.Classes, classPolicy(cfg, cl))
			continue
		}
		for s := range cl.Pipeline.Steps {
			d.Classes = append(d.Classes, stepPolicy(cfg, cl, s, &cl.Pipeline.Steps[s].Call))
		}
	}
	addBreakers(cfg, d)
	addPools(cfg, d)
	return d
}

// stepPolicy converts the call of step s of pipeline class cl, whose
// policy is call's: a class of its own named "CLASS/STEP".
func stepPolicy(cfg *sim.Config, cl *sim.Class, s int, call *sim.Class) Class {
	st := &cl.Pipeline.Steps[s]
	c := classPolicy(cfg, call)
	c.Class = cl.Name + "/" + st.Name
	c.Pipeline, c.Step, c.EndToEndDeadline = cl.Name, st.Name, Seconds(cl.Deadline)
	return c
}

// classPolicy converts a class of cfg, expanding the repeating last delay
// and target to one entry per copy.
func classPolicy(cfg *sim.Config, cl *sim.Class) Class {
	p := &cl.Policy
	c := Class{
		Class:            cl.Name,
		Hedge:            p.Copies > 0,
		Primary:          cfg.Models[p.Primary].Name,
		NewProvider:      p.NewProvider && p.Copies > 0,
		Winner:           p.Winner.String(),
		OnError:          p.OnError.String(),
		OnRateLimited:    p.OnRateLimited.String(),
		OnInvalid:        p.OnInvalid.String(),
		AttemptTimeout:   Seconds(p.AttemptTimeout),
		OnAttemptTimeout: p.OnAttemptTimeout.String(),
		CancelLatency:    Seconds(p.CancelLatency),
		CancelBilling:    p.CancelBilling.String(),
		Deadline:         Seconds(cl.Deadline),
		OnTimeout:        cl.OnTimeout.String(),
		Copies:           []Copy{},
		Retry:            retryOf(cl.Retry),
		AttemptRetry:     retryOf(cl.AttemptRetry),
	}
	if p.OnClientError != sim.Fatal {
		c.OnClientError = p.OnClientError.String()
	}
	if p.OnUpstreamTimeout != p.OnError {
		c.OnUpstreamTimeout = p.OnUpstreamTimeout.String()
	}
	if s := &p.StreamCuts; s.InterTokenTimeout > 0 || s.MinTokensPerSecond > 0 {
		c.StreamCuts = &StreamCuts{InterTokenTimeout: Seconds(s.InterTokenTimeout), MinTokensPerSecond: s.MinTokensPerSecond,
			SpeedWindow: Seconds(s.SpeedWindow), OnStall: s.OnStall.String()}
	}
	for j := 1; j <= p.Copies; j++ {
		gap := p.Delays[min(j-1, len(p.Delays)-1)]
		t := p.Primary
		if len(p.Targets) > 0 {
			t = p.Targets[min(j-1, len(p.Targets)-1)]
		}
		cp := Copy{Target: cfg.Models[t].Name, Delay: Seconds(gap)}
		if gap < 0 {
			cp = Copy{Target: cp.Target, Fallback: true}
		}
		c.Copies = append(c.Copies, cp)
	}
	if a := p.Adaptive; a != nil && p.Copies > 0 {
		c.Adaptive = &Adaptive{
			Percentile: a.Percentile, Window: a.Window, WindowTime: Seconds(a.WindowTime),
			WarmUp: a.WarmUp, Min: Seconds(a.Min), Max: Seconds(a.Max), Source: a.Source.String(),
		}
	}
	b := p.Budget
	c.Budget = Budget{
		MaxHedgeShare: b.MaxHedgeShare, MaxInFlightRatio: b.MaxInFlightRatio, MinInFlight: b.MinInFlight,
		HedgesPerSecond: b.HedgesPerSecond, Burst: b.Burst, MaxParallel: b.MaxParallel,
	}
	if t := b.Throttle; t != nil {
		c.Budget.RetryThrottling = &Throttle{MaxTokens: t.MaxTokens, TokenRatio: t.TokenRatio}
	}
	return c
}

// report is the part of an optimize report (optimize.Report's JSON form)
// that export reads; other fields are ignored.
type report struct {
	Scenario *string       `json:"scenario"`
	Classes  []reportClass `json:"classes"`
	// Present in every optimize report; used to tell one from other JSON.
	Rule json.RawMessage `json:"verdict_rule"`
}

type reportClass struct {
	Class      *string           `json:"class"`
	Deadline   *float64          `json:"deadline_s"`
	Candidates []reportCandidate `json:"candidates"`
	Pick       *int              `json:"pick"`
	Verdict    *struct {
		Hedge bool `json:"hedge"`
		// Undecided: too few requests to tell; the configured policy is
		// kept.
		Undecided bool   `json:"undecided"`
		Reason    string `json:"reason"`
	} `json:"verdict"`
	// Steps is, for a pipeline class, what each step's policy in the
	// candidate StepsOf names adds ("why" in words); StepsOf "pick" is the
	// pick's.
	Steps   []reportAdvice `json:"steps"`
	StepsOf string         `json:"steps_of"`
}

// reportAdvice is the part of optimize.StepAdvice that export reads.
type reportAdvice struct {
	Step string `json:"step"`
	Why  string `json:"why"`
}

type reportCandidate struct {
	// Steps are a pipeline candidate's step policies.
	Steps   []reportStep `json:"steps"`
	Hedging bool         `json:"hedging"`
	// Configured marks the class's own policy, kept as it is configured.
	Configured bool    `json:"configured"`
	Delay      float64 `json:"delay_s"`
	Copies     int     `json:"copies"`
	Target     string  `json:"target"`

	// Adaptive is an adaptive candidate's delay (optimize --adaptive).
	Adaptive *Adaptive `json:"adaptive"`
}

type reportStep struct {
	Step    string  `json:"step"`
	Hedging bool    `json:"hedging"`
	Delay   float64 `json:"delay_s"`
	Copies  int     `json:"copies"`
	Target  string  `json:"target"`
}

// IsJSON reports whether data looks like a JSON document (its first
// non-blank byte is '{'), as an optimize report is and a TOML scenario is
// not.
func IsJSON(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	return len(t) > 0 && t[0] == '{'
}

// ReportScenario returns the scenario name an optimize report records,
// after checking that data is one (see ReportPicks).
func ReportScenario(data []byte) (string, error) {
	r, err := readReport(data)
	if err != nil {
		return "", err
	}
	return *r.Scenario, nil
}

func readReport(data []byte) (*report, error) {
	var r report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("not a hedgesim optimize report: %v", err)
	}
	switch {
	case r.Scenario == nil:
		return nil, errors.New(`not a hedgesim optimize report: no "scenario" field`)
	case r.Rule == nil:
		return nil, errors.New(`not a hedgesim optimize report: no "verdict_rule" field`)
	case len(r.Classes) == 0:
		return nil, errors.New(`not a hedgesim optimize report: no "classes"`)
	}
	for i, c := range r.Classes {
		switch {
		case c.Class == nil:
			return nil, fmt.Errorf(`not a hedgesim optimize report: classes[%d] has no "class"`, i)
		case c.Pick == nil || c.Verdict == nil:
			return nil, fmt.Errorf(`not a hedgesim optimize report: class %q has no "pick" or "verdict"`, *c.Class)
		case *c.Pick < 0 || *c.Pick >= len(c.Candidates):
			return nil, fmt.Errorf("class %q: pick %d is not one of its %d candidates", *c.Class, *c.Pick, len(c.Candidates))
		}
		p := c.Candidates[*c.Pick]
		if p.Hedging && p.Steps == nil && (p.Copies < 1 || p.Copies > sim.MaxCopies || !(p.Delay >= 0) || p.Target == "") {
			return nil, fmt.Errorf("class %q: pick has copies %d, delay_s %g, target %q; want copies in [1, %d], a delay ≥ 0 and a target",
				*c.Class, p.Copies, p.Delay, p.Target, sim.MaxCopies)
		}
	}
	return &r, nil
}

// ReportPicks returns each class's pick of an optimize report (the JSON of
// `hedgesim optimize --json`, or report.json of `--out`), with the rest of
// its policy (primary, winner, error rules, cancellation, budgets, deadline)
// from cfg, the scenario the report was made from: the optimizer keeps
// those and varies only the delay, the copies and their target, with a
// fixed delay (an adaptive delay and "a different provider" are off in
// every candidate but an adaptive one, optimize --adaptive, whose
// adaptive delay is exported with copies at its starting delay). A
// class whose verdict is "don't hedge" gets hedging off; one whose verdict is undecided keeps its configured policy, its
// reason beginning with UndecidedReason. Data that is not an optimize report, or a report that does not
// match cfg (a class or target cfg lacks, another deadline), is an error.
func ReportPicks(data []byte, cfg *sim.Config) (*Document, error) {
	r, err := readReport(data)
	if err != nil {
		return nil, err
	}
	d := &Document{Format: DocumentFormat, Version: DocumentVersion, Scenario: *r.Scenario, Source: FromReport}
	models := map[string]bool{}
	for _, m := range cfg.Models {
		models[m.Name] = true
	}
	for _, rc := range r.Classes {
		var cl *sim.Class
		for i := range cfg.Classes {
			if cfg.Classes[i].Name == *rc.Class {
				cl = &cfg.Classes[i]
			}
		}
		if cl == nil {
			return nil, fmt.Errorf("report class %q is not a class of scenario %s (classes: %s)", *rc.Class, cfg.Name, classNames(cfg))
		}
		if rc.Deadline != nil && math.Abs(*rc.Deadline-cl.Deadline.Seconds()) > 1e-9 {
			return nil, fmt.Errorf("class %q: the report's deadline %gs differs from the scenario's %s; is this the scenario the report was made from?",
				*rc.Class, *rc.Deadline, cl.Deadline)
		}
		if rc.Verdict.Undecided {
			// Too few requests to tell: what runs today stays, as
			// --write-scenario keeps it.
			d.Classes = append(d.Classes, undecidedPolicies(cfg, cl, rc.Verdict.Reason)...)
			continue
		}
		pick := rc.Candidates[*rc.Pick]
		if cl.Pipeline != nil {
			steps, err := pipelinePicks(cfg, cl, rc, pick, models)
			if err != nil {
				return nil, err
			}
			d.Classes = append(d.Classes, steps...)
			continue
		}
		if pick.Configured && rc.Verdict.Hedge {
			// The configured policy is kept: export it as configured
			// (fallback copies, an adaptive delay or a list of delays).
			c := classPolicy(cfg, cl)
			c.Reason = rc.Verdict.Reason
			d.Classes = append(d.Classes, c)
			continue
		}
		hedge := rc.Verdict.Hedge && pick.Hedging
		base := *cl
		if !hedge {
			// No hedging is no copies and no per-attempt timeout, as
			// optimize simulated it.
			sim.NoHedging(&base.Policy)
		}
		c := classPolicy(cfg, &base)
		c.Adaptive, c.NewProvider, c.Copies = nil, false, []Copy{}
		c.Reason = rc.Verdict.Reason
		c.Hedge = hedge
		if c.Hedge {
			targets := strings.Split(pick.Target, ",")
			for j := range pick.Copies {
				t := strings.TrimSpace(targets[min(j, len(targets)-1)])
				if !models[t] {
					return nil, fmt.Errorf("class %q: the pick's target %q is not a model of scenario %s", *rc.Class, t, cfg.Name)
				}
				delay := time.Duration(math.Round(pick.Delay * 1e9))
				c.Copies = append(c.Copies, Copy{Target: t, Delay: Seconds(delay)})
			}
			// An adaptive pick (optimize --adaptive): its delay tracks a
			// percentile; the copies' delays are its starting value.
			c.Adaptive = pick.Adaptive
		}
		d.Classes = append(d.Classes, c)
	}
	addBreakers(cfg, d)
	addPools(cfg, d)
	return d, nil
}

// undecidedPolicies returns the configured policy of class cl (each step's,
// for a pipeline), its reason saying that the verdict is undecided and why.
func undecidedPolicies(cfg *sim.Config, cl *sim.Class, why string) []Class {
	var out []Class
	if cl.Pipeline == nil {
		out = append(out, classPolicy(cfg, cl))
	} else {
		for s := range cl.Pipeline.Steps {
			out = append(out, stepPolicy(cfg, cl, s, &cl.Pipeline.Steps[s].Call))
		}
	}
	for i := range out {
		out[i].Reason = UndecidedReason + ": " + why
	}
	return out
}

// UndecidedReason begins the reason of a class exported from an optimize
// report whose verdict is undecided (too few requests to tell): its
// configured policy is exported.
const UndecidedReason = "the verdict is undecided, so the configured policy is kept"

// pipelinePicks returns the step policies of pipeline class cl's pick of
// report class rc: each step's call with the pick's copies, delay and
// target for that step, or hedging off (for every step when the verdict is
// "don't hedge").
func pipelinePicks(cfg *sim.Config, cl *sim.Class, rc reportClass, pick reportCandidate, models map[string]bool) ([]Class, error) {
	steps := cl.Pipeline.Steps
	if len(pick.Steps) != len(steps) {
		return nil, fmt.Errorf("class %q: the report's pick has %d step policies; the scenario's pipeline has %d steps", *rc.Class, len(pick.Steps), len(steps))
	}
	var out []Class
	for s, ps := range pick.Steps {
		if ps.Step != steps[s].Name {
			return nil, fmt.Errorf("class %q: the report's step %d is %q; the scenario's is %q", *rc.Class, s, ps.Step, steps[s].Name)
		}
		call := steps[s].Call
		hedge := rc.Verdict.Hedge && ps.Hedging
		if hedge && (ps.Copies < 1 || ps.Copies > sim.MaxCopies || !(ps.Delay >= 0) || ps.Target == "") {
			return nil, fmt.Errorf("class %q: step %q has copies %d, delay_s %g, target %q; want copies in [1, %d], a delay ≥ 0 and a target",
				*rc.Class, ps.Step, ps.Copies, ps.Delay, ps.Target, sim.MaxCopies)
		}
		if !hedge {
			sim.NoHedging(&call.Policy)
		}
		c := stepPolicy(cfg, cl, s, &call)
		c.Adaptive, c.NewProvider, c.Copies = nil, false, []Copy{}
		c.Reason, c.Hedge = stepReason(rc, ps), hedge
		if hedge {
			targets := strings.Split(ps.Target, ",")
			for j := range ps.Copies {
				t := strings.TrimSpace(targets[min(j, len(targets)-1)])
				if !models[t] {
					return nil, fmt.Errorf("class %q: step %q: the pick's target %q is not a model of scenario %s", *rc.Class, ps.Step, t, cfg.Name)
				}
				c.Copies = append(c.Copies, Copy{Target: t, Delay: Seconds(time.Duration(math.Round(ps.Delay * 1e9)))})
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// stepReason is why step ps of report class rc's pick is hedged or not:
// the class's verdict when it says "don't hedge" (every step is off for
// it) or when the pick hedges the step; for a step the pick leaves
// unhedged while hedging others, the step's own reason, from the report's
// advice on the pick's steps ("not hedged: the search found no delay for
// it…"), or, in a report without it, that the pick hedges other steps.
func stepReason(rc reportClass, ps reportStep) string {
	if !rc.Verdict.Hedge || ps.Hedging {
		return rc.Verdict.Reason
	}
	if rc.StepsOf == "pick" {
		for _, a := range rc.Steps {
			if a.Step == ps.Step && a.Why != "" {
				return strings.TrimPrefix(a.Why, "not hedged: ")
			}
		}
	}
	return "the pick hedges other steps of the pipeline, not this one"
}

func classNames(cfg *sim.Config) string {
	var ns []string
	for _, c := range cfg.Classes {
		ns = append(ns, c.Name)
	}
	return strings.Join(ns, ", ")
}

// Select keeps only the class named name, or every step of the pipeline
// class named name; an unknown name is an error listing the classes.
func (d *Document) Select(name string) error {
	var names []string
	var steps []Class
	for _, c := range d.Classes {
		if c.Class == name {
			d.Classes = []Class{c}
			return nil
		}
		if c.Pipeline == name {
			steps = append(steps, c)
		}
		names = append(names, c.Class)
	}
	if len(steps) > 0 {
		d.Classes = steps
		return nil
	}
	return fmt.Errorf("no class %q; classes: %s", name, strings.Join(names, ", "))
}

// addBreakers sets each class's breakers from its exported targets.
func addBreakers(cfg *sim.Config, d *Document) {
	for i := range d.Classes {
		d.Classes[i].Breakers = breakersOf(cfg, &d.Classes[i])
	}
}
