package optimize

import (
	"fmt"
	"math"
	"strings"

	"github.com/hedgesim/hedgesim/sim"
)

// Load kinds (Load.Kind).
const (
	// LoadQueue: a provider's queue, or a pool replica's, grows without
	// bound — its offered load is at or above its concurrency (sim's
	// ProviderResult.Unstable, ReplicaResult.Unstable).
	LoadQueue = "queue"
	// LoadRate: a request-rate limit is offered more requests per second
	// than it admits in the long run (sim's Result.Overloads).
	LoadRate = "rate_limit"
)

// Load is a limit that one simulation pushed past what it sustains.
type Load struct {
	// Kind is LoadQueue or LoadRate.
	Kind string `json:"kind"`
	// Name names the limit: "provider p", "provider p replica 1" (a
	// replica of p's pool), "model b".
	Name string `json:"name"`
	// Offered is, for a queue, the provider's (or replica's) offered load
	// as a fraction of its concurrency (≥ 1), and Utilisation its measured utilisation
	// in [0, 1]; for a rate limit, the requests per second offered to it,
	// and Limit those it admits in the long run.
	Offered     float64 `json:"offered"`
	Utilisation float64 `json:"utilisation,omitempty"`
	Limit       float64 `json:"limit,omitempty"`
	// BurstSeconds is a rate limit's burst (seconds of refill a full
	// bucket holds) and SpanSeconds the simulated time of the run: how
	// many refills the run covers (see Settled).
	BurstSeconds float64 `json:"burst_s,omitempty"`
	SpanSeconds  float64 `json:"span_s,omitempty"`
}

// String says it in words.
func (l Load) String() string {
	if l.Kind == LoadRate {
		return fmt.Sprintf("%s's rate limit is offered %.0f%% of its rate (%.3g requests/s offered, %.3g/s admitted)", l.Name, 100*l.Offered/l.Limit, l.Offered, l.Limit)
	}
	return fmt.Sprintf("%s is offered %.0f%% of its capacity (utilisation %.1f%%)", l.Name, 100*l.Offered, 100*l.Utilisation)
}

// loadsOf returns the limits the run res of scenario c pushed past what
// they sustain.
func loadsOf(res *sim.Result, c *sim.Config) []Load {
	var out []Load
	for _, o := range res.Overloads(c) {
		burst := 60.0 // sim.RateLimit's default
		rl := func(r sim.RateLimit) {
			if r.Burst > 0 {
				burst = r.Burst.Seconds()
			}
		}
		if o.Kind == "model" {
			for m := range c.Models {
				if c.Models[m].Name == o.Name {
					rl(c.Models[m].RateLimit)
				}
			}
		} else {
			for _, p := range c.Providers {
				if p.Name == o.Name {
					rl(p.RateLimit)
				}
			}
		}
		out = append(out, Load{Kind: LoadRate, Name: o.Kind + " " + o.Name, Offered: o.Offered, Limit: o.Limit,
			BurstSeconds: burst, SpanSeconds: res.Seconds})
	}
	for i := range res.Providers {
		p := &res.Providers[i]
		if p.Unstable() {
			u := 0.0
			if p.Utilisation != nil {
				u = *p.Utilisation
			}
			out = append(out, Load{Kind: LoadQueue, Name: "provider " + p.Name, Offered: p.OfferedLoad(), Utilisation: u, SpanSeconds: res.Seconds})
		}
	}
	for i := range res.Pools {
		pl := &res.Pools[i]
		for j := range pl.Replicas {
			if r := &pl.Replicas[j]; r.Unstable() {
				u := 0.0
				if r.Utilisation != nil {
					u = *r.Utilisation
				}
				out = append(out, Load{Kind: LoadQueue, Name: fmt.Sprintf("provider %s replica %d", pl.Provider, r.Replica), Offered: r.OfferedLoad(), Utilisation: u, SpanSeconds: res.Seconds})
			}
		}
	}
	return out
}

// hasLoad reports whether ls holds a load of the kind on the limit name.
func hasLoad(ls []Load, kind, name string) bool {
	for _, l := range ls {
		if l.Kind == kind && l.Name == name {
			return true
		}
	}
	return false
}

// newLoads returns the loads of c that the baseline b does not have: those
// hedging causes.
func newLoads(c, b *Candidate) []Load {
	var out []Load
	for _, l := range c.Loads {
		if !hasLoad(b.Loads, l.Kind, l.Name) {
			out = append(out, l)
		}
	}
	return out
}

// MinRefills is how many refills of a rate limit's bucket (its burst) a
// sweep's simulated span must cover before the 429s of a candidate that
// overloads it count as measured: a bucket starts full, so over a span of
// T seconds it admits at most one burst more than its long-run rate
// allows — at least 20 refills keep that excess below 5 % of what it
// admits. A shorter span hides part of the overload, and such a candidate
// is excluded instead (Candidate.OverloadExcluded).
const MinRefills = 20

// Refills returns how many refills of its bucket the run spans (a rate
// load).
func (l Load) Refills() float64 {
	if !(l.BurstSeconds > 0) {
		return math.Inf(1)
	}
	return l.SpanSeconds / l.BurstSeconds
}

// Settled reports whether the run spans at least MinRefills refills of
// the rate limit's bucket: its 429s are measured.
func (l Load) Settled() bool { return l.Refills() >= MinRefills }

// excludeOverload reports whether c, which overloads a rate limit no
// hedging does not (OverLimit), is excluded: by the rule, or because one
// such limit's 429s are not settled in the sweep.
func excludeOverload(c, base *Candidate, rule Rule) bool {
	if !c.OverLimit {
		return false
	}
	if rule.ExcludeOverload {
		return true
	}
	for _, l := range newLoads(c, base) {
		if l.Kind == LoadRate && !l.Settled() {
			return true
		}
	}
	return false
}

// overloadNotes say, per rate limit that a candidate overloads (and no
// hedging does not), how many refills of its bucket the sweep spans
// against MinRefills, and so how those candidates are judged: on their
// measured figures, or excluded (with a warning when too short a span
// excluded them: raise --requests, or, when the class's run (replay, nil
// without a trace) replays its whole trace, which --requests cannot go
// past, a longer trace is needed).
func overloadNotes(cs []Candidate, rule Rule, replay *replayRun) (notes, warnings []string) {
	base := &cs[0]
	type agg struct {
		n                int
		refills, maxPct  float64
		settled, pickHas bool
	}
	by := map[string]*agg{}
	var names []string
	for i := range cs {
		c := &cs[i]
		if !c.OverLimit {
			continue
		}
		for _, l := range newLoads(c, base) {
			if l.Kind != LoadRate {
				continue
			}
			a := by[l.Name]
			if a == nil {
				a = &agg{refills: math.Inf(1), settled: true}
				by[l.Name] = a
				names = append(names, l.Name)
			}
			a.n++
			a.refills = math.Min(a.refills, l.Refills())
			a.settled = a.settled && l.Settled()
			a.maxPct = math.Max(a.maxPct, 100*l.Offered/l.Limit)
			a.pickHas = a.pickHas || c.Pick
		}
	}
	for _, name := range names {
		a := by[name]
		head := fmt.Sprintf("%d %s the rate limit of %s (up to %.0f%% of its rate); the sweep spans %.1f refills of its bucket", a.n, plural(a.n, "candidate overloads", "candidates overload"), name, a.maxPct, a.refills)
		switch {
		case rule.ExcludeOverload:
			notes = append(notes, head+": excluded, as exclude_overload asks")
		case a.settled:
			n := fmt.Sprintf("%s (settled: at least %d, so the bucket's initial fill is under 5%% of what it admits): judged on their measured percentiles, answered share and cost, 429s included; exclude_overload (--exclude-overload) excludes them instead", head, MinRefills)
			if a.pickHas {
				n += "; the pick is one of them"
			}
			notes = append(notes, n)
		default:
			raise := "raise --requests to measure them"
			if replay != nil && replay.replayed >= replay.trace {
				raise = fmt.Sprintf("the run replays all %d requests of its trace, and --requests cannot replay past its end: a longer trace is needed to measure them", replay.trace)
			}
			warnings = append(warnings, fmt.Sprintf("%s, fewer than the %d needed to measure their 429s (a bucket that starts full hides part of an overload): they are excluded; %s", head, MinRefills, raise))
		}
	}
	return notes, warnings
}

// unstablePrefix starts the warnings that the text report prints up front:
// a baseline whose figures depend on the run's length.
const unstablePrefix = "unstable baseline: "

// loadWarnings are the warnings of a class on the loads of its candidates:
// the baseline's unstable queues (up front, unstablePrefix), and how many
// hedged candidates make a queue unstable that the baseline keeps stable.
func loadWarnings(cs []Candidate) []string {
	var w []string
	base := &cs[0]
	for _, l := range base.Loads {
		if l.Kind == LoadQueue {
			fix := "lower the load or raise the provider's concurrency"
			if strings.Contains(l.Name, " replica ") {
				fix = "lower the load, raise the pool's concurrency, or use a balancer that sees queues"
			}
			w = append(w, unstablePrefix+fmt.Sprintf("without hedging, %s: its queue grows without bound while requests arrive, so the baseline and every candidate depend on how long the sweep runs; %s before choosing a hedge", l, fix))
		}
	}
	type worst struct {
		n   int
		max float64
	}
	by := map[string]*worst{}
	var names []string
	for i := range cs {
		for _, l := range newLoads(&cs[i], base) {
			if l.Kind != LoadQueue {
				continue
			}
			x := by[l.Name]
			if x == nil {
				x = &worst{}
				by[l.Name] = x
				names = append(names, l.Name)
			}
			x.n++
			x.max = math.Max(x.max, l.Offered)
		}
	}
	for _, name := range names {
		x := by[name]
		w = append(w, fmt.Sprintf("%d of %d candidates make the queue of %s grow without bound (offered up to %.0f%% of its capacity; stable without hedging): their figures depend on the sweep's length, and they are never picked",
			x.n, len(cs), name, 100*x.max))
	}
	return w
}

// upFront reports whether a class warning belongs at the top of the text
// report.
func upFront(w string) bool { return strings.HasPrefix(w, unstablePrefix) }
