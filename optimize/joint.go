package optimize

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// MaxJointRounds bounds the rounds of coordinate descent over a group of
// coupled classes.
const MaxJointRounds = 4

// JointGroup is a set of coupled classes optimized together on their
// shared traffic (see Run).
type JointGroup struct {
	// Classes are the classes of the group, in scenario order; Optimized
	// those of them whose policy was searched (the others keep their
	// configured policy and contribute their load).
	Classes   []string `json:"classes"`
	Optimized []string `json:"optimized"`
	// Shared names what couples them: "provider p (concurrency limit)".
	Shared []string `json:"shared"`
	// Rounds is how many rounds of coordinate descent ran; Converged says
	// whether the last one changed no pick (false: MaxJointRounds reached).
	Rounds    int  `json:"rounds"`
	Converged bool `json:"converged"`
	// Requests is the number of requests of each joint simulation, over
	// all classes of the group.
	Requests int `json:"requests"`
	// Objective is the group objective that chose the picks
	// (Settings.GroupObjective: GroupWeighted, GroupWorst or GroupEach),
	// and Search how its search started (empty for GroupEach, and for a
	// group of one optimized class, whose own objective chooses).
	Objective string `json:"objective"`
	Search    string `json:"search"`
}

// coupling lists, per class of cfg, the limited resources it can reach:
// a model with a rate limit or a circuit breaker, or a provider with a
// replica pool, a rate limit, a concurrency limit, degraded periods or a
// circuit breaker —
// through its primary, its targets, and the targets its search may try —
// and, for a class driven by closed-loop clients, the clients themselves:
// each of its requests waits for the one before, so it is coupled by
// construction.
func coupling(cfg *sim.Config, s *Settings) [][]string {
	out := make([][]string, len(cfg.Classes))
	for i := range cfg.Classes {
		cl := &cfg.Classes[i]
		models := append([]int{cl.Policy.Primary}, cl.Policy.Targets...)
		if pl := cl.Pipeline; pl != nil {
			// A pipeline reaches what its steps' calls reach.
			models = models[:0]
			for _, st := range pl.Steps {
				models = append(models, st.Call.Policy.Primary)
				models = append(models, st.Call.Policy.Targets...)
			}
		}
		for _, name := range s.For(cl.Name).Targets {
			for m := range cfg.Models {
				if cfg.Models[m].Name == name {
					models = append(models, m)
				}
			}
		}
		seen := map[string]bool{}
		add := func(r string) {
			if !seen[r] {
				seen[r] = true
				out[i] = append(out[i], r)
			}
		}
		if cl.Clients > 0 {
			add(closedLoopResource)
		}
		for _, m := range models {
			md := &cfg.Models[m]
			if md.RateLimit.RequestsPerMinute > 0 || md.RateLimit.TokensPerMinute > 0 {
				add(fmt.Sprintf("model %s (rate limit)", md.Name))
			}
			if md.Breaker != nil {
				add(fmt.Sprintf("model %s (circuit breaker)", md.Name))
			}
			for _, p := range cfg.Providers {
				if p.Name != md.Provider {
					continue
				}
				switch {
				case p.Pool != nil:
					add(fmt.Sprintf("provider %s (replica pool)", p.Name))
				case p.Concurrency > 0:
					add(fmt.Sprintf("provider %s (concurrency limit)", p.Name))
				case p.RateLimit.RequestsPerMinute > 0 || p.RateLimit.TokensPerMinute > 0:
					add(fmt.Sprintf("provider %s (rate limit)", p.Name))
				case p.Degraded != nil:
					add(fmt.Sprintf("provider %s (degraded periods)", p.Name))
				}
				if p.Breaker != nil {
					add(fmt.Sprintf("provider %s (circuit breaker)", p.Name))
				}
			}
		}
		slices.Sort(out[i])
	}
	return out
}

// closedLoopResource is what couples closed-loop classes (see coupling).
const closedLoopResource = "closed-loop clients"

// coupledGroups returns the groups of two or more classes of cfg that
// reach a common limited resource (transitively), or that hold a
// closed-loop class (a group of one then), each with at least one class to
// optimize, in scenario order, and what each group shares.
func coupledGroups(cfg *sim.Config, s *Settings) (groups [][]int, shared [][]string) {
	res := coupling(cfg, s)
	parent := make([]int, len(cfg.Classes))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			i = parent[i]
		}
		return i
	}
	owner := map[string]int{}
	for i, rs := range res {
		for _, r := range rs {
			if j, ok := owner[r]; ok {
				parent[find(i)] = find(j)
			} else {
				owner[r] = i
			}
		}
	}
	byRoot := map[int][]int{}
	var roots []int
	for i := range cfg.Classes {
		r := find(i)
		if _, ok := byRoot[r]; !ok {
			roots = append(roots, r)
		}
		byRoot[r] = append(byRoot[r], i)
	}
	for _, r := range roots {
		g := byRoot[r]
		closed := slices.ContainsFunc(g, func(i int) bool { return cfg.Classes[i].Clients > 0 })
		if len(g) < 2 && !closed || !slices.ContainsFunc(g, func(i int) bool { return optimized(s, cfg.Classes[i].Name) }) {
			continue
		}
		count := map[string]int{}
		for _, i := range g {
			for _, x := range res[i] {
				count[x]++
			}
		}
		var sh []string
		for x, n := range count {
			if n > 1 || x == closedLoopResource {
				sh = append(sh, x)
			}
		}
		slices.Sort(sh)
		groups = append(groups, g)
		shared = append(shared, sh)
	}
	return groups, shared
}

// optimized reports whether s searches the policy of the class called name.
func optimized(s *Settings, name string) bool {
	return len(s.Only) == 0 || contains(s.Only, name)
}

// groupConfig returns cfg with only the classes of group (indices into
// cfg.Classes), shares renormalised and the arrival rate scaled to their
// traffic, with the given number of requests; for a replayed trace with a
// class column, the group's requests of the trace (fewer when the trace
// has fewer).
func groupConfig(cfg *sim.Config, group []int, requests int) *sim.Config {
	c := *cfg
	var total float64
	for _, i := range group {
		total += cfg.Classes[i].Share
	}
	c.Classes = nil
	pos := map[int]int{}
	for k, i := range group {
		cl := cfg.Classes[i]
		if total > 0 {
			cl.Share = cl.Share / total // closed-loop classes have none
		}
		c.Classes = append(c.Classes, cl)
		pos[i] = k
	}
	c.Requests = requests
	switch tr := cfg.Arrivals.Trace; {
	case cfg.Arrivals.Process != sim.Replay:
		c.Arrivals.Rate = cfg.Arrivals.Rate * total
	case tr.Class != nil:
		var t sim.Trace
		for j, k := range tr.Class {
			p, ok := pos[k]
			if !ok {
				continue
			}
			t.Arrivals = append(t.Arrivals, tr.Arrivals[j])
			t.Class = append(t.Class, p)
			if tr.Input != nil {
				t.Input = append(t.Input, tr.Input[j])
			}
			if tr.Output != nil {
				t.Output = append(t.Output, tr.Output[j])
			}
		}
		c.Arrivals.Trace = &t
	}
	if tr := c.Arrivals.Trace; c.Arrivals.Process == sim.Replay && len(tr.Arrivals) < c.Requests {
		c.Requests = len(tr.Arrivals)
	}
	return &c
}

// runJoint optimizes the classes of group (indices into cfg.Classes) that s
// searches, together on the group's traffic: coordinate descent over the
// classes, each class's grid swept with the others at their current pick
// (at first, their configured policy), every candidate on the same draws,
// until a round changes no pick or MaxJointRounds rounds have run. It
// returns the class reports by cfg index. Its measurements come from m:
// when m lacks one of a step (one class in one round), runJoint stops
// there and returns the step's name ("group a,b: round 2, class a"), with
// no reports.
func runJoint(ctx context.Context, cfg *sim.Config, s Settings, group []int, shared []string, workers int, progress func(string, int) func(), m *memo) (map[int]*ClassReport, JointGroup, string, error) {
	jg := JointGroup{Shared: shared, Requests: s.Requests * len(group), Objective: s.groupObjective()}
	gc := groupConfig(cfg, group, jg.Requests)
	jg.Requests = gc.Requests
	current := make([]sim.Policy, len(gc.Classes))
	var order []int // positions in gc of the classes to optimize
	for k, i := range group {
		current[k] = gc.Classes[k].Policy
		jg.Classes = append(jg.Classes, cfg.Classes[i].Name)
		if optimized(&s, cfg.Classes[i].Name) {
			order = append(order, k)
			jg.Optimized = append(jg.Optimized, cfg.Classes[i].Name)
		}
	}
	// run simulates the group with class k's policy replaced by pol, with
	// pair (nil: none): its result, and the config it ran.
	run := func(k int, pol sim.Policy, pair *sim.Pair) (*sim.Result, *sim.Config, error) {
		c := *gc
		c.Classes = slices.Clone(gc.Classes)
		for j := range c.Classes {
			c.Classes[j].Policy = current[j]
		}
		c.Classes[k].Policy = pol
		c.Pair = pair
		res, err := sim.RunContext(ctx, &c)
		if err != nil {
			return nil, nil, err
		}
		return res, &c, nil
	}
	groupName := "group " + strings.Join(jg.Classes, ",")
	reports := map[int]*ClassReport{}
	grids := map[int][]Candidate{}
	series := map[int][]Series{}
	// A group objective over two optimized classes or more: its search
	// starts from the best combination of the classes' candidates.
	grouped := jg.Objective != GroupEach && len(order) > 1
	var gs *groupStart
	if grouped {
		var step string
		var err error
		if gs, step, err = startGroup(ctx, gc, order, &s, m, groupName, workers, progress); err != nil || step != "" {
			return nil, jg, step, err
		}
		copy(current, gs.start)
		grids, series, jg.Search = gs.grids, gs.series, gs.search
	}
	// A step whose other classes are at the policies of the class's
	// previous step would repeat it exactly (every run is a function of its
	// config): its report is reused. The last class of a round that
	// changes nothing after it is the usual case.
	lastOthers := map[int][]sim.Policy{}
	sameOthers := func(k int) bool {
		prev, ok := lastOthers[k]
		if !ok {
			return false
		}
		for j := range current {
			if j != k && !samePolicy(prev[j], current[j]) {
				return false
			}
		}
		return true
	}
	for round := 1; round <= MaxJointRounds; round++ {
		jg.Rounds = round
		changed := false
		for _, k := range order {
			i := group[k]
			if sameOthers(k) {
				continue // reports[i] stands, and so does the class's pick
			}
			lastOthers[k] = slices.Clone(current)
			cl := &gc.Classes[k]
			search := s.For(cl.Name)
			cr := &ClassReport{
				Class: cl.Name, DeadlineSeconds: seconds(cl.Deadline), SLOSeconds: seconds(cl.SLO),
				Objective: search.Objective, Warnings: []string{},
				asked: int64(s.Requests),
			}
			cr.expect, cr.batched = classRun(gc, k)
			cr.replay = replayOf(gc, cfg, float64(len(group)))
			step := fmt.Sprintf("%s: round %d, class %s", groupName, round, cl.Name)
			me, err := m.get(step+": none", -1, func() (Measurement, error) {
				basePol := cl.Policy
				sim.NoHedging(&basePol)
				res, c, err := run(k, basePol, &sim.Pair{Record: true})
				if err != nil {
					return Measurement{}, fmt.Errorf("class %q: %w", cl.Name, err)
				}
				me := baseline(res, c, k, s.Level, search.Objective.Target)
				if grouped {
					me.Group = groupFigures(res, c, &s)
				}
				return me, nil
			})
			if err != nil {
				return nil, jg, "", err
			}
			if me == nil {
				return nil, jg, step, nil // the next stage's step
			}
			base := Candidate{Label: "none"}
			me.apply(&base)
			figs := [][]GroupFigure{me.Group} // by candidate: the group's figures in its run
			loads := [][]Load{me.Loads}
			var pair *sim.Pair // the step's candidates, paired with its baseline
			if me.MetBits != nil {
				pair = &sim.Pair{Base: me.MetBits}
			}
			if _, ok := grids[k]; !ok {
				// The grid is set once, from the first round's baseline, so
				// that every round sweeps the same candidates.
				one := *gc
				one.Classes = []sim.Class{*cl}
				grids[k], series[k] = grid(&one, search, me.Span[0], me.Span[1])
				if len(grids[k]) == 0 {
					return nil, jg, "", fmt.Errorf("class %q: every delay to try is at or past its deadline %s; try shorter delays", cl.Name, fsec(cl.Deadline.Seconds()))
				}
			}
			cr.Candidates = append([]Candidate{base}, slices.Clone(grids[k])...)
			cr.Series = series[k]
			cr.Requests = base.Requests
			figs = append(figs, make([][]GroupFigure, len(cr.Candidates)-1)...)
			loads = append(loads, make([][]Load, len(cr.Candidates)-1)...)
			failed := make([]error, len(cr.Candidates))
			var open atomic.Bool // a candidate of another shard
			err = parallelContext(ctx, len(cr.Candidates)-1, workers, func(j int) error {
				cand := &cr.Candidates[j+1]
				key := fmt.Sprintf("%s: candidate %d (%s)", step, j+1, cand.Label)
				me, err := m.get(key, j, func() (Measurement, error) {
					res, c, err := run(k, cand.Policy(cl.Policy), pair)
					me, merr := measureRun(ctx, key, res, c, k, err, s.Level, search.Objective.Target, base.secCost)
					if err == nil && grouped {
						me.Group = groupFigures(res, c, &s)
					}
					return me, merr
				})
				switch {
				case err != nil:
					return err
				case me == nil && !m.simulate:
					return missingError(key)
				case me == nil:
					open.Store(true)
				case me.Err != "":
					failed[j+1] = me.err()
				default:
					me.apply(cand)
					figs[j+1], loads[j+1] = me.Group, me.Loads
				}
				return nil
			}, progress(fmt.Sprintf("joint round %d, class %s", round, cl.Name), len(cr.Candidates)-1))
			if err != nil {
				return nil, jg, "", err
			}
			if open.Load() {
				return nil, jg, step, nil // other shards' candidates: the step's pick waits for the merge
			}
			var keptFigs [][]GroupFigure // in step with the candidates dropFailed keeps
			var keptLoads [][]Load
			for i := range figs {
				if failed[i] == nil {
					keptFigs, keptLoads = append(keptFigs, figs[i]), append(keptLoads, loads[i])
				}
			}
			if err := dropFailed(cr, failed); err != nil {
				return nil, jg, "", err
			}
			decide(cr, s.Rule, s.Level)
			if grouped {
				chooseForGroup(cr, k, current, keptFigs, keptLoads, gs, jg.Objective, &s)
			}
			if pol := cr.Picked().Policy(cl.Policy); !samePolicy(pol, current[k]) {
				current[k], changed = pol, true
			}
			reports[i] = cr
		}
		if !changed {
			jg.Converged = true
			break
		}
	}
	setGroupPicks(reports, group, gc)
	for _, k := range order {
		cr := reports[group[k]]
		var others []string
		for _, name := range jg.Classes {
			if name != cr.Class {
				others = append(others, name)
			}
		}
		cr.OptimizedWith = others
		var note string
		if len(others) == 0 {
			// A group of one: a closed-loop class, whose own traffic depends on its latency.
			note = fmt.Sprintf("optimized on the full scenario (%d requests per simulation), as its traffic comes from %s: its own rate depends on its latency; %d round(s)",
				jg.Requests, joinNames(shared), jg.Rounds)
		} else {
			note = fmt.Sprintf("optimized jointly with %s on their shared traffic (%d requests per simulation, all of the group's classes), as they share %s; %d round(s) of coordinate descent",
				joinNames(others), jg.Requests, joinNames(shared), jg.Rounds)
		}
		if !jg.Converged {
			note += fmt.Sprintf(", stopped at the limit of %d without converging: picks may still interact", MaxJointRounds)
		}
		cr.Warnings = append([]string{note}, cr.Warnings...)
	}
	return reports, jg, "", nil
}

// samePolicy reports whether two policies send the same copies at the same
// delays to the same targets (the parts a candidate sets).
func samePolicy(a, b sim.Policy) bool {
	return a.Copies == b.Copies && slices.Equal(a.Delays, b.Delays) && slices.Equal(a.Targets, b.Targets) &&
		a.NewProvider == b.NewProvider && (a.Adaptive == nil) == (b.Adaptive == nil) &&
		(a.Adaptive == nil || *a.Adaptive == *b.Adaptive) && a.AttemptTimeout == b.AttemptTimeout &&
		a.StreamCuts == b.StreamCuts
}

// Policy returns the policy candidate c simulates, built from the class's
// configured policy base: no copies and no per-attempt timeout for no
// hedging; otherwise c's copies, one fixed delay (no adaptive delay) and,
// when the search set them, c's targets in place of base's (and of "a
// different provider"). The rest — winner, error rules, cancellation,
// budgets — is base's.
func (c *Candidate) Policy(base sim.Policy) sim.Policy {
	pol := base
	if c.Configured {
		return pol
	}
	if c.adaptive != nil {
		return adaptivePolicy(c, base)
	}
	if !c.Hedging {
		sim.NoHedging(&pol)
		return pol
	}
	pol.Copies = c.Copies
	pol.Delays = []time.Duration{c.Delay}
	pol.Adaptive = nil
	if c.targets != nil {
		pol.Targets = c.targets
		pol.NewProvider = false
	}
	return pol
}

// SetsTargets reports whether c sends its copies to targets of its own
// (Target) rather than the class's configured ones.
func (c *Candidate) SetsTargets() bool { return c.targets != nil }

func joinNames(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	out := ""
	for i, x := range xs {
		switch {
		case i == 0:
		case i == len(xs)-1:
			out += " and "
		default:
			out += ", "
		}
		out += x
	}
	return out
}

// spanWarnings says when the simulated time of class cr's sweep (its
// requests at the class's share of the arrival rate; cfg's class i) is
// short next to what shapes it: a rate limit's burst (a bucket starts
// full, so a short run hides sustained overload) or a provider's
// slow-period cycle (requests in one slow period are not independent, so
// the intervals are too narrow; slowSpans), with the --requests that
// would cover FewSlowCycles and MinSlowCycles cycles.
func spanWarnings(cfg *sim.Config, i int, cr *ClassReport) []string {
	cl := &cfg.Classes[i]
	if cfg.Arrivals.Process == sim.Replay || cfg.Arrivals.Rate <= 0 || cl.Clients > 0 {
		return nil
	}
	span := float64(cr.Requests) / (cfg.Arrivals.Rate * cl.Share)
	models := append([]int{cl.Policy.Primary}, cl.Policy.Targets...)
	var w []string
	seen := map[string]bool{}
	burst := func(name string, r sim.RateLimit) {
		b := r.Burst.Seconds()
		if b <= 0 {
			b = 60
		}
		if (r.RequestsPerMinute > 0 || r.TokensPerMinute > 0) && span < MinRefills*b && !seen[name] {
			seen[name] = true
			w = append(w, fmt.Sprintf("the sweep simulates about %s of this class's traffic, %.1f× the %s burst of %s: a bucket that starts full can hide sustained overload (429s); raise --requests (the rollout check runs longer)",
				fsec(span), span/b, name, fsec(b)))
		}
	}
	for _, m := range models {
		md := &cfg.Models[m]
		burst("rate limit of model "+md.Name+"'s", md.RateLimit)
		for _, p := range cfg.Providers {
			if p.Name == md.Provider {
				burst("rate limit of provider "+p.Name+"'s", p.RateLimit)
			}
		}
	}
	for _, sp := range slowSpans(cfg, i, cr) {
		if sp.Cycles >= MinSlowCycles {
			continue
		}
		raise := fmt.Sprintf("raise --requests: ≥ %s covers the %d at which this warning stops", sp.requestsText(MinSlowCycles), MinSlowCycles)
		if sp.Cycles < FewSlowCycles {
			raise = fmt.Sprintf("raise --requests: ≥ %s covers %d cycles (%s), ≥ %s the %d at which this warning stops",
				sp.requestsText(FewSlowCycles), FewSlowCycles, fewSlowWhy, sp.requestsText(MinSlowCycles), MinSlowCycles)
		}
		w = append(w, fmt.Sprintf("the sweep covers about %.1f slow-period cycles of provider %s (%s of traffic, a cycle every %s on average): requests in one slow period are not independent, so intervals and significance are too optimistic; %s",
			sp.Cycles, sp.Provider, fsec(sp.Span), fsec(sp.Cycle), raise))
	}
	return w
}

// FewSlowCycles is how many slow-period cycles of a provider a sweep must
// cover for its verdict to count: with fewer than one the class's verdict
// is undecided (slowVerdict), and the advice asks for FewSlowCycles. A
// provider's normal periods last an exponential time of mean mean_normal,
// so a sweep of n cycles (n × (mean_normal + mean_degraded) of traffic)
// sees no slow period begin with probability at most e^(−n): under 5 %
// for 3 (fewSlowWhy).
const FewSlowCycles = 3

// fewSlowWhy says why FewSlowCycles cycles are few enough to judge on.
const fewSlowWhy = "a sweep that long sees no slow period with probability under e⁻³ ≈ 5%"

// MinSlowCycles is how many slow-period cycles a sweep must cover before
// spanWarnings stops warning that its intervals are too optimistic, as
// sim's run report does.
const MinSlowCycles = 100

// slowSpan is how much of a provider's slow-period cycle a class's sweep
// covers.
type slowSpan struct {
	Provider string
	// Cycles is Span ÷ Cycle; Span the sweep's seconds of the class's
	// traffic, Cycle mean_normal + mean_degraded in seconds.
	Cycles, Span, Cycle float64
	// perCycle is the --requests that give one cycle of the class's
	// traffic: the cycle's arrivals at the class's share, scaled by the
	// requests asked per request of the class (a coupled group's share).
	perCycle float64
}

// requestsText is the --requests that cover n cycles, or that they would
// take more than MaxRequests.
func (sp slowSpan) requestsText(n int) string {
	r := int64(math.Ceil(float64(n) * sp.perCycle))
	if r > MaxRequests {
		return fmt.Sprintf("%d (more than the %d allowed)", r, MaxRequests)
	}
	return fmt.Sprint(r)
}

// slowSpans returns, for each provider with slow periods (degraded) that
// class i of cfg sends attempts to, how many of its cycles the sweep of cr
// covers; none for a replayed trace, closed-loop clients or a class
// without requests, whose span is not known from its share.
func slowSpans(cfg *sim.Config, i int, cr *ClassReport) []slowSpan {
	cl := &cfg.Classes[i]
	if cfg.Arrivals.Process == sim.Replay || cfg.Arrivals.Rate <= 0 || cl.Clients > 0 || cr.Requests <= 0 {
		return nil
	}
	perSecond := cfg.Arrivals.Rate * cl.Share
	span := float64(cr.Requests) / perSecond
	asked := 1.0
	if cr.asked > 0 {
		asked = float64(cr.asked) / float64(cr.Requests)
	}
	var out []slowSpan
	seen := map[string]bool{}
	for _, m := range append([]int{cl.Policy.Primary}, cl.Policy.Targets...) {
		md := &cfg.Models[m]
		for _, p := range cfg.Providers {
			if d := p.Degraded; p.Name == md.Provider && d != nil && !seen[p.Name] {
				seen[p.Name] = true
				cycle := (d.MeanNormal + d.MeanDegraded).Seconds()
				out = append(out, slowSpan{Provider: p.Name, Cycles: span / cycle, Span: span, Cycle: cycle, perCycle: cycle * perSecond * asked})
			}
		}
	}
	return out
}

// slowVerdict makes cr's verdict undecided when it is a firm "don't hedge"
// from a sweep that covers less than one slow-period cycle of a provider
// the class uses (slowSpans): such a sweep may have seen none of its slow
// periods, and says nothing of hedging through them. The reason gives the
// --requests that cover FewSlowCycles cycles. A "hedge" stays: what it
// measured it measured without them.
func slowVerdict(cfg *sim.Config, i int, cr *ClassReport) {
	if cr.Verdict.Hedge || cr.Verdict.Undecided {
		return
	}
	for _, sp := range slowSpans(cfg, i, cr) {
		if sp.Cycles >= 1 {
			continue
		}
		cr.Verdict.Undecided = true
		cr.Verdict.Reason = fmt.Sprintf("cannot tell: the sweep covers about %.1f slow-period cycles of provider %s (%s of traffic, a cycle every %s on average), so it may have seen none of its slow periods: rerun with --requests ≥ %s (%d cycles: %s); at these requests: %s",
			sp.Cycles, sp.Provider, fsec(sp.Span), fsec(sp.Cycle), sp.requestsText(FewSlowCycles), FewSlowCycles, fewSlowWhy, cr.Verdict.Reason)
		label(cr)
		return
	}
}
