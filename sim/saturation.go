package sim

import (
	"fmt"
	"math"
)

// Saturation. A provider — or a replica pool, taken as a whole — that is
// nearly always busy, or whose queue holds attempts for a large part of
// their deadline, shapes every figure of a run: latency is mostly queueing,
// the answered share is what the queue lets through in time, and each copy
// a hedge sends waits in the same queue. The report names such a provider
// in a warning with both figures, its utilisation and its mean queue wait
// (ProviderResult), so that a low answered share is not read as the
// models' own latency. The check reads the hedged run's provider results
// after the run; it costs O(providers × classes) and nothing per request.

// SaturatedUtilisation is the utilisation (mean in service ÷ concurrency
// limit; for a pool, over all its replicas) at or above which a provider is
// saturated.
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
		busy := p.Utilisation != nil && *p.Utilisation >= SaturatedUtilisation
		dl := shortestDeadline(cfg, p.Name)
		waits := dl > 0 && p.MeanQueueWait > SaturatedWaitShare*dl
		if !busy && !waits {
			continue
		}
		what := "provider " + p.Name
		if cfg.providerPool(p.Name) {
			what = "the replica pool of provider " + p.Name
		}
		util := "no concurrency limit"
		if p.Utilisation != nil {
			util = fmt.Sprintf("utilisation %.1f%%", 100**p.Utilisation)
		}
		wait := fmt.Sprintf("mean queue wait %s", FormatSeconds(p.MeanQueueWait))
		if dl > 0 {
			wait += fmt.Sprintf(" (%.0f%% of the %s deadline of its calls)", 100*p.MeanQueueWait/dl, FormatSeconds(dl))
		}
		out = append(out, fmt.Sprintf("%s is saturated: %s, %s; its latency is mostly queueing, and every copy a hedge sends waits in the same queue — lower the load or add capacity (concurrency, replicas) before reading the hedge's figures",
			what, util, wait))
	}
	return out
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
