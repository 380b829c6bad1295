package optimize

import (
	"fmt"
	"math"
	"strings"

	"github.com/hedgesim/hedgesim/sim"
)

// Load kinds (Load.Kind).
const (
	// LoadQueue: a provider's queue grows without bound — its offered
	// load is at or above its concurrency (sim's ProviderResult.Unstable).
	LoadQueue = "queue"
	// LoadRate: a request-rate limit is offered more requests per second
	// than it admits in the long run (sim's Result.Overloads).
	LoadRate = "rate_limit"
)

// Load is a limit that one simulation pushed past what it sustains.
type Load struct {
	// Kind is LoadQueue or LoadRate.
	Kind string `json:"kind"`
	// Name names the limit: "provider p", "model b".
	Name string `json:"name"`
	// Offered is, for a queue, the provider's offered load as a fraction
	// of its concurrency (≥ 1), and Utilisation its measured utilisation
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
			w = append(w, unstablePrefix+fmt.Sprintf("without hedging, %s: its queue grows without bound while requests arrive, so the baseline and every candidate depend on how long the sweep runs; lower the load or raise the provider's concurrency before choosing a hedge", l))
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
