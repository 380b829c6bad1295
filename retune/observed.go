package retune

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/readers"
	"github.com/hedgesim/hedgesim/sim"
)

// A model whose attempts can wait or be slowed at its provider — one served
// by a pool (per-replica queues, a replica's slowdown) or by a provider with
// a concurrency limit — has a live histogram of what a client observes: an
// attempt's latency from sending to its answer, the wait and the slowdown
// included. The scenario's model is the bare service time, which the
// simulator adds them to, so the two cannot be compared directly, and the
// live fit cannot take the model's place without counting the wait and the
// slowdown twice. Such a model is judged against the same quantity
// simulated: the completed attempts' latencies (sim.AttemptRecord End −
// Start) of the scenario's own traffic — and, when the histogram counts
// every call (CountsAll), the attempts cancelled in service to the end of
// their drawn service time (Due − Start) — and a shift is reported but not
// refitted (Model.Refit).

// ObservedRequests is the least number of requests simulated for the
// client-side latency of a queued model, and ObservedPerObservation the
// simulated requests per live observation above it (capped at
// MaxObservedRequests): the simulated sample's own noise then adds at most
// about a tenth to X²'s variance, which judge corrects for.
const (
	ObservedRequests       = 20_000
	ObservedPerObservation = 10
	MaxObservedRequests    = 1_000_000
)

// queuedAt returns the name of model m's provider when its attempts can
// wait or be slowed there (a pool, or a concurrency limit), else "".
func queuedAt(cfg *sim.Config, m *sim.Model) string {
	i := slices.IndexFunc(cfg.Providers, func(p sim.Provider) bool { return p.Name == m.Provider })
	if i < 0 {
		return ""
	}
	if p := &cfg.Providers[i]; p.Pool != nil || p.Concurrency > 0 {
		return p.Name
	}
	return ""
}

// observed is a simulation's client-side latencies of some models
// (observedLatencies).
type observed struct {
	// xs holds, per model, the latencies in seconds in completion order.
	xs map[string][]float64
	// cancelled counts, per model, the attempts cancelled in service that
	// xs counts to their end as drawn (sim.AttemptRecord.Due), and queued
	// those cancelled while still queued, left out: they never reached
	// the model (both 0 unless every call is counted).
	cancelled, queued map[string]int
	// requests is the number of requests simulated.
	requests int
}

// observedLatencies simulates cfg with requests requests (a replayed
// trace keeps its own number) and returns, per model named in models, the
// latencies in seconds of its completed attempts from sending to answer,
// in completion order (sim.RunTrace's: a completed attempt's end is
// decided when it ends). When all is true (CountsAll: a histogram of every
// call's latency to its end) an attempt its request cancelled in service
// is counted too, to the end its answer would have had (Due − Start: its
// wait and its drawn service time), where its cancel is decided; one
// cancelled while still queued never reached the model and is left out. A
// live histogram counts a call when it ends, so a window of it is a run of
// consecutive completions: the order in which Dependence batches them.
func observedLatencies(ctx context.Context, cfg *sim.Config, models []string, requests int, all bool) (*observed, error) {
	c := *cfg
	if c.Arrivals.Process != sim.Replay {
		c.Requests = max(c.Requests, min(requests, MaxObservedRequests))
	}
	out := &observed{xs: map[string][]float64{}, cancelled: map[string]int{}, queued: map[string]int{}, requests: c.Requests}
	for _, m := range models {
		out.xs[m] = nil
	}
	_, err := sim.RunTraceContext(ctx, &c, func(a *sim.AttemptRecord) {
		xs, ok := out.xs[a.Model]
		switch {
		case !ok:
		case a.Outcome == "completed":
			out.xs[a.Model] = append(xs, (a.End - a.Start).Seconds())
		case !all || a.Outcome != "cancelled":
		case a.Due > 0:
			out.xs[a.Model] = append(xs, (a.Due - a.Start).Seconds())
			out.cancelled[a.Model]++
		default:
			out.queued[a.Model]++
		}
	})
	if err != nil {
		return nil, fmt.Errorf("simulating the client-side latency of %v: %w", models, err)
	}
	return out, nil
}

// judgeObserved judges h against emp, the empirical distribution of xs,
// the model's client-side latencies simulated of cfg in completion order
// (observedLatencies); live is the fit of h. When cfg's requests interact
// (sim.Config.Batched: a queue, a pool, a limit) the calls are not
// independent and the judgment is corrected for it (Dependence, measured
// on xs); otherwise they are independent draws (a model whose answered
// calls hedging or a deadline cuts, with no queue).
func judgeObserved(cfg *sim.Config, h *readers.Histogram, emp dist.Continuous, xs []float64, live dist.Continuous, alpha float64) Drift {
	var seq []float64
	if cfg.Batched() {
		seq = xs
	}
	return judge(h, emp, live, alpha, float64(len(xs)), seq, "the client-side latency simulated")
}

// observedDist is the empirical distribution of xs, or an error naming
// model when the simulation completed none of its attempts.
func observedDist(model string, xs []float64) (*dist.Empirical, error) {
	if len(xs) == 0 {
		return nil, fmt.Errorf("model %s: the scenario simulated completes none of its attempts, so there is no client-side latency to judge its histogram against", model)
	}
	return dist.NewEmpirical(xs)
}

// What a live histogram counts (AssessCounts).
const (
	// CountsAll: every call's latency to its end, a call the scenario's
	// hedging or deadline cancels included (a server-side histogram, or a
	// client's that records a cancelled call's latency as if it had been
	// waited for); judged against the scenario's model.
	CountsAll = "all"
	// CountsAnswered: the latency of the calls answered only; a model
	// whose attempts the scenario cancels (cancelledBy: a hedge's losers,
	// or calls still running at a deadline) is then judged against its
	// completed attempts simulated, as a queued one.
	CountsAnswered = "answered"
)

// cancelledBy returns the names of the classes (a pipeline's as
// "class/step") that cancel calls to the model at index mi before their
// answer, so that those calls, the model's slow ones, are missing from a
// histogram of answered calls: those whose hedge policy sends to it with
// copies (the losers of a race are cancelled), and those that send to it
// as their primary under a deadline d (a class's; for a pipeline step the
// earlier of its own and its class's end-to-end one: a call still running
// then is cancelled) that cuts at least one of n calls on average,
// n·P(latency > d) ≥ 1 by the model's latency (a queued model's wait not
// counted): a deadline that would cut less than one of the histogram's n
// observations leaves no mark on it. nil when none does or when the
// model's provider ignores cancels. hedged says whether any of them
// hedges, deadline whether any cuts the model's calls only at a deadline.
func cancelledBy(cfg *sim.Config, mi int, n float64) (out []string, hedged, deadline bool) {
	m := &cfg.Models[mi]
	if i := slices.IndexFunc(cfg.Providers, func(p sim.Provider) bool { return p.Name == m.Provider }); i >= 0 && cfg.Providers[i].IgnoresCancel {
		return nil, false, false
	}
	sends := func(p *sim.Policy) bool { return p.Primary == mi || slices.Contains(p.Targets, mi) }
	hedges := func(p *sim.Policy) bool { return (p.Copies > 0 || p.Adaptive != nil) && sends(p) }
	add := func(name string, p *sim.Policy, d time.Duration) {
		switch {
		case hedges(p):
			out, hedged = append(out, name), true
		case d > 0 && p.Primary == mi && n*m.Latency.Survival(d.Seconds()) >= 1:
			out, deadline = append(out, name), true
		}
	}
	for ci := range cfg.Classes {
		c := &cfg.Classes[ci]
		if c.Pipeline == nil {
			add(c.Name, &c.Policy, c.Deadline)
			continue
		}
		for si := range c.Pipeline.Steps {
			s := &c.Pipeline.Steps[si]
			d := s.Call.Deadline
			if d == 0 || c.Deadline > 0 && c.Deadline < d {
				d = c.Deadline
			}
			add(c.Name+"/"+s.Name, &s.Call.Policy, d)
		}
	}
	return out, hedged, deadline
}

// cutText says which of a model's calls the classes cancelledBy names
// cancel: a hedge's losers (hedged), the calls still running at a
// deadline (deadline), or both.
func cutText(hedged, deadline bool) string {
	switch {
	case hedged && deadline:
		return "losing attempts and calls still running at a deadline"
	case deadline:
		return "calls still running at the deadline"
	}
	return "losing attempts"
}
