package optimize

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hedgesim/hedgesim/sim"
	"github.com/hedgesim/hedgesim/textfit"
)

// Fleet sets the keep-warm floor of a scenario's autoscaled pools beside
// the hedge delay (Settings.MinReplicas): the sweep, with its rollout
// check, runs once more for each floor, with every autoscaled pool's
// min_replicas set to it, and the floors are compared on what the whole
// fleet costs a month with every pick applied.
//
// A replica is a pool's cost, not a class's: it is allotted to no class.
// A setting's dollars a month are its rollout check's — the whole
// scenario, every class's pick applied — as a month of the scenario's
// traffic: the replica-hours of every autoscaled pool × its price per
// replica-hour ÷ the run's length in seconds × 86 400 × sim.DaysPerMonth,
// plus the classes' token cost (the check's overall sim.Spend.PerMonth at
// the scenario's arrival rate).
//
// A setting meets the objective when every optimized class's pick is
// feasible (Candidate.Feasible): within the objective's caps, and for the
// cost objective at or under its SLA; a setting with a class whose
// verdict is undecided (too few requests) does not, since its rollout
// check runs that class's configured policy, not a pick. Of those, the cheapest a month
// wins; settings within a cent a month of each other are ordered by the
// mean over the classes of their pick's objective percentile, the lower
// first, then by the lower floor. The report's classes, rollout check and
// export stay those of the scenario as configured.
type Fleet struct {
	// MinReplicas are the floors compared, in the order given.
	MinReplicas []int `json:"min_replicas"`
	// Settings holds each floor's figures, in MinReplicas' order.
	Settings []FleetSetting `json:"settings"`
	// Cheapest is the index in Settings of the cheapest setting meeting
	// the objective; −1 when none meets it.
	Cheapest int `json:"cheapest"`
	// Verdict says in words whether keeping replicas warm beats hedging,
	// or the reverse; "" when the cheapest setting is not such a trade.
	Verdict string `json:"verdict"`
	// CheaperUndecided names each floor cheaper than the cheapest setting
	// meeting the objective (every floor when none meets it) that does
	// not meet it only because a verdict is undecided, with its dollars a
	// month and each such verdict's reason (the --requests that would
	// decide it): it might meet the objective. Absent when there is none.
	CheaperUndecided []string `json:"cheaper_undecided,omitempty"`
}

// FleetSetting is one keep-warm floor's sweep and rollout check.
type FleetSetting struct {
	// MinReplicas is the floor every autoscaled pool was set to.
	MinReplicas int `json:"min_replicas"`
	// Picks are the optimized classes' picks under it, in report order.
	Picks []FleetPick `json:"picks"`
	// Meets is true when every pick is feasible and no verdict is
	// undecided; Undecided names the classes whose verdict is.
	Meets     bool     `json:"meets_objective"`
	Undecided []string `json:"undecided,omitempty"`
	// undecidedWhy holds the reasons of the verdicts Undecided names;
	// decided is false when a pick outside the objective's caps or SLA
	// fails it whatever the undecided verdicts turn out to be.
	undecidedWhy []string
	decided      bool
	// ReplicaHours are the autoscaled pools' replica-hours in the rollout
	// check, RunSeconds the check's length in simulated seconds.
	ReplicaHours float64 `json:"replica_hours"`
	RunSeconds   float64 `json:"run_s"`
	// ReplicaUSDPerMonth, TokenUSDPerMonth and USDPerMonth (their sum) are
	// the fleet's dollars a month (see Fleet).
	ReplicaUSDPerMonth float64 `json:"replica_usd_per_month"`
	TokenUSDPerMonth   float64 `json:"token_usd_per_month"`
	USDPerMonth        float64 `json:"usd_per_month"`
	// meanLatency is the mean of the picks' objective percentiles.
	meanLatency float64
}

// FleetPick is one class's pick under a floor: what rolls out for it,
// the pick or, when its verdict is undecided, its configured policy.
type FleetPick struct {
	Class string `json:"class"`
	// RollsOut is ClassReport.RollsOut: "configured" when the verdict is
	// undecided, so the class's configured policy rolls out and the fields
	// below are that policy's; absent otherwise.
	RollsOut string `json:"rolls_out,omitempty"`
	// Policy is "none" or the label of what rolls out, "configured" when
	// the sweep did not simulate the configured policy (Unswept); Hedged
	// says whether it hedges.
	Policy string `json:"policy"`
	Hedged bool   `json:"hedged"`
	// Unswept is true when the sweep did not simulate the configured
	// policy that rolls out: Latency and AnsweredShare are then the
	// rollout check's (RolloutClass.Checked), and Feasible is false.
	// Absent when false.
	Unswept bool `json:"unswept,omitempty"`
	// Percentile is the objective's (0.95 or 0.99); Latency is the pick's
	// in seconds (+Inf, JSON null, when it is a miss).
	Percentile  float64  `json:"percentile"`
	Latency     float64  `json:"-"`
	LatencyJSON *float64 `json:"latency_s"`
	// AnsweredShare is the share answered within the deadline; Feasible
	// is the pick's Candidate.Feasible.
	AnsweredShare float64 `json:"answered_share"`
	Feasible      bool    `json:"feasible"`
}

// Text says what rolls out for p's class: "class policy (p95 3.87s)", or
// for a class whose verdict is undecided "class configured policy (…)",
// "class configured (p95 … in the rollout check)" when the sweep did not
// simulate it.
func (p *FleetPick) Text() string {
	switch {
	case p.Unswept:
		return fmt.Sprintf("%s configured (p%g %s in the rollout check)", p.Class, 100*p.Percentile, fsec(p.Latency))
	case p.RollsOut == RollsOutConfigured:
		return fmt.Sprintf("%s configured %s (p%g %s)", p.Class, p.Policy, 100*p.Percentile, fsec(p.Latency))
	}
	return fmt.Sprintf("%s %s (p%g %s)", p.Class, p.Policy, 100*p.Percentile, fsec(p.Latency))
}

// fleetPick returns what rolls out for class cr of the sweep r of config
// cfg (FleetPick): its pick, or when the verdict is undecided its
// configured policy, at the rollout check's figures when the sweep did
// not simulate it.
func fleetPick(cr *ClassReport, r *Report, cfg *sim.Config) FleetPick {
	p := cr.Objective.Percentile
	fp := FleetPick{Class: cr.Class, RollsOut: cr.RollsOut, Percentile: p}
	c := cr.Picked()
	if cr.RollsOut == RollsOutConfigured {
		c = cr.RolledOut()
	}
	if c != nil {
		fp.Policy, fp.Hedged = "none", c.Hedging
		if c.Hedging {
			fp.Policy = c.Label
		}
		fp.Latency, fp.AnsweredShare, fp.Feasible = c.Q(p), c.AnsweredShare, c.Feasible
		return fp
	}
	fp.Policy, fp.Unswept, fp.Latency = "configured", true, math.NaN()
	if k := slices.IndexFunc(cfg.Classes, func(c sim.Class) bool { return c.Name == cr.Class }); k >= 0 {
		fp.Hedged = hedges(&cfg.Classes[k])
	}
	for _, rc := range r.Rollout.Classes {
		if rc.Class == cr.Class {
			fp.Latency, fp.AnsweredShare = rc.Checked.P95, rc.AnsweredShare
			if p == 0.99 {
				fp.Latency = rc.Checked.P99
			}
		}
	}
	return fp
}

// autoscaled reports whether cfg has an autoscaled pool.
func autoscaled(cfg *sim.Config) bool {
	return slices.ContainsFunc(cfg.Providers, func(p sim.Provider) bool { return p.Pool != nil && p.Pool.Autoscale != nil })
}

// validMinReplicas checks s.MinReplicas against cfg.
func validMinReplicas(s *Settings, cfg *sim.Config) error {
	if len(s.MinReplicas) == 0 {
		return nil
	}
	if !autoscaled(cfg) {
		return fmt.Errorf("min replicas to compare: the scenario has no autoscaled pool (a [providers.NAME.pool.autoscale] table)")
	}
	if s.CheckRequests == 0 {
		return fmt.Errorf("min replicas to compare: they need the rollout check (check requests ≠ 0): the fleet's replica-hours are the check's")
	}
	for _, m := range s.MinReplicas {
		if m < 0 {
			return fmt.Errorf("min replicas %d: must be ≥ 0", m)
		}
		for _, p := range cfg.Providers {
			if p.Pool != nil && p.Pool.Autoscale != nil && m > p.Pool.Replicas {
				return fmt.Errorf("min replicas %d: above pool %s's max_replicas %d", m, p.Name, p.Pool.Replicas)
			}
		}
	}
	return nil
}

// withMinReplicas returns a copy of cfg whose every autoscaled pool keeps
// at least m replicas up, and starts with at least m.
func withMinReplicas(cfg *sim.Config, m int) *sim.Config {
	c := *cfg
	c.Providers = slices.Clone(cfg.Providers)
	for i := range c.Providers {
		if p := c.Providers[i].Pool; p != nil && p.Autoscale != nil {
			q, a := *p, *p.Autoscale
			a.Min, a.Initial = m, max(a.Initial, m)
			q.Autoscale = &a
			c.Providers[i].Pool = &q
		}
	}
	return &c
}

// fleetSpend returns the replica-hours, the run's length and the dollars
// a month of replicas and of tokens of a rollout check (see Fleet).
func fleetSpend(r *sim.Report) (hours, span, replicas, tokens float64) {
	for i := range r.Pools {
		a := r.Pools[i].Autoscale
		if a == nil || a.RunSeconds <= 0 {
			continue
		}
		hours += a.ReplicaHours
		span = max(span, a.RunSeconds)
		replicas += a.CostUSD / a.RunSeconds * 86400 * sim.DaysPerMonth
	}
	return hours, span, replicas, r.Overall.Spend.PerMonth
}

// fleet runs the sweep under each of s.MinReplicas (sweepsOf, with the
// rollout check) and compares the settings.
func fleet(cfg *sim.Config, s Settings, opt Options) (*Fleet, error) {
	n := len(s.MinReplicas)
	cfgs, names := make([]*sim.Config, n), make([]string, n)
	for k, m := range s.MinReplicas {
		cfgs[k], names[k] = withMinReplicas(cfg, m), "min replicas "+strconv.Itoa(m)
	}
	reps, err := sweepsOf(cfgs, names, "min-replicas sweeps", s, opt, true, nil, nil)
	if err != nil {
		return nil, err
	}
	out := &Fleet{MinReplicas: slices.Clone(s.MinReplicas), Cheapest: -1}
	for k, r := range reps {
		if r.Rollout == nil || r.Rollout.Report == nil {
			return nil, fmt.Errorf("%s: no rollout check", names[k])
		}
		fs := FleetSetting{MinReplicas: s.MinReplicas[k], Meets: true, decided: true}
		fs.ReplicaHours, fs.RunSeconds, fs.ReplicaUSDPerMonth, fs.TokenUSDPerMonth = fleetSpend(r.Rollout.Report)
		fs.USDPerMonth = fs.ReplicaUSDPerMonth + fs.TokenUSDPerMonth
		for i := range r.Classes {
			cr := &r.Classes[i]
			fp := fleetPick(cr, r, cfgs[k])
			fp.LatencyJSON = finitePtr(fp.Latency)
			fs.Meets = fs.Meets && fp.Feasible && !cr.Verdict.Undecided
			fs.decided = fs.decided && (fp.Feasible || cr.Verdict.Undecided)
			if cr.Verdict.Undecided {
				fs.Undecided = append(fs.Undecided, cr.Class)
				fs.undecidedWhy = append(fs.undecidedWhy, cr.Class+": "+cr.Verdict.Reason)
			}
			fs.meanLatency += fp.Latency / float64(len(r.Classes))
			fs.Picks = append(fs.Picks, fp)
		}
		out.Settings = append(out.Settings, fs)
	}
	out.Cheapest = cheapestSetting(out.Settings)
	out.Verdict = fleetVerdict(out)
	out.CheaperUndecided = cheaperUndecided(out)
	return out, nil
}

// cheaperUndecided says, for each floor of f cheaper than the cheapest
// meeting the objective (each floor when none does) that fails to meet it
// only for an undecided verdict, that it might: its dollars a month and
// why each verdict is undecided.
func cheaperUndecided(f *Fleet) []string {
	var out []string
	for i := range f.Settings {
		fs := &f.Settings[i]
		if fs.Meets || len(fs.Undecided) == 0 || !fs.decided {
			continue
		}
		if f.Cheapest >= 0 && fs.USDPerMonth > f.Settings[f.Cheapest].USDPerMonth-0.01 {
			continue
		}
		cheaper := "is cheaper"
		if f.Cheapest < 0 {
			cheaper = "costs"
		}
		out = append(out, fmt.Sprintf("min_replicas = %d %s (%s a month) and might meet the objective, but its verdict is undecided (%s)",
			fs.MinReplicas, cheaper, sim.Dollars(fs.USDPerMonth), strings.Join(fs.undecidedWhy, "; ")))
	}
	return out
}

// cheapestSetting returns the index of the cheapest setting of ss that
// meets the objective (see Fleet for the order), or −1.
func cheapestSetting(ss []FleetSetting) int {
	best := -1
	for i := range ss {
		if !ss[i].Meets {
			continue
		}
		if best < 0 || fleetBefore(&ss[i], &ss[best]) {
			best = i
		}
	}
	return best
}

// fleetBefore reports whether a comes before b: cheaper by a cent a month
// or more, else the lower mean percentile, else the lower floor.
func fleetBefore(a, b *FleetSetting) bool {
	if d := a.USDPerMonth - b.USDPerMonth; d <= -0.01 || d >= 0.01 {
		return d < 0
	}
	if a.meanLatency != b.meanLatency {
		return a.meanLatency < b.meanLatency
	}
	return a.MinReplicas < b.MinReplicas
}

// hedges reports whether a pick of fs hedges.
func (fs *FleetSetting) hedges() bool {
	return slices.ContainsFunc(fs.Picks, func(p FleetPick) bool { return p.Hedged })
}

// picksText lists fs's hedged picks: "class hedged's pick 5s".
func (fs *FleetSetting) picksText() string {
	var parts []string
	for _, p := range fs.Picks {
		if p.Hedged {
			parts = append(parts, fmt.Sprintf("class %s's pick %s", p.Class, p.Policy))
		}
	}
	return strings.Join(parts, ", ")
}

// fleetVerdict says whether the cheapest setting trades warm replicas for
// hedging: a higher floor without any hedged pick that is cheaper than
// every lower floor meeting the objective with one ("keeping replicas
// warm beats hedging"), or a floor with a hedged pick cheaper than every
// higher floor meeting it ("hedging beats keeping replicas warm"). The
// setting beaten is the cheapest of those on the other side.
func fleetVerdict(f *Fleet) string {
	if f.Cheapest < 0 {
		return ""
	}
	w := &f.Settings[f.Cheapest]
	var other *FleetSetting
	for i := range f.Settings {
		o := &f.Settings[i]
		if i == f.Cheapest || !o.Meets {
			continue
		}
		trade := (!w.hedges() && o.hedges() && o.MinReplicas < w.MinReplicas) ||
			(w.hedges() && o.MinReplicas > w.MinReplicas)
		if trade && (other == nil || fleetBefore(o, other)) {
			other = o
		}
	}
	if other == nil {
		return ""
	}
	if !w.hedges() {
		return fmt.Sprintf("keeping replicas warm beats hedging: min_replicas = %d without hedging, %s a month, against min_replicas = %d with hedging (%s), %s a month",
			w.MinReplicas, sim.Dollars(w.USDPerMonth), other.MinReplicas, other.picksText(), sim.Dollars(other.USDPerMonth))
	}
	with := "without hedging"
	if other.hedges() {
		with = "with hedging too"
	}
	return fmt.Sprintf("hedging beats keeping replicas warm: min_replicas = %d with hedging (%s), %s a month, against min_replicas = %d %s, %s a month",
		w.MinReplicas, w.picksText(), sim.Dollars(w.USDPerMonth), other.MinReplicas, with, sim.Dollars(other.USDPerMonth))
}

// writeFleet writes the fleet comparison, when there is one.
func (r *Report) writeFleet(w io.Writer) {
	f := r.Fleet
	if f == nil {
		return
	}
	floors := make([]string, len(f.MinReplicas))
	for i, m := range f.MinReplicas {
		floors[i] = strconv.Itoa(m)
	}
	fmt.Fprintf(w, "\nfleet: every autoscaled pool's min_replicas set to each of %s, the sweep and its rollout check run again; dollars a month (%d d) of the whole fleet at the scenario's rate, replicas (idle ones included) plus tokens:\n",
		strings.Join(floors, ", "), sim.DaysPerMonth)
	tw := textfit.NewTable(w, 0)
	fmt.Fprintf(tw, "  min_replicas\tpicks\tmeets objective\treplica-hours\treplicas a month\ttokens a month\ttotal a month\n")
	for i := range f.Settings {
		fs := &f.Settings[i]
		var picks []string
		for _, p := range fs.Picks {
			picks = append(picks, p.Text())
		}
		meets := "no"
		switch {
		case fs.Meets:
			meets = "yes"
		case len(fs.Undecided) > 0:
			meets = "undecided: " + strings.Join(fs.Undecided, ", ")
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%.3f\t%s\t%s\t%s\n", fs.MinReplicas, strings.Join(picks, ", "), meets,
			fs.ReplicaHours, sim.Dollars(fs.ReplicaUSDPerMonth), sim.Dollars(fs.TokenUSDPerMonth), sim.Dollars(fs.USDPerMonth))
	}
	tw.Flush()
	if f.Cheapest < 0 {
		fmt.Fprintf(w, "  no setting meets the objective: each has a pick outside its caps or SLA, or an undecided verdict\n")
	} else {
		c := &f.Settings[f.Cheapest]
		fmt.Fprintf(w, "  cheapest meeting the objective: min_replicas = %d, %s a month\n", c.MinReplicas, sim.Dollars(c.USDPerMonth))
		if f.Verdict != "" {
			fmt.Fprintf(w, "  %s\n", f.Verdict)
		}
	}
	for _, u := range f.CheaperUndecided {
		fmt.Fprintf(w, "  %s\n", u)
	}
}
