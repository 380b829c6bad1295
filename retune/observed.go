package retune

import (
	"context"
	"fmt"
	"slices"

	"github.com/hedgesim/hedgesim/dist"
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
// Start) of the scenario's own traffic, and a shift is reported but not
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

// observedLatencies simulates cfg with requests requests (a replayed
// trace keeps its own number) and returns, per model named in models, the
// latencies in seconds of its completed attempts from sending to answer,
// and the number of requests simulated.
func observedLatencies(ctx context.Context, cfg *sim.Config, models []string, requests int) (map[string][]float64, int, error) {
	c := *cfg
	if c.Arrivals.Process != sim.Replay {
		c.Requests = max(c.Requests, min(requests, MaxObservedRequests))
	}
	out := map[string][]float64{}
	for _, m := range models {
		out[m] = nil
	}
	_, err := sim.RunTraceContext(ctx, &c, func(a *sim.AttemptRecord) {
		if a.Outcome != "completed" {
			return
		}
		if xs, ok := out[a.Model]; ok {
			out[a.Model] = append(xs, (a.End - a.Start).Seconds())
		}
	})
	if err != nil {
		return nil, 0, fmt.Errorf("simulating the client-side latency of %v: %w", models, err)
	}
	return out, c.Requests, nil
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
	// whose attempts the scenario cancels (cancelledBy) is then judged
	// against its completed attempts simulated, as a queued one.
	CountsAnswered = "answered"
)

// cancelledBy returns the names of the classes (a pipeline's as
// "class/step") whose hedge policy sends to the model at index mi with
// copies, so that the losers of a race, the model's slow calls, are
// cancelled and missing from a histogram of answered calls; nil when none
// does or when the model's provider ignores cancels.
func cancelledBy(cfg *sim.Config, mi int) []string {
	m := &cfg.Models[mi]
	if i := slices.IndexFunc(cfg.Providers, func(p sim.Provider) bool { return p.Name == m.Provider }); i >= 0 && cfg.Providers[i].IgnoresCancel {
		return nil
	}
	sends := func(p *sim.Policy) bool {
		if p.Copies == 0 && p.Adaptive == nil {
			return false
		}
		return p.Primary == mi || slices.Contains(p.Targets, mi)
	}
	var out []string
	for ci := range cfg.Classes {
		c := &cfg.Classes[ci]
		if c.Pipeline == nil {
			if sends(&c.Policy) {
				out = append(out, c.Name)
			}
			continue
		}
		for si := range c.Pipeline.Steps {
			if s := &c.Pipeline.Steps[si]; sends(&s.Call.Policy) {
				out = append(out, c.Name+"/"+s.Name)
			}
		}
	}
	return out
}
