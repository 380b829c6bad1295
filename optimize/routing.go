package optimize

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/hedgesim/hedgesim/sim"
	"github.com/hedgesim/hedgesim/textfit"
)

// Routing sets the balancer of a scenario's replica pools beside the hedge
// delay (Settings.Balancers): the sweep runs once more for each balancer,
// with every pool of the scenario set to it, and each class's no-hedging
// candidate and pick under every balancer are set side by side, on the
// objective's percentile and on cost — so a verdict can say that a router
// without hedging beats the scenario's router with hedging at no added
// cost. The report's classes and rollout check are those of the scenario
// as configured.
type Routing struct {
	// Balancers are the balancers compared.
	Balancers []string `json:"balancers"`
	// Classes holds, per optimized class that reaches a pool, its
	// options.
	Classes []RoutingClass `json:"classes"`
}

// RoutingClass is one class's options under every balancer.
type RoutingClass struct {
	Class string `json:"class"`
	// Configured names the balancers of the pools the class's models
	// reach, as the scenario sets them ("p2c"; "random, p2c" when they
	// differ).
	Configured string `json:"configured"`
	// Percentile is the objective's percentile (0.95 or 0.99) the options
	// are compared on.
	Percentile float64 `json:"percentile"`
	// Options are, for the configured balancers and then each balancer
	// compared (but one the class is configured with alone), no hedging
	// and the pick (the pick only when it hedges); when the verdict under
	// a balancer is undecided, no hedging and the configured policy,
	// which rolls out (RoutingOption.RollsOut; only when it hedges).
	Options []RoutingOption `json:"options"`
	// Verdict says in words whether a router alone beats the configured
	// router with its pick; "" when none does significantly.
	Verdict string `json:"verdict"`
}

// RoutingOption is a class's candidate under one balancer.
type RoutingOption struct {
	// Balancer names the balancer; Configured marks the scenario's own.
	Balancer   string `json:"balancer"`
	Configured bool   `json:"configured"`
	// Policy is "none" or the pick's label; Hedged says which.
	Policy string `json:"policy"`
	Hedged bool   `json:"hedged"`
	// RollsOut is "configured" when the option is the class's configured
	// policy, which rolls out because the verdict under the balancer is
	// undecided (ClassReport.RollsOut); absent otherwise. Unswept is true
	// when the sweep did not simulate that policy: Policy is then
	// "configured", the latency and its interval are null and the other
	// figures 0, unknown. Absent when false.
	RollsOut string `json:"rolls_out,omitempty"`
	Unswept  bool   `json:"unswept,omitempty"`
	// Latency is the objective's percentile in seconds (+Inf, JSON null,
	// when it is a miss) with its confidence interval.
	Latency float64    `json:"-"`
	CI      [2]float64 `json:"-"`
	// CIOK reports whether CI is a real order-statistic interval
	// (Candidate.CIOK); false when the requests were too few for one.
	CIOK bool `json:"latency_ci95_ok"`
	// AddedCostPct is the cost per request relative to the configured
	// balancer's no-hedging candidate, in percent; CostPer1kUSD and
	// AttemptsPerRequest as in Candidate.
	AddedCostPct       float64 `json:"added_cost_pct"`
	CostPer1kUSD       float64 `json:"cost_per_1k_usd"`
	AttemptsPerRequest float64 `json:"attempts_per_request"`
	AnsweredShare      float64 `json:"answered_share"`
	// LatencyJSON and CIJSON are Latency and CI on the wire.
	LatencyJSON *float64    `json:"latency_s"`
	CIJSON      [2]*float64 `json:"latency_ci_s"`
}

// withBalancer returns a copy of cfg whose every pool uses b.
func withBalancer(cfg *sim.Config, b sim.Balancer) *sim.Config {
	c := *cfg
	c.Providers = slices.Clone(cfg.Providers)
	for i := range c.Providers {
		if p := c.Providers[i].Pool; p != nil {
			q := *p
			q.Balancer = b
			c.Providers[i].Pool = &q
		}
	}
	return &c
}

// configuredBalancers names the balancers of the pools that class c of
// cfg reaches — through its policy's models, or its pipeline steps' — in
// provider order, without repeats.
func configuredBalancers(cfg *sim.Config, c int) string {
	cl := &cfg.Classes[c]
	var models []int
	add := func(p *sim.Policy) { models = append(append(models, p.Primary), p.Targets...) }
	if cl.Pipeline == nil {
		add(&cl.Policy)
	} else {
		for i := range cl.Pipeline.Steps {
			add(&cl.Pipeline.Steps[i].Call.Policy)
		}
	}
	var names []string
	for _, p := range cfg.Providers {
		if p.Pool == nil || slices.Contains(names, p.Pool.Balancer.String()) {
			continue
		}
		for _, m := range models {
			if cfg.Models[m].Provider == p.Name {
				names = append(names, p.Pool.Balancer.String())
				break
			}
		}
	}
	return strings.Join(names, ", ")
}

// routing runs the sweep under each of s.Balancers (balancerSweeps) and
// compares its classes' options with rep's, the sweep of cfg as
// configured, whose measurements kept holds by key.
func routing(cfg *sim.Config, s Settings, opt Options, rep *Report, kept map[string]*Measurement) (*Routing, error) {
	out := &Routing{}
	for _, b := range s.Balancers {
		out.Balancers = append(out.Balancers, b.String())
	}
	others, err := balancerSweeps(cfg, s, opt, kept)
	if err != nil {
		return nil, err
	}
	viewUnderBalancers(cfg, s, rep)
	sweeps := append([]*Report{rep}, others...)
	for i := range rep.Classes {
		cr := &rep.Classes[i]
		p := cr.Objective.Percentile
		base := cr.Baseline()
		ci := slices.IndexFunc(cfg.Classes, func(c sim.Class) bool { return c.Name == cr.Class })
		rc := RoutingClass{Class: cr.Class, Configured: configuredBalancers(cfg, ci), Percentile: p}
		if rc.Configured == "" {
			continue // it reaches no pool
		}
		for j, r := range sweeps {
			name := orNone(rc.Configured)
			if j > 0 {
				name = out.Balancers[j-1]
				if name == rc.Configured {
					continue // the configured options again
				}
			}
			k := slices.IndexFunc(r.Classes, func(x ClassReport) bool { return x.Class == cr.Class })
			if k < 0 {
				return nil, fmt.Errorf("balancer %s: class %q was not optimized", name, cr.Class)
			}
			c := &r.Classes[k]
			cands := []*Candidate{c.Baseline()}
			unswept := false
			switch {
			case c.Verdict.Hedge:
				cands = append(cands, c.Picked())
			case c.RollsOut == RollsOutConfigured:
				// Undecided: the configured policy rolls out.
				if cand := c.RolledOut(); cand == nil {
					unswept = true
				} else if cand.Hedging {
					cands = append(cands, cand)
				}
			}
			for _, cand := range cands {
				o := RoutingOption{Balancer: name, Configured: j == 0, Policy: cand.Label, Hedged: cand.Hedging,
					Latency: cand.Q(p), CI: cand.CI(p), CIOK: cand.CIOK(p), CostPer1kUSD: cand.CostPer1kUSD,
					AttemptsPerRequest: cand.AttemptsPerRequest, AnsweredShare: cand.AnsweredShare}
				if cand != c.Baseline() && !c.Verdict.Hedge {
					o.RollsOut = RollsOutConfigured
				}
				o.AddedCostPct = relCost(cr.CostBasis, cand, base)
				o.LatencyJSON, o.CIJSON = finitePtr(o.Latency), [2]*float64{finitePtr(o.CI[0]), finitePtr(o.CI[1])}
				rc.Options = append(rc.Options, o)
			}
			if unswept {
				nan := math.NaN()
				rc.Options = append(rc.Options, RoutingOption{Balancer: name, Configured: j == 0, Policy: "configured",
					Hedged: hedges(&cfg.Classes[ci]), RollsOut: RollsOutConfigured, Unswept: true, Latency: nan, CI: [2]float64{nan, nan}})
			}
		}
		rc.Verdict = routingVerdict(&rc, p)
		out.Classes = append(out.Classes, rc)
	}
	return out, nil
}

// viewUnderBalancers warns each class of rep that reaches a pool with a
// view (view_refresh) which one of s.Balancers, reading no replica load
// (random, round_robin), would route without it: the warning run gives
// for such a balancer in the file or set with --set (sim.ConfigWarnings),
// after "balancer B (--balancers): ". A pool configured with that
// balancer already is not warned of again.
func viewUnderBalancers(cfg *sim.Config, s Settings, rep *Report) {
	for _, b := range s.Balancers {
		for _, w := range sim.ConfigWarnings(withBalancer(cfg, b)) {
			if w.Field != "view_refresh" || w.Provider <= 0 || cfg.Providers[w.Provider-1].Pool.Balancer == b {
				continue
			}
			name := cfg.Classes[w.Class].Name
			if k := slices.IndexFunc(rep.Classes, func(c ClassReport) bool { return c.Class == name }); k >= 0 {
				rep.Classes[k].Warnings = append(rep.Classes[k].Warnings, "balancer "+b.String()+" (--balancers): "+w.Text)
			}
		}
	}
}

// relCost returns cand's cost relative to base's in percent, on the
// class's cost basis: USD, or calls when the class is free.
func relCost(basis string, cand, base *Candidate) float64 {
	if basis == CostUSD && base.CostPer1kUSD > 0 {
		return 100 * (cand.CostPer1kUSD/base.CostPer1kUSD - 1)
	}
	if base.AttemptsPerRequest > 0 {
		return 100 * (cand.AttemptsPerRequest/base.AttemptsPerRequest - 1)
	}
	return 0
}

// finitePtr returns &x, or nil for an infinite or NaN x.
func finitePtr(x float64) *float64 {
	if x != x || x > 1e300 || x < -1e300 {
		return nil
	}
	return &x
}

// routingVerdict says whether another balancer without hedging is
// significantly faster, at the percentile p, than the configured
// balancer's best option (its pick when it hedges) at no more cost: its
// interval lies wholly below the other's, both intervals being real
// order-statistic intervals (CIOK). The fastest such balancer is named.
// When intervals lie apart only with an interval that is not ok on
// either side, the verdict says the requests were too few to tell.
func routingVerdict(rc *RoutingClass, p float64) string {
	var conf *RoutingOption
	for i := range rc.Options {
		if o := &rc.Options[i]; o.Configured {
			conf = o // the last: the pick when it hedges
		}
	}
	var best, untold *RoutingOption
	for i := range rc.Options {
		o := &rc.Options[i]
		if o.Configured || o.Hedged || costLess(conf.AddedCostPct, o.AddedCostPct) || !(o.CI[1] < conf.CI[0]) {
			continue
		}
		if !o.CIOK || !conf.CIOK {
			if untold == nil || o.Latency < untold.Latency {
				untold = o
			}
			continue
		}
		if best == nil || o.Latency < best.Latency {
			best = o
		}
	}
	if conf.Unswept {
		return "" // what rolls out has no figures to compare with
	}
	with := "without hedging"
	switch {
	case conf.Hedged && conf.RollsOut == RollsOutConfigured:
		with = fmt.Sprintf("with hedging (its configured policy %s, which rolls out: undecided; %s added cost)", conf.Policy, fpct(conf.AddedCostPct))
	case conf.Hedged:
		with = fmt.Sprintf("with hedging (its pick %s, %s added cost)", conf.Policy, fpct(conf.AddedCostPct))
	}
	if best == nil {
		if untold == nil {
			return ""
		}
		return fmt.Sprintf("%s without hedging looks faster than %s %s: p%g %s against %s, but too few requests to tell (an interval is not a 95%% interval, so the two are not apart)",
			untold.Balancer, orNone(rc.Configured), with, 100*p, fsec(untold.Latency), fsec(conf.Latency))
	}
	return fmt.Sprintf("%s without hedging beats %s %s: p%g %s against %s (intervals apart), at %s added cost",
		best.Balancer, orNone(rc.Configured), with, 100*p, fsec(best.Latency), fsec(conf.Latency), fpct(best.AddedCostPct))
}

// writeRouting writes the routing comparison, when there is one.
// PolicyText says what o's row under its balancer is: "no hedging",
// "pick " and the pick's label, or, for a class whose verdict is
// undecided, "configured " and the configured policy's label
// ("configured, not simulated" when the sweep has no figures for it).
func (o *RoutingOption) PolicyText() string {
	switch {
	case o.Unswept:
		return "configured, not simulated"
	case o.RollsOut == RollsOutConfigured:
		return "configured " + o.Policy
	case o.Hedged:
		return "pick " + o.Policy
	}
	return "no hedging"
}

func (r *Report) writeRouting(w io.Writer) {
	rt := r.Routing
	if rt == nil {
		return
	}
	fmt.Fprintf(w, "\nrouting: every replica pool set to each of %s, the sweep run again; per class no hedging and the pick under each (added cost against no hedging under the configured balancer):\n",
		strings.Join(rt.Balancers, ", "))
	for _, rc := range rt.Classes {
		fmt.Fprintf(w, "  class %s (configured: %s)\n", rc.Class, orNone(rc.Configured))
		tw := textfit.NewTable(w, 0)
		fmt.Fprintf(tw, "    balancer\tpolicy\tp%g\tinterval\tanswered\tattempts/req\tadded cost\n", 100*rc.Percentile)
		for _, o := range rc.Options {
			policy, name := o.PolicyText(), o.Balancer
			if o.Configured {
				name += " (configured)"
			}
			if o.Unswept {
				fmt.Fprintf(tw, "    %s\t%s\t-\t-\t-\t-\t-\n", name, policy)
				continue
			}
			fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\t%.1f%%\t%.3f\t%s\n", name, policy, fsec(o.Latency),
				interval(o.CI, o.CIOK), 100*o.AnsweredShare, o.AttemptsPerRequest, fpct(o.AddedCostPct))
		}
		tw.Flush()
		if slices.ContainsFunc(rc.Options, func(o RoutingOption) bool { return o.RollsOut == RollsOutConfigured }) {
			fmt.Fprintf(w, "    configured: the class's configured policy, which rolls out where the verdict is undecided (no pick is made; not simulated: the sweep has no figures for it)\n")
		}
		if rc.Verdict != "" {
			fmt.Fprintf(w, "    %s\n", rc.Verdict)
		}
	}
}
