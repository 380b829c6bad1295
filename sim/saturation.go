package sim

import (
	"fmt"
	"math"
	"strings"
)

// Saturation. A provider — or a replica pool, taken as a whole, or one
// replica of a pool — that is nearly always busy, or whose queue holds attempts for a large part of
// their deadline, shapes every figure of a run: latency is mostly queueing,
// the answered share is what the queue lets through in time, and each copy
// a hedge sends waits in the same queue. The report names such a provider
// in a warning with both figures, its utilisation and its mean queue wait
// (ProviderResult), so that a low answered share is not read as the
// models' own latency. A pool is judged as a whole and then, when the
// whole is not saturated, replica by replica: a straggler that a balancer
// blind to queues keeps feeding is saturated while the mean over the pool
// is far from full, and the pool's figures average it away. The check
// reads the hedged run's provider and pool results after the run; it
// costs O(providers × classes + replicas) and nothing per request.

// SaturatedUtilisation is the utilisation (mean in service ÷ concurrency
// limit; for a pool as a whole, over all its replicas; for a replica, its
// own) at or above which a provider, a pool or a replica is saturated.
const SaturatedUtilisation = 0.95

// SaturatedWaitShare is the share of the deadline that a provider's mean
// queue wait must exceed for it to be saturated: the deadline is the
// shortest of the calls sent to it (callDeadline).
const SaturatedWaitShare = 0.5

// saturationWarnings returns a warning for each provider of the hedged run
// that is saturated — utilisation ≥ SaturatedUtilisation, or a mean queue
// wait over SaturatedWaitShare of the shortest deadline of the calls sent
// to it — other than those in skip (already warned about as unstable).
func saturationWarnings(cfg *Config, providers []ProviderResult, skip map[string]bool) []string {
	var out []string
	for i := range providers {
		p := &providers[i]
		if skip[p.Name] || p.Sent == 0 {
			continue
		}
		dl := shortestDeadline(cfg, p.Name)
		if !isSaturated(p.Utilisation, p.MeanQueueWait, dl) {
			continue
		}
		what := "provider " + p.Name
		if cfg.providerPool(p.Name) {
			what = "the replica pool of provider " + p.Name
		}
		out = append(out, fmt.Sprintf("%s is saturated: %s; its latency is mostly queueing, and every copy a hedge sends waits in the same queue — lower the load or add capacity (concurrency, replicas) before reading the hedge's figures",
			what, saturationFigures(p.Utilisation, p.MeanQueueWait, dl)))
	}
	return out
}

// isSaturated reports whether utilisation u (nil: no concurrency limit)
// is at least SaturatedUtilisation or the mean queue wait (seconds) over
// SaturatedWaitShare of deadline dl (seconds; 0: none).
func isSaturated(u *float64, wait, dl float64) bool {
	return u != nil && *u >= SaturatedUtilisation || dl > 0 && wait > SaturatedWaitShare*dl
}

// saturationFigures says utilisation u and mean queue wait (seconds),
// with its share of deadline dl (seconds) when there is one.
func saturationFigures(u *float64, wait, dl float64) string {
	util := "no concurrency limit"
	if u != nil {
		util = fmt.Sprintf("utilisation %.1f%%", 100**u)
	}
	w := fmt.Sprintf("mean queue wait %s", FormatSeconds(wait))
	if dl > 0 {
		w += fmt.Sprintf(" (%.0f%% of the %s deadline of its calls)", 100*wait/dl, FormatSeconds(dl))
	}
	return util + ", " + w
}

// replicaKey names replica Replica of provider Provider's pool.
type replicaKey struct {
	Provider string
	Replica  int
}

// replicaSaturationWarnings returns a warning for each replica of the
// hedged run's pools that is saturated by its own figures —
// utilisation ≥ SaturatedUtilisation, or a mean queue wait over
// SaturatedWaitShare of the shortest deadline of the calls sent to its
// provider — in a pool that is not saturated as a whole and not in skip,
// other than the replicas in skipReps (already warned about as unstable).
func replicaSaturationWarnings(cfg *Config, providers []ProviderResult, pools []PoolResult, skip map[string]bool, skipReps map[replicaKey]bool) []string {
	var out []string
	for i := range pools {
		pl := &pools[i]
		if skip[pl.Provider] {
			continue
		}
		dl := shortestDeadline(cfg, pl.Provider)
		var whole *ProviderResult
		for j := range providers {
			if providers[j].Name == pl.Provider {
				whole = &providers[j]
			}
		}
		if whole == nil || whole.Sent == 0 || isSaturated(whole.Utilisation, whole.MeanQueueWait, dl) {
			continue
		}
		for j := range pl.Replicas {
			r := &pl.Replicas[j]
			if skipReps[replicaKey{pl.Provider, j}] || r.Sent == 0 || !isSaturated(r.Utilisation, r.MeanQueueWait, dl) {
				continue
			}
			out = append(out, fmt.Sprintf("replica %d of the replica pool of provider %s is saturated: %s, while the pool as a whole is at %s; its latency is mostly queueing, and its balancer (%s) keeps sending it its share — %s before reading the hedge's figures",
				r.Replica, pl.Provider, saturationFigures(r.Utilisation, r.MeanQueueWait, dl), saturationFigures(whole.Utilisation, whole.MeanQueueWait, dl), pl.Balancer, replicaAdvice(pl.Balancer)))
		}
	}
	return out
}

// poolOf returns the result of provider prov's pool in pools, or nil.
func poolOf(pools []PoolResult, prov string) *PoolResult {
	for i := range pools {
		if pools[i].Provider == prov {
			return &pools[i]
		}
	}
	return nil
}

// providerUtilisation returns provider prov's utilisation in providers,
// or nil.
func providerUtilisation(providers []ProviderResult, prov string) *float64 {
	for i := range providers {
		if providers[i].Name == prov {
			return providers[i].Utilisation
		}
	}
	return nil
}

// shortestDeadline returns, in seconds, the shortest deadline of the calls
// that may be sent to provider prov — a one-call class's deadline, or a
// pipeline step's call deadline bounded by its class's end-to-end one —
// over the models a call's primary and copies go to; 0 when none has a
// deadline.
func shortestDeadline(cfg *Config, prov string) float64 {
	best := math.Inf(1)
	consider := func(p *Policy, deadlines ...float64) {
		if !cfg.sendsTo(p, prov) {
			return
		}
		for _, d := range deadlines {
			if d > 0 {
				best = math.Min(best, d)
			}
		}
	}
	for i := range cfg.Classes {
		c := &cfg.Classes[i]
		if c.Pipeline == nil {
			consider(&c.Policy, c.Deadline.Seconds())
			continue
		}
		for s := range c.Pipeline.Steps {
			call := &c.Pipeline.Steps[s].Call
			consider(&call.Policy, call.Deadline.Seconds(), c.Deadline.Seconds())
		}
	}
	if math.IsInf(best, 1) {
		return 0
	}
	return best
}

// sendsTo reports whether policy p sends its primary or a copy to a model
// of provider prov.
func (cfg *Config) sendsTo(p *Policy, prov string) bool {
	for _, m := range append([]int{p.Primary}, p.Targets...) {
		if m >= 0 && m < len(cfg.Models) && cfg.Models[m].providerName() == prov {
			return true
		}
	}
	return false
}

// providerName returns the provider model m belongs to: Model.Provider, or
// its own name when that is empty.
func (m *Model) providerName() string {
	if m.Provider == "" {
		return m.Name
	}
	return m.Provider
}

// providerPool reports whether provider prov has a replica pool.
func (cfg *Config) providerPool(prov string) bool {
	for i := range cfg.Providers {
		if cfg.Providers[i].Name == prov {
			return cfg.Providers[i].Pool != nil
		}
	}
	return false
}

// queueBlindAdvice returns, for a balancer named b that does not see the
// replicas' queues (random, round_robin), the advice to use one that
// does; "" for the others.
func queueBlindAdvice(b string) string {
	if b == RandomBalancer.String() || b == RoundRobin.String() {
		return ", use a balancer that sees queues (" + LeastOutstanding.String() + ", " + PowerOfTwo.String() + ")"
	}
	return ""
}

// replicaAdvice returns what to do about a saturated replica whose pool's
// balancer is named b.
func replicaAdvice(b string) string {
	if a := queueBlindAdvice(b); a != "" {
		return "lower the load, add capacity" + strings.Replace(a, ", use", ", or use", 1)
	}
	return "lower the load or add capacity"
}
