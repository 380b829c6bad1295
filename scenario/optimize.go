package scenario

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// optimizeTable is [optimize]: settings of `hedgesim optimize`. The search
// keys (objective to targets) may be repeated per class in
// [optimize.class.NAME].
type optimizeTable struct {
	Requests           *int64                 `toml:"requests"`
	Confidence         *float64               `toml:"confidence"`
	MinGainPct         *float64               `toml:"min_gain_pct"`
	MinGainPerCost     *float64               `toml:"min_gain_per_cost"`
	MinUnansweredCut   *float64               `toml:"min_unanswered_cut_per_cost"`
	RequireSignificant *bool                  `toml:"require_significant"`
	AllowFewerAnswers  *bool                  `toml:"allow_fewer_answers"`
	ExcludeOverload    *bool                  `toml:"exclude_overload"`
	GroupObjective     *string                `toml:"group_objective"`
	GroupWeights       map[string]float64     `toml:"group_weights"`
	Alone              *bool                  `toml:"alone"`
	CheckRequests      *int64                 `toml:"check_requests"`
	Classes            []string               `toml:"classes"`
	Class              map[string]searchTable `toml:"class"`

	Objective       *string    `toml:"objective"`
	MaxAddedCostPct *float64   `toml:"max_added_cost_pct"`
	MaxHedgedPct    *float64   `toml:"max_hedged_pct"`
	SLA             *Duration  `toml:"sla"`
	Target          *Duration  `toml:"target"`
	Delays          []Duration `toml:"delays"`
	From            *Duration  `toml:"from"`
	To              *Duration  `toml:"to"`
	Step            *Duration  `toml:"step"`
	Copies          []int64    `toml:"copies"`
	Targets         []string   `toml:"targets"`
}

// searchTable is [optimize.class.NAME]: the search keys of [optimize].
type searchTable struct {
	Objective       *string    `toml:"objective"`
	MaxAddedCostPct *float64   `toml:"max_added_cost_pct"`
	MaxHedgedPct    *float64   `toml:"max_hedged_pct"`
	SLA             *Duration  `toml:"sla"`
	Target          *Duration  `toml:"target"`
	Delays          []Duration `toml:"delays"`
	From            *Duration  `toml:"from"`
	To              *Duration  `toml:"to"`
	Step            *Duration  `toml:"step"`
	Copies          []int64    `toml:"copies"`
	Targets         []string   `toml:"targets"`
}

// optimizeSettings builds the optimizer settings from t (nil when the file
// has no [optimize] table) for the validated cfg.
func (c *checker) optimizeSettings(t *optimizeTable, cfg *sim.Config) (optimize.Settings, error) {
	s := optimize.DefaultSettings()
	if t == nil {
		return s, nil
	}
	const key = "optimize"
	if t.Requests != nil {
		n := *t.Requests
		if n < 1 || n > optimize.MaxRequests {
			c.keep(c.errorf(key+".requests", "%d is out of range; want requests per candidate in [1, %d]", n, optimize.MaxRequests))
		}
		s.Requests = int(n)
	}
	if t.Confidence != nil {
		l := *t.Confidence
		if !(l >= 0.5 && l <= 0.9999) {
			c.keep(c.errorf(key+".confidence", "%g is out of range; want a confidence level in [0.5, 0.9999], such as 0.95", l))
		}
		s.Level = l
	}
	if t.MinGainPct != nil {
		if s.Rule.MinGainPct = *t.MinGainPct; !(s.Rule.MinGainPct >= 0) || math.IsInf(s.Rule.MinGainPct, 1) {
			c.keep(c.errorf(key+".min_gain_pct", "%g is out of range; want a percentage ≥ 0, such as 10", *t.MinGainPct))
		}
	}
	if t.MinGainPerCost != nil {
		if s.Rule.MinGainPerCost = *t.MinGainPerCost; !(s.Rule.MinGainPerCost >= 0) || math.IsInf(s.Rule.MinGainPerCost, 1) {
			c.keep(c.errorf(key+".min_gain_per_cost", "%g is out of range; want percent of gain per percent of added cost ≥ 0, such as 1", *t.MinGainPerCost))
		}
	}
	if t.MinUnansweredCut != nil {
		if s.Rule.MinUnansweredCutPerCost = *t.MinUnansweredCut; !(s.Rule.MinUnansweredCutPerCost >= 0) || math.IsInf(s.Rule.MinUnansweredCutPerCost, 1) {
			c.keep(c.errorf(key+".min_unanswered_cut_per_cost", "%g is out of range; want percent of unanswered share cut per percent of added cost ≥ 0, such as 0.5", *t.MinUnansweredCut))
		}
	}
	if t.AllowFewerAnswers != nil {
		s.Rule.AllowFewerAnswers = *t.AllowFewerAnswers
	}
	if t.ExcludeOverload != nil {
		s.Rule.ExcludeOverload = *t.ExcludeOverload
	}
	if t.GroupObjective != nil {
		if slices.Contains(optimize.GroupObjectives, *t.GroupObjective) {
			s.GroupObjective = *t.GroupObjective
		} else {
			c.keep(c.errorf(key+".group_objective", "unknown value %q; allowed: \"%s\"", *t.GroupObjective, strings.Join(optimize.GroupObjectives, "\", \"")))
		}
	}
	if t.Alone != nil {
		s.Alone = *t.Alone
	}
	if t.CheckRequests != nil {
		n := *t.CheckRequests
		if n < 0 || n > optimize.MaxRequests {
			return s, c.errorf(key+".check_requests", "%d is out of range; want a number of requests in [0, %d] (0 skips the rollout check)", n, optimize.MaxRequests)
		}
		s.CheckRequests = int(n)
	}
	if t.RequireSignificant != nil {
		s.Rule.RequireSignificant = *t.RequireSignificant
	}
	classes := make(map[string]bool, len(cfg.Classes))
	var names []string
	for _, cl := range cfg.Classes {
		classes[cl.Name] = true
		names = append(names, cl.Name)
	}
	for _, name := range c.keysInFileOrder(key+".group_weights", keySet(t.GroupWeights)) {
		w := t.GroupWeights[name]
		switch {
		case !classes[name]:
			c.keep(c.errorf(joinKey(key+".group_weights", name), "class %q is not defined; defined classes: %s", name, strings.Join(names, ", ")))
		case !(w >= 0) || math.IsInf(w, 1):
			c.keep(c.errorf(joinKey(key+".group_weights", name), "%g is out of range; want a weight ≥ 0", w))
		default:
			if s.GroupWeights == nil {
				s.GroupWeights = map[string]float64{}
			}
			s.GroupWeights[name] = w
		}
	}
	if t.Classes != nil {
		if len(t.Classes) == 0 {
			return s, c.errorf(key+".classes", "empty list; omit classes to optimise every class")
		}
		for i, name := range t.Classes {
			if !classes[name] {
				return s, c.errorf(indexKey(key+".classes", i), "class %q is not defined; defined classes: %s", name, strings.Join(names, ", "))
			}
		}
		s.Only = t.Classes
	}
	global := searchTable{
		Objective: t.Objective, MaxAddedCostPct: t.MaxAddedCostPct, MaxHedgedPct: t.MaxHedgedPct, SLA: t.SLA, Target: t.Target,
		Delays: t.Delays, From: t.From, To: t.To, Step: t.Step, Copies: t.Copies, Targets: t.Targets,
	}
	if err := c.search(key, &global, &s.Search); err != nil {
		return s, err
	}
	for _, name := range c.keysInFileOrder(key+".class", keySet(t.Class)) {
		ckey := joinKey(key+".class", name)
		if !classes[name] {
			return s, c.errorf(ckey, "class %q is not defined; defined classes: %s", name, strings.Join(names, ", "))
		}
		se := s.Search
		ct := t.Class[name]
		if err := c.search(ckey, &ct, &se); err != nil {
			c.keep(err)
			continue
		}
		if s.PerClass == nil {
			s.PerClass = make(map[string]optimize.Search)
		}
		s.PerClass[name] = se
	}
	if o := c.flagged; o != nil && (o.SLA > 0 || o.Target > 0) {
		s.Each(func(se *optimize.Search) {
			if o.SLA > 0 {
				se.Objective.SLA = o.SLA
			}
			if o.Target > 0 {
				se.Objective.Target = o.Target
			}
		})
	}
	for _, cl := range cfg.Classes {
		se := s.For(cl.Name)
		if se.Objective.Goal == optimize.LowestCost && se.Objective.SLA <= 0 {
			k := key + ".objective"
			if ct, ok := t.Class[cl.Name]; ok && ct.Objective != nil {
				k = joinKey(key+".class", cl.Name) + ".objective"
			}
			return s, c.errorf(k, "objective \"cost\" needs sla (the latency p95 must not exceed, such as \"2s\") for class %q", cl.Name)
		}
		if se.Objective.Checked && !optimize.CanCheck(&cl) && (t.Classes == nil || slices.Contains(t.Classes, cl.Name)) {
			k := key + ".objective"
			if ct, ok := t.Class[cl.Name]; ok && ct.Objective != nil {
				k = joinKey(key+".class", cl.Name) + ".objective"
			}
			return s, c.errorf(k, "class %q: %s", cl.Name, optimize.NotCheckable)
		}
		if se.Objective.Goal == optimize.MostAnswered && se.Objective.Target <= 0 {
			k := key + ".objective"
			if ct, ok := t.Class[cl.Name]; ok && ct.Objective != nil {
				k = joinKey(key+".class", cl.Name) + ".objective"
			}
			what := "a request counts as answered"
			if se.Objective.Checked {
				what = "a pipeline turn counts as checked: every fail-open step answered in time"
			}
			return s, c.errorf(k, "objective %q needs target (the latency within which %s, such as \"2s\") for class %q", se.Objective.Name(), what, cl.Name)
		}
	}
	if len(c.errs) > 0 {
		return s, nil // the scenario is incomplete; its problems are recorded
	}
	if err := s.Validate(cfg); err != nil {
		return s, c.errorf(key, "%v", err)
	}
	return s, nil
}

// search applies the search keys of t (at key) on top of s.
func (c *checker) search(key string, t *searchTable, s *optimize.Search) error {
	o := &s.Objective
	if t.Objective != nil {
		if err := o.SetName(*t.Objective); err != nil {
			return c.errorf(key+".objective", "unknown value %q; allowed: \"%s\"", *t.Objective, strings.Join(optimize.ObjectiveNames(), "\", \""))
		}
	}
	if t.MaxAddedCostPct != nil {
		if o.MaxAddedCostPct = *t.MaxAddedCostPct; !(o.MaxAddedCostPct >= 0) {
			return c.errorf(key+".max_added_cost_pct", "%g is out of range; want a percentage ≥ 0 (inf for no cap)", *t.MaxAddedCostPct)
		}
	}
	if t.MaxHedgedPct != nil {
		if o.MaxHedgedPct = *t.MaxHedgedPct; !(o.MaxHedgedPct >= 0 && o.MaxHedgedPct <= 100) {
			return c.errorf(key+".max_hedged_pct", "%g is out of range; want a percentage of requests in [0, 100]", *t.MaxHedgedPct)
		}
	}
	if t.SLA != nil {
		if o.SLA = time.Duration(*t.SLA); o.SLA <= 0 {
			return c.errorf(key+".sla", "%v: want a latency > 0, such as \"2s\"", o.SLA)
		}
	}
	if t.Target != nil {
		if o.Target = time.Duration(*t.Target); o.Target <= 0 {
			return c.errorf(key+".target", "%v: want a latency > 0, such as \"2s\"", o.Target)
		}
	}
	rng := t.From != nil || t.To != nil || t.Step != nil
	switch {
	case t.Delays != nil && rng:
		k := key + ".from"
		switch {
		case t.To != nil:
			k = key + ".to"
		case t.Step != nil:
			k = key + ".step"
		}
		return c.errorf(k, "delays and from/to/step are exclusive; give a list of delays or a range")
	case t.Delays != nil:
		if len(t.Delays) == 0 {
			return c.errorf(key+".delays", "empty list; give delays such as [\"250ms\", \"500ms\"], or omit it for the default grid")
		}
		if len(t.Delays) > optimize.MaxDelays {
			return c.errorf(key+".delays", "%d delays; at most %d", len(t.Delays), optimize.MaxDelays)
		}
		d := make([]time.Duration, len(t.Delays))
		for i, x := range t.Delays {
			d[i] = time.Duration(x)
		}
		s.Delays = optimize.NormalizeDelays(d)
	case rng:
		if t.To == nil {
			return c.errorf(key+".to", "missing; a delay range needs to and step (from defaults to \"0s\")")
		}
		if t.Step == nil {
			return c.errorf(key+".step", "missing; a delay range needs to and step (from defaults to \"0s\")")
		}
		var from time.Duration
		if t.From != nil {
			from = time.Duration(*t.From)
		}
		d, err := optimize.DelayRange(from, time.Duration(*t.To), time.Duration(*t.Step))
		if err != nil {
			k := key + ".step"
			if time.Duration(*t.To) < from {
				k = key + ".to"
			}
			return c.errorf(k, "%v", err)
		}
		s.Delays = d
	}
	if t.Copies != nil {
		if len(t.Copies) == 0 {
			return c.errorf(key+".copies", "empty list; give copies to try such as [1, 2], or omit it for the class's max_copies")
		}
		s.Copies = make([]int, len(t.Copies))
		for i, k := range t.Copies {
			if k < 1 || k > sim.MaxCopies {
				return c.errorf(indexKey(key+".copies", i), "%d is out of range; want copies beyond the primary in [1, %d]", k, sim.MaxCopies)
			}
			s.Copies[i] = int(k)
		}
	}
	if t.Targets != nil {
		if len(t.Targets) == 0 {
			return c.errorf(key+".targets", "empty list; give model names, or omit it for the class's targets")
		}
		for i, name := range t.Targets {
			if _, err := c.modelRef(indexKey(key+".targets", i), name); err != nil {
				return err
			}
		}
		s.Targets = t.Targets
	}
	return nil
}

func keySet[V any](m map[string]V) map[string]any {
	out := make(map[string]any, len(m))
	for k := range m {
		out[k] = nil
	}
	return out
}
