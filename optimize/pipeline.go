package optimize

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// Pipeline classes (sim.Pipeline) are optimized end to end: a candidate is
// one hedge policy per step ("don't hedge this step" among them), measured
// on the class's whole requests — the time to a fully answered request,
// its answered share and its cost, every step's calls included — so the
// objective, its cost cap and the verdict rule read as for a one-call
// class. The search is a budget allocation over the steps' grids
// (allocate.go). Every candidate simulated is kept, and the class's pick
// is chosen among all of them as for a one-call class.
//
// A step's grid is its Search's delays (the class's search settings) or,
// by default, PipelineDelayCount delays spaced geometrically from the
// step's own no-hedging p10 to its p99, with the class's copy counts and
// the step's configured targets. Delays at or past the step's deadline or
// the pipeline's end-to-end deadline are left out (a copy due then is
// never sent), and a step whose repeat always draws 0 — never called —
// has no hedged option; the step's advice row then says why.

// PipelineDelayCount is the number of default delays per step.
const PipelineDelayCount = 10

// StepPick is one step's policy in a pipeline candidate.
type StepPick struct {
	Step         string        `json:"step"`
	Hedging      bool          `json:"hedging"`
	Delay        time.Duration `json:"-"`
	DelaySeconds float64       `json:"delay_s"`
	Copies       int           `json:"copies"`
	Target       string        `json:"target"`
	// Label is the step's part of the candidate's label: "none", or the
	// delay with ×copies.
	Label string `json:"label"`
}

// StepAdvice says, for the pick of a pipeline class, where the hedging
// budget went: per step, what its policy adds over not hedging that step
// (the other steps as picked).
type StepAdvice struct {
	StepPick
	// ObjectiveChangeS is the change in the objective's percentile (p95 or
	// p99, seconds) that hedging this step brings, against the same pick
	// without hedging it (negative: faster); null when either is a miss.
	ObjectiveChangeS *float64 `json:"objective_change_s"`
	// AnsweredChange is the change in answered share it brings.
	AnsweredChange float64 `json:"answered_change"`
	// AddedCostPct is the cost it adds, in percent of the class's cost
	// without hedging (the class's cost basis).
	AddedCostPct float64 `json:"added_cost_pct"`
	// Why says it in words.
	Why string `json:"why"`
}

// stepGrid is one step's choices: the step's policy without hedging first.
type stepGrid struct {
	name  string
	picks []StepPick
	pols  []sim.Policy
	// p50 and p99 are the step's calls' latency without hedging, for the
	// advice: of the calls that ended, not of those let go of (cut, of
	// calls sent; sim.StepResult.Cut).
	p50, p99   float64
	cut, calls int64
	// unhedged says why the grid has no hedged option ("" when it has
	// some, or when the step's delays were simply none).
	unhedged string
}

// callTimes says what g's step's calls took without hedging: the p50 and
// p99 of those that ended and, when the pipeline let go of some before
// they ended (their stage done without them, or the turn over), how many:
// their would-be latency is in no figure, so the figures alone would
// flatter the step.
func (g *stepGrid) callTimes() string {
	if g.cut == 0 {
		return fmt.Sprintf("its calls without hedging: p50 %s, p99 %s", fsec(g.p50), fsec(g.p99))
	}
	return fmt.Sprintf("its calls without hedging: p50 %s, p99 %s of the %d that ended; the other %d of %d (%s) were let go of before they ended, their stage done without them or the turn over, and are not in these figures",
		fsec(g.p50), fsec(g.p99), g.calls-g.cut, g.cut, g.calls, fmt.Sprintf("%.1f%%", 100*float64(g.cut)/float64(g.calls)))
}

// neverCalled reports whether st's repeat always draws 0 — its support
// lies below 0.5, which rounds to 0 — so that its call is never made.
func neverCalled(st *sim.Step) bool {
	if st.Repeat == nil {
		return false
	}
	_, hi := st.Repeat.Support()
	return hi < 0.5
}

// pipelineGrids builds each step's grid for the one-class config c, whose
// no-hedging run is res.
func pipelineGrids(c *sim.Config, s Search, res *sim.Result) []stepGrid {
	pl := c.Classes[0].Pipeline
	grids := make([]stepGrid, len(pl.Steps))
	for i := range pl.Steps {
		st := &pl.Steps[i]
		base := st.Call.Policy
		none := base
		sim.NoHedging(&none)
		g := stepGrid{name: st.Name}
		sr := &res.Classes[0].Pipeline.Steps[i]
		if q := sr.Quantiles(0.5, 0.99); len(q) == 2 {
			g.p50, g.p99 = q[0], q[1]
		}
		g.cut, g.calls = sr.Cut, sr.Requests+sr.Cut
		g.picks = append(g.picks, StepPick{Step: st.Name, Label: "none"})
		g.pols = append(g.pols, none)
		if neverCalled(st) {
			g.unhedged = "never called: its repeat always draws 0, so no copy could be sent"
			grids[i] = g
			continue
		}
		delays := s.Delays
		if delays == nil {
			q10, q99 := gridSpan(&res.Classes[0].Pipeline.Steps[i].ClassResult, st.Call.Deadline)
			delays = thin(DefaultDelays(q10, q99), PipelineDelayCount)
		}
		had := len(delays)
		for _, dl := range []time.Duration{st.Call.Deadline, c.Classes[0].Deadline} {
			if dl > 0 {
				delays = slices.DeleteFunc(slices.Clone(delays), func(d time.Duration) bool { return d >= dl })
			}
		}
		if len(delays) == 0 && had > 0 {
			g.unhedged = "every delay to try is at or past its deadline or the pipeline's end-to-end deadline, where a copy is never sent"
		}
		copies := s.Copies
		if copies == nil {
			copies = []int{max(base.Copies, 1)}
		}
		copies = slices.Compact(slices.Sorted(slices.Values(copies)))
		idx := base.Targets
		if len(idx) == 0 {
			idx = []int{base.Primary}
		}
		names := make([]string, len(idx))
		for j, m := range idx {
			names[j] = c.Models[m].Name
		}
		for _, k := range copies {
			for _, d := range delays {
				pol := base
				pol.Copies, pol.Delays, pol.Adaptive = k, []time.Duration{d}, nil
				label := fdelay(d)
				if len(copies) > 1 || k > 1 {
					label += fmt.Sprintf("×%d", k)
				}
				g.picks = append(g.picks, StepPick{Step: st.Name, Hedging: true, Delay: d, DelaySeconds: d.Seconds(), Copies: k, Target: strings.Join(names, ","), Label: label})
				g.pols = append(g.pols, pol)
			}
		}
		grids[i] = g
	}
	return grids
}

// thin keeps n of xs, evenly spread by index, first and last included.
func thin(xs []time.Duration, n int) []time.Duration {
	if len(xs) <= n {
		return xs
	}
	out := make([]time.Duration, 0, n)
	for i := range n {
		out = append(out, xs[i*(len(xs)-1)/(n-1)])
	}
	return slices.Compact(out)
}

// withSteps returns c with step s of its pipeline class using policy
// pols[s].
func withStepPolicies(c *sim.Config, pols []sim.Policy) *sim.Config {
	x := *c
	x.Classes = slices.Clone(c.Classes)
	pl := *x.Classes[0].Pipeline
	pl.Steps = slices.Clone(pl.Steps)
	for s := range pl.Steps {
		pl.Steps[s].Call.Policy = pols[s]
	}
	x.Classes[0].Pipeline = &pl
	return &x
}

// pipelineSearch is the search of one pipeline class (allocate.go).
type pipelineSearch struct {
	ctx     context.Context
	c       *sim.Config
	search  Search
	level   float64
	workers int
	grids   []stepGrid
	cands   []Candidate    // [0] is no hedging anywhere
	origin  []string       // by candidate: the phase that simulated it (Origin*)
	seen    map[string]int // assignment key → index in cands
	// alone[s][k] is the index in cands of step s's option k simulated
	// with the other steps unhedged (0, no hedging, for k = 0); nil for an
	// exhaustive search.
	alone [][]int
	tick  func()
}

func assignKey(a []int) string { return fmt.Sprint(a) }

// eval simulates the assignments not seen yet, on up to workers
// goroutines, recording origin as the phase that simulated them, and
// returns the index in cands of each.
func (ps *pipelineSearch) eval(as [][]int, origin string) ([]int, error) {
	var todo [][]int
	for _, a := range as {
		if _, ok := ps.seen[assignKey(a)]; !ok && !slices.ContainsFunc(todo, func(b []int) bool { return slices.Equal(a, b) }) {
			todo = append(todo, a)
		}
	}
	made := make([]Candidate, len(todo))
	err := parallelContext(ps.ctx, len(todo), ps.workers, func(j int) error {
		a := todo[j]
		pols := make([]sim.Policy, len(a))
		for s, g := range a {
			pols[s] = ps.grids[s].pols[g]
		}
		res, err := sim.RunContext(ps.ctx, withStepPolicies(ps.c, pols))
		if err != nil {
			return fmt.Errorf("class %q: %w", ps.c.Classes[0].Name, err)
		}
		x := Candidate{OverLimit: len(res.Overloads(ps.c)) > 0, Loads: loadsOf(res, ps.c), breakerWarns: breakerWarnings(res)}
		summarizeFor(&x, &res.Classes[0], ps.level, ps.search.Objective)
		ps.label(&x, a) // before metOnly: its shares depend on whether a step hedges
		x.metOnly(&res.Classes[0], ps.c.Classes[0].SLO)
		made[j] = x
		return nil
	}, ps.tick)
	if err != nil {
		return nil, err
	}
	for j, a := range todo {
		ps.seen[assignKey(a)] = len(ps.cands)
		ps.cands = append(ps.cands, made[j])
		ps.origin = append(ps.origin, origin)
	}
	out := make([]int, len(as))
	for i, a := range as {
		out[i] = ps.seen[assignKey(a)]
	}
	return out, nil
}

// label names candidate x of assignment a and records its step picks.
func (ps *pipelineSearch) label(x *Candidate, a []int) {
	var parts []string
	for s, g := range a {
		p := ps.grids[s].picks[g]
		x.Steps = append(x.Steps, p)
		x.stepPols = append(x.stepPols, ps.grids[s].pols[g])
		if p.Hedging {
			x.Hedging = true
			parts = append(parts, p.Step+" "+p.Label)
		}
	}
	x.Label = "none"
	if len(parts) > 0 {
		x.Label = strings.Join(parts, ", ")
	}
}

// runPipeline optimizes pipeline class i of cfg: the allocation search
// over its steps' grids (allocate.go) on the class alone, the pick among
// every candidate simulated (decide) and the per-step advice.
func runPipeline(ctx context.Context, cfg *sim.Config, s Settings, i int, with []int, workers int, progress func(string, int) func()) (*ClassReport, error) {
	name := cfg.Classes[i].Name
	c, warn, err := classConfig(cfg, i, s.Requests)
	if err != nil {
		return nil, err
	}
	var others []string
	if len(with) > 0 {
		// Coupled: searched on the traffic it shares with the others,
		// which keep their configured policies; the pipeline is class 0.
		c = groupConfig(cfg, append([]int{i}, with...), s.Requests*(1+len(with)))
		warn = ""
		for _, j := range with {
			others = append(others, cfg.Classes[j].Name)
		}
	}
	search := s.For(name)
	var notes []string
	if search.Targets != nil {
		// Targets name models for a class's copies; a pipeline's steps call
		// models of their own.
		notes = append(notes, fmt.Sprintf("the search's targets (%s) do not apply to a pipeline class: each step's copies go to its own targets", strings.Join(search.Targets, ", ")))
		search.Targets = nil
	}
	cr := &ClassReport{
		Class: name, DeadlineSeconds: cfg.Classes[i].Deadline.Seconds(), SLOSeconds: cfg.Classes[i].SLO.Seconds(),
		Objective: search.Objective, Warnings: []string{},
		asked: int64(s.Requests),
	}
	cr.expect, cr.batched = classRun(c, 0)
	cr.replay = replayOf(c, cfg, float64(1+len(with)))
	if warn != "" {
		cr.Warnings = append(cr.Warnings, warn)
	}
	cr.Warnings = append(cr.Warnings, notes...)
	if len(others) > 0 {
		cr.OptimizedWith = others
		cr.Warnings = append(cr.Warnings, fmt.Sprintf("searched on the traffic it shares a limited provider, model or budget with (%s, %d requests per simulation): those one-call classes at their picks, found with this pipeline at its configured policy — one round of coordinate descent; the rollout check runs every pick together", strings.Join(others, ", "), c.Requests))
	}
	pl := c.Classes[0].Pipeline
	none := make([]sim.Policy, len(pl.Steps))
	for st := range pl.Steps {
		none[st] = pl.Steps[st].Call.Policy
		sim.NoHedging(&none[st])
	}
	res, err := sim.RunContext(ctx, withStepPolicies(c, none))
	if err != nil {
		return nil, fmt.Errorf("class %q: %w", name, err)
	}
	ps := &pipelineSearch{ctx: ctx, c: c, search: search, level: s.Level, workers: workers, seen: map[string]int{}}
	ps.grids = pipelineGrids(c, search, res)
	base := Candidate{Label: "none", OverLimit: len(res.Overloads(c)) > 0, Loads: loadsOf(res, c), breakerWarns: breakerWarnings(res)}
	summarizeFor(&base, &res.Classes[0], s.Level, search.Objective)
	base.metOnly(&res.Classes[0], c.Classes[0].SLO)
	zero := make([]int, len(pl.Steps))
	ps.label(&base, zero)
	ps.seen[assignKey(zero)] = 0
	ps.cands = []Candidate{base}
	ps.origin = []string{OriginBaseline}
	// The ticks to expect: every combination, or the options alone, the
	// predicted frontier and two rounds of exchange.
	total := PredictedSimulations
	for _, g := range ps.grids {
		total += 3 * (len(g.pols) - 1)
	}
	if n := ps.combinations(); n <= MaxExhaustive {
		total = int(n) - 1
	}
	ps.tick = progress("pipeline "+name, total)
	if err := ps.allocate(); err != nil {
		return nil, err
	}
	cr.Requests = base.Requests
	warnings := cr.Warnings
	// The pick is chosen among every candidate simulated; the exchange
	// phase simulates the single-step changes of the pick, which join the
	// candidates, and then the pick is chosen again, until no new
	// candidate comes. The advice and the delay figure's curves are
	// single-step changes of the pick too: they simulate a variant only
	// when the exchange stopped at its limit.
	rounds, converged := 0, false
	for {
		n := len(ps.cands)
		cr.Candidates = slices.Clone(ps.cands)
		cr.Warnings = slices.Clone(warnings)
		decide(cr, s.Rule, s.Level)
		if more, err := ps.unbundle(cr, s.Rule); err != nil {
			return nil, err
		} else if more {
			continue
		}
		if !converged && rounds < MaxExchangeRounds {
			rounds++
			more, err := ps.exchange(cr)
			if err != nil {
				return nil, err
			}
			if more {
				continue
			}
			converged = true
		}
		advice, err := ps.advise(cr)
		if err != nil {
			return nil, err
		}
		cr.Steps = advice
		if cr.Series, err = ps.series(cr); err != nil {
			return nil, err
		}
		if len(ps.cands) == n {
			cr.PipelineSearch = ps.summary(cr, rounds, converged)
			return cr, nil
		}
	}
}

// series returns, per step with delays to try, the candidates that hedge
// that step at each of its delays, the other steps as in cr's pick — the
// delay figure's curves — simulating those the search has not.
func (ps *pipelineSearch) series(cr *ClassReport) ([]Series, error) {
	pick := ps.assignment(cr.Picked())
	var out []Series
	for s, g := range ps.grids {
		if len(g.pols) < 2 {
			continue
		}
		var as [][]int
		var xs []float64
		for k := 1; k < len(g.pols); k++ {
			a := slices.Clone(pick)
			a[s] = k
			as = append(as, a)
			xs = append(xs, g.picks[k].DelaySeconds)
		}
		idx, err := ps.eval(as, OriginFigure)
		if err != nil {
			return nil, err
		}
		out = append(out, Series{Name: "step " + g.name, Members: idx, X: xs})
	}
	return out, nil
}

// assignment returns the grid index of each step's policy in c.
func (ps *pipelineSearch) assignment(c *Candidate) []int {
	a := make([]int, len(ps.grids))
	for s, p := range c.Steps {
		a[s] = slices.IndexFunc(ps.grids[s].picks, func(q StepPick) bool { return q == p })
	}
	return a
}

// advise returns, for each step of cr's pick, what hedging it adds over
// the same pick without hedging that step (simulating those variants when
// the search has not).
func (ps *pipelineSearch) advise(cr *ClassReport) ([]StepAdvice, error) {
	pick := cr.Picked()
	cr.StepsOf = "pick"
	if o := &cr.Candidates[cr.ObjectivePick]; !pick.Hedging && o.Hedging {
		// The verdict rule rejects the objective's pick: say what it would
		// have done, step by step.
		pick, cr.StepsOf = o, "objective_pick"
	}
	assign := ps.assignment(pick)
	var as [][]int
	for s := range assign {
		a := slices.Clone(assign)
		a[s] = 0
		as = append(as, a)
	}
	idx, err := ps.eval(as, OriginFigure)
	if err != nil {
		return nil, err
	}
	base := cr.Baseline()
	p := cr.Objective.Percentile
	var out []StepAdvice
	for s, sp := range pick.Steps {
		adv := StepAdvice{StepPick: sp}
		without := ps.cands[idx[s]]
		if sp.Hedging {
			if d := pick.Q(p) - without.Q(p); isFinite(d) {
				adv.ObjectiveChangeS = &d
			}
			adv.AnsweredChange = pick.AnsweredShare - without.AnsweredShare
			if cr.CostBasis == CostUSD && base.CostPer1kUSD > 0 {
				adv.AddedCostPct = 100 * (pick.CostPer1kUSD - without.CostPer1kUSD) / base.CostPer1kUSD
			} else if base.AttemptsPerRequest > 0 {
				adv.AddedCostPct = 100 * (pick.AttemptsPerRequest - without.AttemptsPerRequest) / base.AttemptsPerRequest
			}
			change := "no change in " + pname(p)
			switch {
			case cr.Objective.Goal == MostAnswered:
				change = fmt.Sprintf("%s within %s %s → %s", cr.Objective.WithinWord(), fsec(cr.Objective.Target.Seconds()), fpct2(without.AnsweredWithinShare), fpct2(pick.AnsweredWithinShare))
			case adv.ObjectiveChangeS != nil && *adv.ObjectiveChangeS != 0:
				change = fmt.Sprintf("%s%s %s", sign(*adv.ObjectiveChangeS), fsec(abs(*adv.ObjectiveChangeS)), pname(p))
			case adv.ObjectiveChangeS == nil:
				change = fmt.Sprintf("%s %s → %s", pname(p), fsec(without.Q(p)), fsec(pick.Q(p)))
			}
			adv.Why = fmt.Sprintf("copies %s, %s cost, %s", sp.Label, fpct(adv.AddedCostPct), change)
			if d := answeredChange(without.AnsweredShare, pick.AnsweredShare); d != "" && cr.Objective.Goal != MostAnswered {
				adv.Why += ", answered " + d
			}
		} else if why := ps.grids[s].unhedged; why != "" {
			adv.Why = "not hedged: " + why
		} else {
			adv.Why = "not hedged: the search found no delay for it that the objective prefers to leaving it unhedged (" + ps.grids[s].callTimes() + ")"
		}
		out = append(out, adv)
	}
	return out, nil
}

// unbundle checks a pick that the verdict rule recommends instead of the
// objective's pick (decide): each of its hedged steps must earn its own
// cost. Against the same candidate without that step hedged, the figure
// the verdict judged (the objective's percentile, or the unanswered share
// when that decided it; under objective answered or checked, the share
// not within the target) must fall by at least the rule's minimum per 1%
// of the cost the step adds, both relative to no hedging; a step that
// adds no cost passes. When a step fails, the pick is marked a bundle
// (Candidate.bundle), which acceptable then passes over, and the pick with
// only its steps that pass is simulated to be judged in turn; unbundle
// reports whether it marked one, and the pick must be chosen again. It
// simulates at most one candidate per step and one more per call, and
// every call marks another candidate, so the choice ends.
func (ps *pipelineSearch) unbundle(cr *ClassReport, rule Rule) (bool, error) {
	pick := &cr.Candidates[cr.Pick]
	v := cr.Verdict
	if cr.Pick == cr.ObjectivePick || !pick.Hedging || !v.Hedge || (v.DecidedBy != DecidedByPercentile && v.DecidedBy != DecidedByUnanswered) {
		return false, nil
	}
	p := cr.Objective.Percentile
	figure, rate, what := func(c *Candidate) float64 { return c.Q(p) }, rule.MinGainPerCost, pname(p)
	switch {
	case cr.Objective.Goal == MostAnswered:
		figure, rate, what = func(c *Candidate) float64 { return 1 - c.AnsweredWithinShare }, rule.MinUnansweredCutPerCost, "the share not within the target"
	case v.DecidedBy == DecidedByUnanswered:
		figure, rate, what = (*Candidate).unanswered, rule.MinUnansweredCutPerCost, "the unanswered share"
	}
	base := cr.Baseline()
	costOf := func(c *Candidate) float64 {
		if cr.CostBasis == CostUSD && base.CostPer1kUSD > 0 {
			return 100 * c.CostPer1kUSD / base.CostPer1kUSD
		}
		if base.AttemptsPerRequest > 0 {
			return 100 * c.AttemptsPerRequest / base.AttemptsPerRequest
		}
		return 0
	}
	fb := figure(base)
	if !(fb > 0) || !isFinite(fb) {
		return false, nil // no relative gain to weigh
	}
	assign := ps.assignment(pick)
	var as [][]int
	for s := range assign {
		a := slices.Clone(assign)
		a[s] = 0
		as = append(as, a)
	}
	idx, err := ps.eval(as, OriginExchange)
	if err != nil {
		return false, err
	}
	me := ps.seen[assignKey(assign)]
	pruned := slices.Clone(assign)
	var worst *Reason
	for s, sp := range pick.Steps {
		if !sp.Hedging {
			continue
		}
		without := &ps.cands[idx[s]]
		cost := costOf(pick) - costOf(without)
		gain := 100 * (figure(without) - figure(pick)) / fb
		if cost <= 0 || gain >= rate*cost {
			continue
		}
		if !isFinite(gain) {
			gain = 0
		}
		pruned[s] = 0
		r := Reason{Code: ReasonBundled, Name: sp.Step, Value: gain / cost, Limit: rate, Unit: UnitPct,
			Text: fmt.Sprintf("its step %s (copies %s) buys %s %s → %s for %s cost against the same candidate without it: %.2f%% per 1%% of cost, less than the rule's %s%%; it passes only with the other steps' copies",
				sp.Step, sp.Label, what, ffigure(what, figure(without)), ffigure(what, figure(pick)), fpct(cost), gain/cost, fnum(rate))}
		if worst == nil || r.Value < worst.Value {
			worst = &r
		}
	}
	if worst == nil {
		return false, nil
	}
	ps.cands[me].bundle = worst
	if _, err := ps.eval([][]int{pruned}, OriginExchange); err != nil {
		return false, err
	}
	return true, nil
}

// ffigure formats figure x of unbundle: seconds for a percentile, else a
// share.
func ffigure(what string, x float64) string {
	if strings.HasPrefix(what, "p") {
		return fsec(x)
	}
	return fpct2(x)
}

func isFinite(x float64) bool { return x-x == 0 }

func sign(x float64) string {
	if x < 0 {
		return "−"
	}
	return "+"
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// stepPolicies returns the pipeline of class cl with the step policies of
// candidate c applied, or cl's own pipeline when c has none.
func (c *Candidate) pipelineFor(cl *sim.Class) *sim.Pipeline {
	if cl.Pipeline == nil || c.stepPols == nil {
		return cl.Pipeline
	}
	pl := *cl.Pipeline
	pl.Steps = slices.Clone(pl.Steps)
	for s := range pl.Steps {
		pl.Steps[s].Call.Policy = c.stepPols[s]
	}
	return &pl
}
