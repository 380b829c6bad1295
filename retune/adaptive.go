package retune

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// Adaptive against static: should a team retune the static hedge delay on
// a schedule, or let the client adapt it (an adaptive percentile delay,
// sim.Adaptive: Finagle's backup requests, a DDSketch percentile)? For
// each class, the static policy retune leaves it with (the new pick when
// the decision is change, else the current policy) and an adaptive
// percentile delay are simulated on the same requests (common random
// numbers, one seed) in two environments:
//
//   - the live models (LiveConfig);
//   - the shift: the scenario's models and the live ones alternating, by
//     the simulator's slow periods (sim.Degraded on each shifted model's
//     provider): the faster of the two models in normal periods, its
//     service times stretched by the ratio of the two models' means in
//     slow periods (so a slow period's mean is the slower model's), 10
//     cycles of equal mean halves over the run (ShiftConfig).
//
// What it costs: three runs of Requests per environment (the static
// policies with their no-hedging baseline, the adaptive ones), on the
// one-goroutine engine where an adaptive delay or slow periods take
// requests out of the independent lane.

// DefaultAdaptive is the adaptive delay compared with a class whose
// policy has none: the p95 of the primaries' last 1000 latencies, after
// 100 (the scenario file's defaults for window and warm_up).
var DefaultAdaptive = sim.Adaptive{Percentile: 0.95, Window: 1000, WarmUp: 100, Source: sim.FromPrimaries}

// ShiftCycles is the number of slow-period cycles the shift environment
// has over a run, on average.
const ShiftCycles = 10

// PolicyFigures are one class's figures under one policy in one
// environment.
type PolicyFigures struct {
	Requests int64 `json:"requests"`
	// Latency is the class's latency (seconds; +Inf a miss), with 95 %
	// intervals (sim.Latency).
	Latency       sim.Latency `json:"latency_s"`
	AnsweredShare float64     `json:"answered_share"`
	HedgedShare   float64     `json:"hedged_share"`
	// AddedCostPct is the cost over the same traffic without hedging, in
	// percent; NaN (null) when the class costs nothing.
	AddedCostPct jnum `json:"added_cost_pct"`
	// MeanDelay is, for an adaptive policy, the mean of its delay over
	// the run (seconds, from the simulator's delay trace); 0 otherwise.
	MeanDelay float64 `json:"mean_adaptive_delay_s,omitempty"`
	// answeredCI is the answered share's 95 % interval from batches, as
	// the run's report gives it when its requests interact; nil for
	// independent requests: Wilson's of AnsweredShare and Requests.
	answeredCI *[2]float64
	// capCostPct is the added cost on the class's cost basis, as
	// optimize holds a candidate to its cost cap: AddedCostPct, or, when
	// the class costs nothing (optimize.CostCalls), the added calls per
	// request in percent; NaN when unknown.
	capCostPct float64
}

// Tests of an EnvComparison (EnvComparison.Test).
const (
	// TestPaired: both runs' requests interact (sim's batched runs), and
	// the two are told apart by the paired differences of their batches.
	TestPaired = "paired batch differences"
	// TestIntervals: each run's own intervals, which must not overlap.
	TestIntervals = "intervals"
)

// pairedFigures are the paired differences adaptive − static of one
// class's two runs in one environment, over their batches (sim.PairDiff):
// the objective's percentile (q) and the answered share; each ok when it
// could be formed.
type pairedFigures struct {
	q, answered     sim.PairedDiff
	qOK, answeredOK bool
}

// pairRuns returns the paired differences adaptive − static of class
// results s and a of two runs on common random numbers at the 95 % level,
// nil unless both are batched (their requests interact): the
// pct-percentile's over their batches after the later warm-up cut
// (sim.PairedQuantileDiff), the answered share's over the fixed grid of
// the whole run (sim.ClassResult.GridShares), the requests its share is
// over.
func pairRuns(s, a *sim.ClassResult, sShare, aShare, pct float64) *pairedFigures {
	if !s.Batched() || !a.Batched() {
		return nil
	}
	const level = 0.95
	p := &pairedFigures{}
	var ok bool
	if p.q, ok = sim.PairedQuantileDiff(s, a, pct, level); ok {
		p.qOK = !math.IsNaN(p.q.CI[0]) && !math.IsNaN(p.q.CI[1])
	}
	ss, _, _, ok1 := s.GridShares(0)
	as, _, _, ok2 := a.GridShares(0)
	if ok1 && ok2 {
		p.answered = sim.PairDiff(sShare, ss, aShare, as, level)
		p.answeredOK = !math.IsNaN(p.answered.CI[0]) && !math.IsNaN(p.answered.CI[1])
	}
	return p
}

// EnvComparison is one environment's static and adaptive figures.
type EnvComparison struct {
	Static   PolicyFigures `json:"static"`
	Adaptive PolicyFigures `json:"adaptive"`
	// Better is "adaptive", "static" or "" (neither, within the
	// intervals), by the class's percentile and answered share (see
	// AdaptiveClass.Verdict); Test says how the two were told apart:
	// TestPaired or TestIntervals.
	Better string `json:"better"`
	Test   string `json:"test"`
	// Note says why the class's percentile could not be compared ("could
	// not compare p95: …"), empty when it could; Better is then "static"
	// when the adaptive delay answers significantly fewer, else "" (the
	// adaptive delay can be called neither better nor no worse).
	Note string `json:"note,omitempty"`
	// BetterOn says on what Better is better: "p95" (or "p99"), "answered"
	// (significantly, and worse on neither figure), or "added cost" (as
	// good within the intervals, at least 1 point cheaper). When Better
	// is "" because the policy better on a figure costs more and its gain
	// does not earn the added cost by the class's verdict rule
	// (earnsMove), it says so: "does not earn its added cost, …"; empty
	// otherwise when Better is.
	// When Better would be "adaptive" but the adaptive delay is over one
	// of the objective's caps (AdaptiveOverCaps), Better is "" and
	// BetterOn says so.
	BetterOn string `json:"better_on,omitempty"`
	// AdaptiveOverCaps are the objective's hard caps the adaptive delay
	// is over in this environment (optimize.Objective.CapReasons: the
	// added-cost cap of a p95, p99 or answered objective, the
	// hedged-share cap), as the optimisation rejects a candidate over
	// them (over_cost_cap, over_hedged_cap); empty when it is within
	// them. An adaptive delay over a cap is never better here, and the
	// class's verdict is then not "adapt" (AdaptiveClass.Verdict).
	AdaptiveOverCaps []optimize.Reason `json:"adaptive_over_caps,omitempty"`
	pair             *pairedFigures
}

// AdaptiveClass is one class's static policy against an adaptive delay.
type AdaptiveClass struct {
	Class string `json:"class"`
	// Static and Adaptive say the two policies in words; FromScenario is
	// true when the adaptive delay is the class's own (its policy has
	// one), false for DefaultAdaptive.
	Static       string `json:"static"`
	Adaptive     string `json:"adaptive"`
	FromScenario bool   `json:"adaptive_from_scenario"`
	// Percentile is the latency percentile compared (0.95, or 0.99 for a
	// p99 objective).
	Percentile float64 `json:"percentile"`
	// Live and Shift are the two environments (Shift nil when it could
	// not be modelled: see AdaptiveComparison.ShiftNote).
	Live  EnvComparison  `json:"live"`
	Shift *EnvComparison `json:"shift"`
	// Verdict is "adapt" (the adaptive delay does better through the
	// shift and no worse on the live models, within the objective's caps
	// in both), "retune on a schedule" (it does no better through the
	// shift, or it is over one of the objective's caps on the live models
	// or through the shift: EnvComparison.AdaptiveOverCaps, which Why then
	// gives with the figures), "trade-off" (better through
	// the shift, worse on the live models) or "undecided" (the class's
	// percentile could not be compared where the verdict needs it: see
	// EnvComparison.Note); Why gives the figures.
	Verdict string `json:"verdict"`
	Why     string `json:"why"`
	// CostNote says, when the static policy's added cost on the live
	// models here is more than 1 point off the figure the report gave
	// for the same policy above (the new pick's in the optimisation when
	// the class changes, else the current policy's in the rollout check),
	// that the two are separate simulations and of how many requests;
	// empty otherwise (see costNote).
	CostNote string `json:"cost_note,omitempty"`
}

// costNote returns AdaptiveClass.CostNote for class c, whose advice is a
// and whose comparison ran n requests of every class together: the same
// static policy simulated again gives its own estimate of added cost,
// which with slow periods, a breaker or a rate limit can be far from the
// other run's (chat.toml's tools: +14.8 % here, +31.0 % in the
// optimisation). Empty when the two are within 1 point or either is
// unknown.
func costNote(c *AdaptiveClass, a *ClassAdvice, n int) string {
	here := float64(c.Live.Static.AddedCostPct)
	above, what := math.NaN(), ""
	switch {
	case a.Decision == Change:
		above = float64(a.NewAddedCost)
		what = fmt.Sprintf("the new pick's in the optimisation on the live models, %d of the class's requests", a.NewRequests)
	case a.Now.AddedCostPct != nil:
		above = *a.Now.AddedCostPct
		what = fmt.Sprintf("the current policy's in the rollout check, %d of the class's requests", a.NowRequests)
	}
	if math.IsNaN(here) || math.IsNaN(above) || math.Abs(here-above) <= 1 {
		return ""
	}
	return fmt.Sprintf("the static policy's added cost here, %s (%d of the class's requests in this comparison's %d), is not the %s above (%s): separate simulations of the same policy on the live models, each an estimate with its own sampling noise (large when slow periods, a breaker or a rate limit make requests interact: see the warnings)",
		pctText(here), c.Live.Static.Requests, n, pctText(above), what)
}

// AdaptiveComparison is every class's static policy against an adaptive
// delay.
type AdaptiveComparison struct {
	Requests int `json:"requests"`
	// Shift says how the shift environment was made, or ShiftNote why
	// there is none.
	Shift     string          `json:"shift"`
	ShiftNote string          `json:"shift_note,omitempty"`
	Classes   []AdaptiveClass `json:"classes"`
	// Skipped names the classes not compared, with why (pipelines).
	Skipped []string `json:"skipped,omitempty"`
}

// AdaptivePolicy returns the adaptive variant of class cl's static policy
// static: the class's own policy when it has an adaptive delay (the
// scenario's: which percentile, window and budget); otherwise static with
// DefaultAdaptive — or, when static does not hedge, the class's
// configured policy with at least one copy — its first gap positive (the
// gap the adaptive delay replaces).
func AdaptivePolicy(cl *sim.Class, static sim.Policy) (sim.Policy, bool) {
	if cl.Policy.Adaptive != nil {
		return cl.Policy, true
	}
	p := static
	if p.Copies == 0 {
		// No hedging: the class's configured policy (its targets, rules
		// and attempt timeout), with at least one copy.
		p = cl.Policy
		p.Copies = max(p.Copies, 1)
	}
	a := DefaultAdaptive
	p.Adaptive = &a
	if p.Copies == 0 {
		p.Copies = 1
		if len(p.Targets) == 0 {
			p.Targets = slices.Clone(cl.Policy.Targets)
		}
		if len(p.Targets) == 0 {
			p.Targets = []int{p.Primary}
		}
	}
	if len(p.Delays) == 0 || p.Delays[0] <= 0 {
		p.Delays = []time.Duration{time.Second}
	}
	return p, false
}

// ShiftConfig returns the shift environment of cfg, the scenario, for
// the models that shifted: each such model keeps the faster (by mean) of
// its scenario and live latency (or TTFT), and its provider gets slow
// periods (sim.Degraded, no errors) stretching service times by the ratio
// of the slower mean to the faster, normal and slow periods each lasting
// span/(2·ShiftCycles) on average, span = n requests at the scenario's
// arrival rate. Models sharing a provider share its slow periods, at the
// largest of their ratios. It returns nil and why when the shift cannot
// be modelled: no arrival rate, a provider with slow periods of its own,
// a mean that is not finite.
func ShiftConfig(cfg *sim.Config, models []Model, n int) (*sim.Config, string, string) {
	rate := sim.ArrivalRate(cfg)
	if !(rate > 0) {
		return nil, "", "the scenario has no arrival rate to time slow periods by"
	}
	period := time.Duration(float64(n) / rate / (2 * ShiftCycles) * float64(time.Second))
	period = max(period, sim.MinDegradedPeriod)
	c := *cfg
	c.Models = slices.Clone(cfg.Models)
	c.Providers = slices.Clone(cfg.Providers)
	var parts []string
	slow := map[string]float64{}
	for _, m := range models {
		if !m.Refit() {
			continue
		}
		i := slices.IndexFunc(c.Models, func(x sim.Model) bool { return x.Name == m.Model })
		md := &c.Models[i]
		scen := md.Latency
		if m.Key == "ttft" {
			scen = md.TTFT
		}
		live := m.Fit.Best().Dist
		ms, ml := scen.Mean(), live.Mean()
		if !(ms > 0 && ml > 0) || math.IsInf(ms, 0) || math.IsInf(ml, 0) {
			return nil, "", fmt.Sprintf("model %s: a mean latency that is not finite and positive (scenario %g s, live %g s)", m.Model, ms, ml)
		}
		base, ratio, which := scen, ml/ms, "the scenario's"
		if ml < ms {
			base, ratio, which = live, ms/ml, "the live"
		}
		if m.Key == "ttft" {
			md.TTFT = base
		} else {
			md.Latency = base
		}
		prov := md.Provider
		if prov == "" {
			prov = md.Name
		}
		j := slices.IndexFunc(c.Providers, func(p sim.Provider) bool { return p.Name == prov })
		if j >= 0 && cfg.Providers[j].Degraded != nil {
			return nil, "", fmt.Sprintf("provider %s of model %s has slow periods of its own", prov, m.Model)
		}
		slow[prov] = max(slow[prov], ratio)
		part := fmt.Sprintf("model %s: %s model (mean %s s), ×%.3g in slow periods", m.Model, which, num(min(ms, ml)), ratio)
		if st := stretchNote(m.Drift.Percentiles, ml/ms); st != "" {
			part += " (" + st + ")"
		}
		parts = append(parts, part)
	}
	if len(slow) == 0 {
		return nil, "", "no model shifted"
	}
	provs := make([]string, 0, len(slow))
	for p := range slow {
		provs = append(provs, p)
	}
	slices.Sort(provs)
	for _, p := range provs {
		d := &sim.Degraded{MeanNormal: period, MeanDegraded: period, Slowdown: slow[p]}
		j := slices.IndexFunc(c.Providers, func(x sim.Provider) bool { return x.Name == p })
		if j < 0 {
			c.Providers = append(c.Providers, sim.Provider{Name: p, Degraded: d})
		} else {
			c.Providers[j].Degraded = d
		}
	}
	desc := fmt.Sprintf("%s; normal and slow periods of %s each on average, about %d cycles over the run", strings.Join(parts, "; "), sim.FormatSeconds(period.Seconds()), ShiftCycles)
	return &c, desc, ""
}

// stretchNote says when the live model is not the scenario's stretched:
// when a percentile's ratio live/scenario is more than 25 % off the ratio
// of the means, the slow periods match the live mean but not its shape.
func stretchNote(ps []Shift, ratio float64) string {
	var far []string
	for _, p := range ps {
		r := p.Live / p.Scenario
		if p.Scenario > 0 && !math.IsInf(p.Live, 0) && math.Abs(r/ratio-1) > 0.25 {
			far = append(far, fmt.Sprintf("p%g ×%.3g", 100*p.P, r))
		}
	}
	if len(far) == 0 {
		return ""
	}
	return fmt.Sprintf("the live model is not the scenario's stretched: %s against a mean ×%.3g, so the slow periods have the live mean, not its shape", strings.Join(far, ", "), ratio)
}

// CompareAdaptive simulates, in each environment (live, and shift when
// not nil; each a configuration whose classes carry their static
// policies), every class with its no-hedging baseline, and the same with
// every class on its adaptive policy (adaptive[i] for class i; a class
// with skip[i] set keeps its static policy and is left out), n requests
// on the configuration's seed, all the runs at once (a run that takes
// the lane is split over workers goroutines). pct[i] is class i's
// percentile to compare; objs[i], when objs is not nil, is class i's
// objective, whose hard caps the adaptive policy must keep in an
// environment to be better there (EnvComparison.AdaptiveOverCaps). It
// stops with ctx's error when ctx is done.
func CompareAdaptive(ctx context.Context, live, shift *sim.Config, adaptive []sim.Policy, skip []bool, pct []float64, objs []optimize.Objective, rule optimize.Rule, n, workers int) ([][2]*EnvComparison, error) {
	envs := []*sim.Config{live, shift}
	type runs struct {
		sc, ac                 sim.Config
		static, base, adaptive *sim.Result
		staticErr, adaptiveErr error
	}
	rs := make([]*runs, len(envs))
	// Every run at once: a run with an adaptive delay or slow periods is
	// made on one goroutine, so the static runs (and their baselines) and
	// the adaptive ones of both environments share the cores. Each run's
	// result depends only on its configuration and seed, not on the
	// others.
	var wg sync.WaitGroup
	for e, env := range envs {
		if env == nil {
			continue
		}
		r := &runs{sc: *env}
		r.sc.Requests = n
		r.ac = r.sc
		r.ac.Classes = slices.Clone(r.sc.Classes)
		for i := range r.ac.Classes {
			if !skip[i] {
				r.ac.Classes[i].Policy = adaptive[i]
			}
		}
		rs[e] = r
		wg.Add(2)
		go func() {
			defer wg.Done()
			r.static, r.base, r.staticErr = sim.RunWithBaseline(ctx, &r.sc, workers)
		}()
		go func() {
			defer wg.Done()
			r.adaptive, r.adaptiveErr = sim.RunSplit(ctx, &r.ac, workers)
		}()
	}
	wg.Wait()
	out := make([][2]*EnvComparison, len(live.Classes))
	for e, r := range rs {
		if r == nil {
			continue
		}
		if err := cmp.Or(r.staticErr, r.adaptiveErr); err != nil {
			return nil, err
		}
		rep, ra := sim.NewReport(&r.sc, r.static, r.base), sim.NewReport(&r.ac, r.adaptive, r.base)
		for i := range r.sc.Classes {
			if skip[i] {
				continue
			}
			b := &r.base.Classes[i]
			ec := &EnvComparison{Static: figuresOf(&rep.Classes[i], &r.static.Classes[i], b), Adaptive: figuresOf(&ra.Classes[i], &r.adaptive.Classes[i], b)}
			ec.pair = pairRuns(&r.static.Classes[i], &r.adaptive.Classes[i], ec.Static.AnsweredShare, ec.Adaptive.AnsweredShare, pct[i])
			ec.Better, ec.Test, ec.Note, ec.BetterOn = betterOn(&ec.Static, &ec.Adaptive, pct[i], ec.pair, rule)
			if objs != nil {
				ec.capAdaptive(objs[i])
			}
			out[i][e] = ec
		}
	}
	return out, nil
}

// figuresOf returns the figures of class report c of run r, whose
// no-hedging baseline is b (for the added cost in calls of a class that
// costs nothing: capCostPct).
func figuresOf(c *sim.ClassReport, r, b *sim.ClassResult) PolicyFigures {
	f := PolicyFigures{Requests: c.Requests, Latency: c.Latency, AnsweredShare: c.AnsweredShare, HedgedShare: c.HedgedShare, AddedCostPct: jnum(math.NaN()), capCostPct: math.NaN()}
	if c.AddedCostPct != nil {
		f.AddedCostPct = jnum(*c.AddedCostPct)
		f.capCostPct = *c.AddedCostPct
	} else if b != nil && b.Attempts.Sent > 0 && b.Requests > 0 && r.Requests > 0 {
		// As optimize's cost basis in calls, and its rollout check's.
		f.capCostPct = 100 * (float64(r.Attempts.Sent)/float64(r.Requests)/(float64(b.Attempts.Sent)/float64(b.Requests)) - 1)
	}
	if ci := c.AnsweredShareCI95; c.Batches != nil && ci != nil && ci[0] != nil && ci[1] != nil {
		f.answeredCI = &[2]float64{*ci[0], *ci[1]}
	}
	if tr := r.AdaptiveDelay; len(tr) > 0 {
		// Time-weighted over the trace, each delay in force until the next.
		var sum, span float64
		for k := 0; k+1 < len(tr); k++ {
			dt := tr[k+1].At - tr[k].At
			sum += tr[k].Delay * dt
			span += dt
		}
		if span > 0 {
			f.MeanDelay = sum / span
		} else {
			f.MeanDelay = tr[len(tr)-1].Delay
		}
	}
	return f
}

// better compares a static and an adaptive run of one class, as Decide
// compares a new pick with the current policy: "adaptive" when the
// adaptive one does significantly better on the class's percentile (pct:
// 0.95, or 0.99) or its answered share and significantly worse on
// neither — and, when it costs more, its gain earns the added cost by
// rule, the class's verdict rule (earnsMove: a move from the static
// policy to the adaptive one must buy the rule's gain per 1 % of added
// cost) — or when it is neither better nor worse but at least 1 point of
// added cost cheaper; "static" the reverse; "" otherwise (alike at about
// the same cost, better on one and worse on the other, or better at an
// added cost its gain does not earn: the cheaper one is then worse on a
// figure, so neither is called better). It also returns the test it used.
//
// When both runs' requests interact (pair is not nil: a queue, a limit,
// slow periods, an adaptive delay), a figure differs significantly when
// the 95 % interval of its paired difference over the two runs' batches
// excludes 0 (the runs share their random numbers, so what a batch's
// requests shared cancels; TestPaired). Otherwise — independent requests,
// or a difference that cannot be formed — the two runs' own 95 %
// intervals must not overlap: the percentile's (order statistics for
// independent requests, batch means when they interact, as sim reports
// them; only when both are sound) and the answered share's (Wilson's for
// independent requests, batch means when they interact; TestIntervals).
//
// When the percentile cannot be compared — a run's interval is not sound
// (too few of the class's requests, or too few per batch), and both
// percentiles are not misses alike — the third result says so ("could not
// compare p95: …"), and the adaptive run is never better: neither the
// answered share nor the cost decides, since its percentile might be
// worse. It is "static" when the adaptive run answers significantly
// fewer (worse on one figure whatever the percentile), else "".
func better(s, a *PolicyFigures, pct float64, pair *pairedFigures, rule optimize.Rule) (string, string, string) {
	who, test, note, _ := betterOn(s, a, pct, pair, rule)
	return who, test, note
}

// betterOn is better, also saying on what the better one is better
// (EnvComparison.BetterOn).
func betterOn(s, a *PolicyFigures, pct float64, pair *pairedFigures, rule optimize.Rule) (string, string, string, string) {
	name := fmt.Sprintf("p%g", 100*pct)
	sq, sci, sok := s.Latency.P95, s.Latency.P95CI95, s.Latency.P95CIOK
	aq, aci, aok := a.Latency.P95, a.Latency.P95CI95, a.Latency.P95CIOK
	if pct == 0.99 {
		sq, sci, sok = s.Latency.P99, s.Latency.P99CI95, s.Latency.P99CIOK
		aq, aci, aok = a.Latency.P99, a.Latency.P99CI95, a.Latency.P99CIOK
	}
	test := TestIntervals
	if pair != nil && pair.qOK {
		test = TestPaired
	}
	var aMore, sMore bool
	if pair != nil && pair.answeredOK {
		test = TestPaired
		aMore, sMore = pair.answered.CI[0] > 0, pair.answered.CI[1] < 0
	} else {
		al, ah := answeredInterval(a)
		sl, sh := answeredInterval(s)
		aMore, sMore = al > sh, sl > ah
	}
	if !(sok && aok) && !(math.IsInf(sq, 1) && math.IsInf(aq, 1)) {
		var runs []string
		if !sok {
			runs = append(runs, "the static run's")
		}
		if !aok {
			runs = append(runs, "the adaptive run's")
		}
		note := fmt.Sprintf("could not compare p%g: %s 95 %% interval is not sound (too few of the class's requests, or too few in each batch; more --requests may give one): static %s, adaptive %s",
			100*pct, strings.Join(runs, " and "), sec(sq), sec(aq))
		if sMore && !aMore {
			// The adaptive delay answers fewer: worse on one figure
			// whatever its percentile.
			return "static", test, note, "answered"
		}
		return "", test, note, ""
	}
	var aFaster, sFaster bool
	if pair != nil && pair.qOK {
		aFaster = pair.q.CI[1] < 0
		sFaster = pair.q.CI[0] > 0
	} else {
		aFaster = aci[1] < sci[0]
		sFaster = sci[1] < aci[0]
		// An interval unbounded above around a finite percentile (its
		// upper end reaches requests not answered in time) cannot
		// show that its run is no slower: only that the other is.
		var open []string
		if openAbove(sq, sci) && !aFaster {
			open = append(open, "the static run's")
		}
		if openAbove(aq, aci) && !sFaster {
			open = append(open, "the adaptive run's")
		}
		if len(open) > 0 {
			note := fmt.Sprintf("could not compare %s: %s 95 %% interval has no upper bound (it reaches requests not answered in time; more --requests may give one): static %s, adaptive %s",
				name, strings.Join(open, " and "), sec(sq), sec(aq))
			if sMore && !aMore {
				return "static", test, note, "answered"
			}
			return "", test, note, ""
		}
	}
	on := func(faster, more bool) string {
		if faster {
			return name
		}
		return "answered"
	}
	switch {
	case (aFaster || aMore) && !(sFaster || sMore):
		if why := earnsMove(s, a, name, sq, aq, aFaster, aMore, "the adaptive delay", "the static policy's", rule); why != "" {
			return "", test, "", why
		}
		return "adaptive", test, "", on(aFaster, aMore)
	case (sFaster || sMore) && !(aFaster || aMore):
		if why := earnsMove(a, s, name, aq, sq, sFaster, sMore, "the static policy", "the adaptive delay's", rule); why != "" {
			return "", test, "", why
		}
		return "static", test, "", on(sFaster, sMore)
	case aFaster || aMore: // each better on one: a trade, neither
		return "", test, "", ""
	case float64(a.AddedCostPct) < float64(s.AddedCostPct)-1:
		return "adaptive", test, "", "added cost"
	case float64(s.AddedCostPct) < float64(a.AddedCostPct)-1:
		return "static", test, "", "added cost"
	}
	return "", test, "", ""
}

// answeredInterval is f's answered share's 95 % interval: its run's, or
// Wilson's.
func answeredInterval(f *PolicyFigures) (float64, float64) {
	if f.answeredCI != nil {
		return f.answeredCI[0], f.answeredCI[1]
	}
	const z = 1.959963984540054
	return wilson(f.AnsweredShare, f.Requests, z)
}

// verdict says, from the two environments, whether to retune on a
// schedule or let the client adapt (see AdaptiveClass.Verdict).
func verdict(c *AdaptiveClass) {
	name := fmt.Sprintf("p%g", 100*c.Percentile)
	fig := func(f *PolicyFigures) string {
		q := f.Latency.P95
		if c.Percentile == 0.99 {
			q = f.Latency.P99
		}
		return fmt.Sprintf("%s %s, answered %.1f%%, hedged %.1f%%, added cost %s", name, sec(q), 100*f.AnsweredShare, 100*f.HedgedShare, pctText(float64(f.AddedCostPct)))
	}
	env := func(what string, e *EnvComparison) string {
		s := fmt.Sprintf("%s: static %s; adaptive %s", what, fig(&e.Static), fig(&e.Adaptive))
		switch {
		case e.Note != "":
			s += " (" + e.Note + ")"
		case e.Better == "" && e.BetterOn != "":
			s += " (" + e.BetterOn + ")"
		}
		if t := e.overCapsText(); t != "" && t != e.BetterOn {
			s += " (" + t + ")"
		}
		return s
	}
	why := env("on the live models", &c.Live)
	liveOver := len(c.Live.AdaptiveOverCaps) > 0
	if c.Shift == nil {
		switch {
		case liveOver:
			// As optimize rejects a candidate over a cap, whatever it
			// buys.
			c.Verdict = "retune on a schedule"
		case c.Live.Better == "adaptive":
			c.Verdict = "adapt"
		case c.Live.Better == "" && c.Live.Note != "":
			c.Verdict = "undecided"
		default:
			c.Verdict = "retune on a schedule"
		}
		c.Why = why + " (no shift modelled)"
		return
	}
	why += "; " + env("through the shift", c.Shift)
	switch s, l := c.Shift.Better, c.Live.Better; {
	case liveOver || len(c.Shift.AdaptiveOverCaps) > 0:
		// As optimize rejects a candidate over a cap, whatever it buys:
		// an adaptive delay over one in either environment is not
		// recommended, nor traded off.
		c.Verdict = "retune on a schedule"
	case s == "adaptive" && l == "static":
		c.Verdict = "trade-off"
	case s == "adaptive" && c.Live.Note != "", s == "" && c.Shift.Note != "":
		// Better through the shift but not known to be no worse on the
		// live models, or not compared through the shift.
		c.Verdict = "undecided"
	case s == "adaptive":
		c.Verdict = "adapt"
	default:
		c.Verdict = "retune on a schedule"
	}
	c.Why = why
}

// adaptiveRow is one row of the comparison's table, formatted: a policy of
// a class (static, then adaptive) in one environment (live, then shift).
// P names the class's objective percentile ("p95") and Q is its value.
type adaptiveRow struct {
	Class, Policy, Models, P, Q, Answered, Hedged, AddedCost, Delay string
}

// rows returns the comparison's table, class by class, as the text and
// the HTML page show it.
func (ac *AdaptiveComparison) rows() []adaptiveRow {
	var out []adaptiveRow
	for i := range ac.Classes {
		c := &ac.Classes[i]
		for _, e := range []struct {
			name string
			env  *EnvComparison
		}{{"live", &c.Live}, {"shift", c.Shift}} {
			if e.env == nil {
				continue
			}
			for _, p := range []struct {
				label string
				f     *PolicyFigures
			}{{"static " + c.Static, &e.env.Static}, {c.Adaptive, &e.env.Adaptive}} {
				f := p.f
				q := f.Latency.P95
				if c.Percentile == 0.99 {
					q = f.Latency.P99
				}
				r := adaptiveRow{Class: c.Class, Policy: p.label, Models: e.name, P: fmt.Sprintf("p%g", 100*c.Percentile), Q: sec(q),
					Answered: fmt.Sprintf("%.1f%%", 100*f.AnsweredShare), Hedged: fmt.Sprintf("%.1f%%", 100*f.HedgedShare),
					AddedCost: pctText(float64(f.AddedCostPct)), Delay: "-"}
				if f.MeanDelay > 0 {
					r.Delay = sec(f.MeanDelay)
				}
				out = append(out, r)
			}
		}
	}
	return out
}
