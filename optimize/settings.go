package optimize

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// Defaults of Settings (see DefaultSettings).
const (
	// DefaultRequests is the number of requests simulated per candidate.
	DefaultRequests = 200_000
	// MaxRequests bounds Settings.Requests.
	MaxRequests = sim.MaxRequests
	// DefaultLevel is the confidence level of the intervals.
	DefaultLevel = 0.95
	// DefaultDelayCount is how many delays the default grid spans between
	// the class's no-hedging p10 and p99, before rounding (delay 0 is added).
	DefaultDelayCount = 40
	// MaxDelays bounds the number of delays a grid may have.
	MaxDelays = 1000
	// DefaultCheckRequests is the largest default number of requests of the
	// rollout check (see Settings.CheckRequests).
	DefaultCheckRequests = 1_000_000
)

// Goal is what an objective optimises.
type Goal uint8

const (
	// LowestLatency picks on the trade-off (objectives "p95" and "p99"):
	// the point of the added-cost versus percentile frontier, among the
	// candidates within the caps, past which more cost no longer passes
	// the verdict rule's marginal test — ≥ MinGainPerCost percent of the
	// percentile or ≥ MinUnansweredCutPerCost percent of the unanswered
	// share per percent of added cost (tradeoff.go). With both thresholds
	// 0 that is the lowest percentile within the caps; ties go to the
	// higher answered share, then the lower cost.
	LowestLatency Goal = iota
	// LowestCost picks the cheapest candidate whose percentile is at most
	// the SLA (objective "cost"); when none is, the lowest percentile.
	LowestCost
	// Knee picks the knee of the cost-versus-percentile frontier (objective
	// "knee"): the frontier point farthest above the chord from its cheapest
	// to its fastest point, both axes scaled to [0, 1] (the Kneedle rule of
	// Satopää et al., 2011). A frontier of fewer than three points, or one
	// with no point at least MinKneeDistance (0.02) above the chord in
	// those scaled units, shows no diminishing returns: its fastest point
	// is picked (and the verdict says whether it is worth it).
	Knee
	// MostAnswered picks on the trade-off of the share of requests
	// answered within Objective.Target (objective "answered"): the SLO
	// view, "95 % of requests get a usable answer within 2 s". Among the
	// candidates within the added-cost and hedged-share caps, it walks the
	// added-cost versus answered-within-target frontier while each move
	// cuts the share not answered within the target by at least
	// MinUnansweredCutPerCost percent (of no hedging's) per percent of
	// added cost (tradeoff.go); with a threshold of 0, the most answered.
	// Ties go to the lower percentile, then the lower cost. With
	// Objective.Checked (objective "checked", pipeline classes) the share
	// counts only the turns checked within the target.
	MostAnswered
)

// Objective says how the pick is chosen among a class's candidates.
type Objective struct {
	Goal Goal
	// Percentile is the latency percentile the objective and the verdict
	// look at, 0.95 or 0.99.
	Percentile float64
	// MaxAddedCostPct caps the added cost in percent of the no-hedging cost
	// for LowestLatency and MostAnswered: a hard ceiling, set by the user;
	// ≥ 0, +Inf for no cap, the default (0 is a cap of 0, not "off"). The
	// other goals ignore it (JSON max_added_cost_pct is then null).
	MaxAddedCostPct float64
	// MinGainPerCost and MinUnansweredCutPerCost are the marginal test of
	// LowestLatency and MostAnswered (tradeoff.go): Run sets them from the
	// verdict rule's fields of the same names; 0 passes any gain.
	MinGainPerCost, MinUnansweredCutPerCost float64
	// MaxHedgedPct caps the percentage of requests that send a copy, for
	// every goal; in [0, 100], 100 for no cap (0 is a cap of 0, which rules
	// out hedging, not "off").
	MaxHedgedPct float64
	// SLA is the latency the percentile must not exceed, for LowestCost; > 0.
	SLA time.Duration
	// Target is the latency within which a request counts as answered, for
	// MostAnswered; > 0.
	Target time.Duration
	// Checked, with MostAnswered (objective "checked"), counts a pipeline
	// turn within Target only when it went through checked — every
	// fail-open step answered in time (sim.PipelineResult.Checked) — rather
	// than whenever it was answered, checked or degraded. Only a pipeline
	// class (other than one plain call, sim.Pipeline.OneCall) may have it.
	Checked bool
	// AllowFewerAnswers lets the pick be a candidate whose answered share
	// is significantly lower than no hedging's (Candidate.FewerAnswers);
	// off by default, so that no pick trades answers for speed. Run sets
	// it from Rule.AllowFewerAnswers.
	AllowFewerAnswers bool
	// cutLevel is the confidence level, in (0, 1), at which a trade-off
	// move of LowestLatency that passes the marginal test only on the
	// unanswered share must cut it significantly (unansweredCut), and
	// every passing move of MostAnswered must cut the share not answered
	// (checked) within the target significantly (withinCut); 0: no such
	// test. decide sets it to the verdict's level when
	// Rule.RequireSignificant.
	cutLevel float64
}

// objectiveNames are the names of objectives in scenario files and flags.
var objectiveNames = []string{"p95", "p99", "cost", "knee", "answered", "checked"}

// ObjectiveNames returns the names ParseObjective accepts.
func ObjectiveNames() []string { return slices.Clone(objectiveNames) }

// SetName sets the goal and percentile of o from an objective name: "p95"
// and "p99" (lowest percentile), "cost" and "knee" (on p95), "answered"
// (most requests answered within Target), "checked" (most pipeline turns
// checked within Target). Caps, SLA and Target are left as they are.
func (o *Objective) SetName(name string) error {
	checked := false
	switch name {
	case "p95":
		o.Goal, o.Percentile = LowestLatency, 0.95
	case "p99":
		o.Goal, o.Percentile = LowestLatency, 0.99
	case "cost":
		o.Goal, o.Percentile = LowestCost, 0.95
	case "knee":
		o.Goal, o.Percentile = Knee, 0.95
	case "answered":
		o.Goal, o.Percentile = MostAnswered, 0.95
	case "checked":
		o.Goal, o.Percentile, checked = MostAnswered, 0.95, true
	default:
		return fmt.Errorf("unknown objective %q; allowed: %s", name, strings.Join(objectiveNames, ", "))
	}
	o.Checked = checked
	return nil
}

// Name returns the objective's name, such as "p95" or "cost".
func (o Objective) Name() string {
	switch o.Goal {
	case LowestCost:
		return "cost"
	case Knee:
		return "knee"
	case MostAnswered:
		if o.Checked {
			return "checked"
		}
		return "answered"
	}
	return pname(o.Percentile)
}

// String describes the objective in words, with its caps.
func (o Objective) String() string {
	p := pname(o.Percentile)
	hedged := ""
	if o.MaxHedgedPct < 100 {
		hedged = fmt.Sprintf(" and hedged share ≤ %s%%", fnum(o.MaxHedgedPct))
	}
	switch o.Goal {
	case LowestCost:
		return fmt.Sprintf("lowest cost with %s ≤ %s%s", p, fsec(o.SLA.Seconds()), hedged)
	case Knee:
		s := fmt.Sprintf("knee of the added-cost versus %s frontier", p)
		if hedged != "" {
			s += " (candidates with" + strings.TrimPrefix(hedged, " and") + ")"
		}
		return s
	}
	s := "lowest " + p
	if o.Goal == MostAnswered {
		s = fmt.Sprintf("most requests %s within %s", o.WithinWord(), fsec(o.Target.Seconds()))
	}
	if o.walks() {
		s = p + " on the trade-off"
		if o.Goal == MostAnswered {
			s = fmt.Sprintf("%s within %s on the trade-off", o.WithinWord(), fsec(o.Target.Seconds()))
		}
		s += " (each move along the frontier buys " + o.test() + ")"
	}
	if math.IsInf(o.MaxAddedCostPct, 1) {
		if hedged == "" {
			return s
		}
		return s + " with" + strings.TrimPrefix(hedged, " and")
	}
	return fmt.Sprintf("%s with added cost ≤ +%s%%%s", s, fnum(o.MaxAddedCostPct), hedged)
}

func (o Objective) validate() error {
	switch {
	case o.Goal > MostAnswered:
		return fmt.Errorf("unknown goal %d", o.Goal)
	case o.Percentile != 0.95 && o.Percentile != 0.99:
		return fmt.Errorf("percentile %v: must be 0.95 or 0.99", o.Percentile)
	case !(o.MaxAddedCostPct >= 0):
		return fmt.Errorf("max added cost %v%%: must be ≥ 0 (+Inf for no cap)", o.MaxAddedCostPct)
	case !(o.MaxHedgedPct >= 0 && o.MaxHedgedPct <= 100):
		return fmt.Errorf("max hedged share %v%%: must be in [0, 100]", o.MaxHedgedPct)
	case o.Goal == LowestCost && o.SLA <= 0:
		return errors.New("objective cost needs an SLA > 0 (the latency the percentile must not exceed)")
	case o.SLA < 0:
		return fmt.Errorf("SLA %v: must be > 0", o.SLA)
	case o.Checked && o.Goal != MostAnswered:
		return errors.New("checked counts turns within a target: it goes with the most-answered goal only")
	case o.Goal == MostAnswered && o.Target <= 0:
		return fmt.Errorf("objective %s needs a target > 0 (the latency within which a request counts as %s, such as 2s)", o.Name(), o.WithinWord())
	case o.Target < 0:
		return fmt.Errorf("target %v: must be > 0", o.Target)
	}
	return nil
}

// WithinWord is what a request within the target is under the objective:
// "answered", or "checked" (Objective.Checked).
func (o Objective) WithinWord() string {
	if o.Checked {
		return "checked"
	}
	return "answered"
}

// WithinVerb is what a candidate does to the requests within the target:
// "answers", or "checks" (Objective.Checked).
func (o Objective) WithinVerb() string {
	if o.Checked {
		return "checks"
	}
	return "answers"
}

// Rule is the verdict rule: when the pick is worth shipping. The pick is
// worth it when its percentile falls by at least MinGainPct percent of the
// no-hedging value, by at least MinGainPerCost percent per percent of added
// cost (a pick that is also cheaper always passes this test), and, with
// RequireSignificant, the confidence intervals of the percentile before and
// after do not overlap. It is also worth it when the share of requests
// without a usable answer in time (timeouts, errors, invalid answers) falls
// by at least MinGainPct percent, by at least MinUnansweredCutPerCost
// percent per percent of added cost and, with RequireSignificant,
// significantly (disjoint Wilson intervals): a class with a deadline may
// hedge to answer more requests in time even when its p95 sits at the
// deadline.
//
// The defaults encode field report 2's rule of thumb (README, Background):
// −25 % p95 for +8 % cost (3.1 % per %) is worth it; −10 % for +20 %
// (0.5 % per %) is not. An
// answer that would otherwise be missing is worth more than a faster one:
// field report 1 (answered share 50 % → 87.5 %, i.e. −75 % unanswered, for
// +75 % calls) passes the rule. The rule judges the objective's pick and,
// when it fails, the candidates within the objective's limits (the cheapest
// that passes for objective cost and a trade-off pick, else the fastest,
// becomes the pick); the default objective
// has no cost cap: a user's cap (max_added_cost_pct, --max-cost) that
// excludes every +75 % candidate gets that class told "don't hedge", with a
// note that the rule would accept the trade beyond the objective's limits.
// The rule's per-cost tests are also the objectives' marginal test: the
// default pick is where moving further along the frontier no longer passes
// them (tradeoff.go).
//
// Whatever the rule, a pick is never worth it when the requests are too few
// for an order-statistic interval on the percentile (MinRequestsForCI).
type Rule struct {
	// MinGainPct is the smallest relative improvement worth having, in
	// percent; ≥ 0. Default 10.
	MinGainPct float64
	// MinGainPerCost is the smallest fall of the percentile, in percent,
	// that each percent of added cost must buy; ≥ 0. Default 1.
	MinGainPerCost float64
	// MinUnansweredCutPerCost is the smallest fall of the unanswered share,
	// in percent, that each percent of added cost must buy; ≥ 0. Default 0.5.
	MinUnansweredCutPerCost float64
	// RequireSignificant requires the improvement to be significant: the
	// intervals before and after are disjoint. Default true.
	RequireSignificant bool
	// AllowFewerAnswers lets a candidate whose answered share is
	// significantly lower than no hedging's be picked and judged "hedge".
	// Default false: a pick never trades answers for speed.
	AllowFewerAnswers bool
	// ExcludeOverload excludes every candidate that overloads a
	// request-rate limit no hedging does not, even when the sweep ran long
	// enough to measure its 429s (the conservative option). Default
	// false: such a candidate is judged on its measured percentile,
	// answered share and cost, 429s included, and excluded only when the
	// sweep's span is too short to measure them (see MinRefills).
	ExcludeOverload bool
}

func (r Rule) validate() error {
	switch {
	case !(r.MinGainPct >= 0) || math.IsInf(r.MinGainPct, 1):
		return fmt.Errorf("min gain %v%%: must be finite and ≥ 0", r.MinGainPct)
	case !(r.MinGainPerCost >= 0) || math.IsInf(r.MinGainPerCost, 1):
		return fmt.Errorf("min gain per cost %v: must be finite and ≥ 0", r.MinGainPerCost)
	case !(r.MinUnansweredCutPerCost >= 0) || math.IsInf(r.MinUnansweredCutPerCost, 1):
		return fmt.Errorf("min unanswered cut per cost %v: must be finite and ≥ 0", r.MinUnansweredCutPerCost)
	}
	return nil
}

// Describe states the rule for the percentile p (0.95 or 0.99) at the
// confidence level, as printed in reports.
func (r Rule) Describe(p, level float64) string {
	s := fmt.Sprintf("hedge when %s falls by ≥ %s%% and by ≥ %s%% per 1%% of added cost (a cheaper pick always passes the second test)",
		pname(p), fnum(r.MinGainPct), fnum(r.MinGainPerCost))
	if r.RequireSignificant {
		s += fmt.Sprintf(", and its %s%% intervals before and after do not overlap (when requests interact: the interval of the paired difference excludes 0)", fnum(100*level))
	}
	return s + fmt.Sprintf("; or when the share of requests without a usable answer in time falls by ≥ %s%% and by ≥ %s%% per 1%% of added cost (significantly)",
		fnum(r.MinGainPct), fnum(r.MinUnansweredCutPerCost))
}

// describeWithin says r as JudgeWithin applies it to a share of requests
// word ("answered" or "checked") within target seconds, intervals at
// level.
func (r Rule) describeWithin(word string, target, level float64) string {
	s := fmt.Sprintf("hedge when the share of requests not %s within %s falls by ≥ %s%% and by ≥ %s%% per 1%% of added cost (a cheaper pick always passes the second test)",
		word, fsec(target), fnum(r.MinGainPct), fnum(r.MinUnansweredCutPerCost))
	if r.RequireSignificant {
		s += fmt.Sprintf(", and its %s%% Wilson intervals before and after do not overlap (when requests interact: the interval of the paired difference excludes 0)", fnum(100*level))
	}
	return s
}

// Search is the grid of candidates for a class and the objective that
// chooses among them.
type Search struct {
	// Delays are the hedge delays to try, in ascending order: copy j is
	// sent Delays[i] after copy j−1. nil means the default grid: delay 0
	// and DefaultDelayCount delays spaced geometrically from the class's
	// no-hedging p10 to its p99, rounded to three significant digits.
	Delays []time.Duration
	// Copies are the maximum numbers of copies beyond the primary to try,
	// each in [1, sim.MaxCopies]; nil means the class's own max_copies
	// (1 when the class does not hedge). Run tries them in ascending
	// order, each once.
	Copies []int
	// Targets are the models to send the copies to, by name; nil means the
	// class's own targets (the primary model when it has none). Run tries
	// each once, in the order given.
	Targets []string
	// Adaptive are the percentiles (fractions in (0, 1), ascending) of
	// the adaptive delays to try beside the fixed ones, one candidate
	// "adaptive pNN" each (adaptive.go); nil tries none.
	Adaptive []float64
	// Objective chooses the pick.
	Objective Objective
}

func (s *Search) validate(models map[string]bool) error {
	if s.Delays != nil {
		if len(s.Delays) == 0 {
			return errors.New("empty delay list")
		}
		if len(s.Delays) > MaxDelays {
			return fmt.Errorf("%d delays: at most %d", len(s.Delays), MaxDelays)
		}
		for _, d := range s.Delays {
			if d < 0 {
				return fmt.Errorf("delay %v: must be ≥ 0", d)
			}
		}
	}
	if s.Copies != nil && len(s.Copies) == 0 {
		return errors.New("empty copies list")
	}
	for _, k := range s.Copies {
		if k < 1 || k > sim.MaxCopies {
			return fmt.Errorf("copies %d: must be in [1, %d] (copies beyond the primary)", k, sim.MaxCopies)
		}
	}
	if s.Targets != nil && len(s.Targets) == 0 {
		return errors.New("empty targets list")
	}
	for _, t := range s.Targets {
		if !models[t] {
			return fmt.Errorf("target model %q is not defined; defined models: %s", t, strings.Join(sortedKeys(models), ", "))
		}
	}
	if err := validateAdaptive(s.Adaptive); err != nil {
		return err
	}
	return s.Objective.validate()
}

// Settings say what to optimise and how. Start from DefaultSettings: the
// zero value caps the hedged share at 0 % and is of little use.
type Settings struct {
	// Requests is the number of requests simulated per candidate; in
	// [1, MaxRequests].
	Requests int
	// Level is the confidence level of the intervals, in [0.5, 0.9999].
	Level float64
	// Search applies to every class not in PerClass.
	Search Search
	// PerClass holds, by class name, the complete Search of classes that
	// differ from Search.
	PerClass map[string]Search
	// Only, when not empty, restricts the optimisation to these classes
	// (by name); others are left out of the report.
	Only []string
	// Rule is the verdict rule.
	Rule Rule
	// Alone sweeps every class alone, at its share of the traffic, even
	// when classes are coupled (see Run): each pick then ignores the
	// others' load on what they share.
	Alone bool
	// GroupObjective is how the picks of classes optimized jointly are
	// chosen: GroupWeighted (default), GroupWorst or GroupEach (see
	// group.go); "" means GroupWeighted. GroupWeights, when set, weigh
	// the classes of GroupWeighted by name (≥ 0; a class it does not name
	// weighs 0) instead of by their traffic.
	GroupObjective string
	GroupWeights   map[string]float64
	// CheckRequests is the number of requests of the rollout check (the
	// whole scenario with every pick applied, see Check), in
	// [0, MaxRequests]; 0 skips it; −1 (the default) means
	// DefaultCheckRequests or, when that is more, 5 × Requests.
	CheckRequests int
	// Balancers, when not empty, are balancers to compare with the
	// scenario's own for its replica pools: Run sweeps the scenario once
	// more under each, every pool set to it, and reports each class's
	// options side by side (Report.Routing). It needs a scenario with a
	// pool.
	Balancers []sim.Balancer
	// MinReplicas, when not empty, are keep-warm floors to compare for the
	// scenario's autoscaled pools (fleet.go): Run sweeps the scenario,
	// with its rollout check, once more with every autoscaled pool's
	// Autoscale.Min set to each (Initial raised to it when below), and
	// compares the fleet's dollars a month, idle replicas included
	// (Report.Fleet). Each is ≥ 0 and at most every autoscaled pool's
	// Replicas; it needs a scenario with an autoscaled pool and a rollout
	// check (CheckRequests ≠ 0).
	MinReplicas []int
}

// DefaultSettings returns the defaults: 200 000 requests per candidate,
// 95 % intervals, the default delay grid with the class's own copies and
// targets, objective p95 on the trade-off with no cost cap and no
// hedged-share cap,
// verdict rule 10 % gain, 1 % of p95 (0.5 % of unanswered share) per % of
// added cost, significant.
func DefaultSettings() Settings {
	return Settings{
		Requests:      DefaultRequests,
		CheckRequests: -1,
		Level:         DefaultLevel,
		Search: Search{Objective: Objective{
			Goal: LowestLatency, Percentile: 0.95,
			MaxAddedCostPct: math.Inf(1), MaxHedgedPct: 100,
			MinGainPerCost: 1, MinUnansweredCutPerCost: 0.5,
		}},
		Rule:           Rule{MinGainPct: 10, MinGainPerCost: 1, MinUnansweredCutPerCost: 0.5, RequireSignificant: true},
		GroupObjective: GroupWeighted,
	}
}

// groupObjective returns s's group objective, GroupWeighted when unset.
func (s *Settings) groupObjective() string { return cmp.Or(s.GroupObjective, GroupWeighted) }

// For returns the Search of the class called name.
func (s *Settings) For(name string) Search {
	if c, ok := s.PerClass[name]; ok {
		return c
	}
	return s.Search
}

// Each calls fn on Search and on every entry of PerClass, so that a
// command-line override applies to all classes.
func (s *Settings) Each(fn func(*Search)) {
	fn(&s.Search)
	for name, c := range s.PerClass {
		fn(&c)
		s.PerClass[name] = c
	}
}

// Validate checks s against cfg: ranges, model and class names, and that
// every class's objective is complete (cost needs an SLA).
func (s *Settings) Validate(cfg *sim.Config) error {
	switch {
	case s.Requests < 1 || s.Requests > MaxRequests:
		return fmt.Errorf("requests per candidate %d: must be in [1, %d]", s.Requests, MaxRequests)
	case !(s.Level >= 0.5 && s.Level <= 0.9999):
		return fmt.Errorf("confidence level %v: must be in [0.5, 0.9999]", s.Level)
	case s.CheckRequests < -1 || s.CheckRequests > MaxRequests:
		return fmt.Errorf("rollout-check requests %d: must be in [0, %d] (0 skips the check)", s.CheckRequests, MaxRequests)
	}
	if err := s.Rule.validate(); err != nil {
		return fmt.Errorf("verdict rule: %w", err)
	}
	if len(s.Balancers) > 0 && !cfg.Pooled() {
		return fmt.Errorf("balancers to compare: the scenario has no replica pool (a [providers.NAME.pool] table) for a balancer to route")
	}
	if err := validMinReplicas(s, cfg); err != nil {
		return err
	}
	models := make(map[string]bool, len(cfg.Models))
	for _, m := range cfg.Models {
		models[m.Name] = true
	}
	classes := make(map[string]bool, len(cfg.Classes))
	for _, c := range cfg.Classes {
		classes[c.Name] = true
	}
	for _, name := range sortedKeys(s.PerClass) {
		if !classes[name] {
			return fmt.Errorf("class %q is not defined; defined classes: %s", name, strings.Join(sortedKeys(classes), ", "))
		}
	}
	if s.GroupObjective != "" {
		if err := validGroupObjective(s.GroupObjective); err != nil {
			return err
		}
	}
	for _, name := range sortedKeys(s.GroupWeights) {
		if !classes[name] {
			return fmt.Errorf("group weight of class %q: it is not defined; defined classes: %s", name, strings.Join(sortedKeys(classes), ", "))
		}
		if w := s.GroupWeights[name]; !(w >= 0) || math.IsInf(w, 1) {
			return fmt.Errorf("group weight of class %q: %v; want a finite weight ≥ 0", name, w)
		}
	}
	for _, name := range s.Only {
		if !classes[name] {
			return fmt.Errorf("class %q is not defined; defined classes: %s", name, strings.Join(sortedKeys(classes), ", "))
		}
	}
	for _, c := range cfg.Classes {
		se := s.For(c.Name)
		if err := se.validate(models); err != nil {
			return fmt.Errorf("class %q: %w", c.Name, err)
		}
		if se.Objective.Checked && (len(s.Only) == 0 || slices.Contains(s.Only, c.Name)) && !CanCheck(&c) {
			return fmt.Errorf("class %q: %s", c.Name, NotCheckable)
		}
	}
	return nil
}

// CanCheck reports whether class c may have objective "checked": a pipeline
// other than one plain call (sim.Pipeline.OneCall), whose turns can go
// through degraded past a fail-open step.
func CanCheck(c *sim.Class) bool { return c.Pipeline != nil && !c.Pipeline.OneCall() }

// NotCheckable says why a class for which CanCheck is false may not have
// objective "checked".
const NotCheckable = `objective "checked" (every fail-open step of a pipeline turn answered in time) needs a pipeline class with steps; ` +
	`a one-call class has no steps to check: use "answered"`

// DelayRange returns the delays from, from+step, …, up to and including to
// (within a nanosecond). It returns an error unless 0 ≤ from ≤ to, step > 0
// and the range has at most MaxDelays delays.
func DelayRange(from, to, step time.Duration) ([]time.Duration, error) {
	switch {
	case from < 0:
		return nil, fmt.Errorf("from %v: must be ≥ 0", from)
	case to < from:
		return nil, fmt.Errorf("to %v is below from %v", to, from)
	case step <= 0:
		return nil, fmt.Errorf("step %v: must be > 0", step)
	case (to-from)/step+1 > MaxDelays:
		return nil, fmt.Errorf("from %v to %v by %v gives %d delays; at most %d", from, to, step, (to-from)/step+1, MaxDelays)
	}
	var out []time.Duration
	for d := from; d <= to; d += step {
		out = append(out, d)
	}
	return out, nil
}

// NormalizeDelays sorts delays ascending and removes duplicates, in place.
func NormalizeDelays(delays []time.Duration) []time.Duration {
	slices.Sort(delays)
	return slices.Compact(delays)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkRequests resolves Settings.CheckRequests.
func (s *Settings) checkRequests() int {
	if s.CheckRequests >= 0 {
		return s.CheckRequests
	}
	return min(DefaultCheckRequests, 5*s.Requests)
}
