package sim

import (
	"fmt"
	"slices"
)

// copiesToWarnings returns the warnings of class cl's calls (its own, or
// each pipeline step's) that send a copy, or retry a call, to a pool of
// one replica without AnyReplica (copies_to = "other_replica", the
// default): there is no other replica, so such an attempt waits at the
// one that holds its request's other attempts. A pool with a scaler is
// left out (its replicas come and go), and so is a call whose second
// attempt cannot reach the pool. One warning per call and pool.
func copiesToWarnings(cfg *Config, cl *Class) []ConfigWarning {
	if cl.Pipeline == nil {
		return callCopiesToWarnings(cfg, cl, -1, "")
	}
	var out []ConfigWarning
	for i := range cl.Pipeline.Steps {
		st := &cl.Pipeline.Steps[i]
		out = append(out, callCopiesToWarnings(cfg, &st.Call, i, "step "+st.Name+": ")...)
	}
	return out
}

// callCopiesToWarnings is copiesToWarnings for one call, the step-th of
// its pipeline (−1: the class's own), whose texts start with prefix.
func callCopiesToWarnings(cfg *Config, call *Class, step int, prefix string) []ConfigWarning {
	p := &call.Policy
	on := func(m, prov int) bool {
		return m >= 0 && m < len(cfg.Models) && cfg.Models[m].Provider == cfg.Providers[prov].Name
	}
	var out []ConfigWarning
	for i := range cfg.Providers {
		pl := cfg.Providers[i].Pool
		if pl == nil || pl.Replicas != 1 || pl.Autoscale != nil || pl.AnyReplica {
			continue
		}
		targets := p.Targets
		if len(targets) == 0 {
			targets = []int{p.Primary}
		}
		copyOn := false
		for _, m := range targets {
			copyOn = copyOn || on(m, i)
		}
		// A copy shares the replica with the primary, or with an earlier
		// copy; a retried call with the call it retries.
		copies := p.Copies > 0 && copyOn && (on(p.Primary, i) || p.Copies > 1)
		retries := call.AttemptRetry != nil && call.AttemptRetry.MaxAttempts > 1 && (on(p.Primary, i) || p.Copies > 0 && copyOn)
		if !copies && !retries {
			continue
		}
		name := cfg.Providers[i].Name
		out = append(out, ConfigWarning{Step: step, Model: -1, Provider: i + 1, Field: "copies_to",
			Text: fmt.Sprintf("%sprovider %s's pool has 1 replica, so copies_to = \"other_replica\" (the default) finds no other replica: copies and retried calls wait at the replica that holds their request's other attempts; add replicas to [providers.%s.pool], or set copies_to = \"any_replica\" there if that is meant", prefix, name, name)})
	}
	return out
}

// viewWarnings warns, for each pool class cl (or a step of it) sends to
// whose balancer reads no replica load (random, round_robin) but that has
// a View, that the view changes nothing: the run simulates the pool
// without it, as --balancers does when it sets such a balancer.
func viewWarnings(cfg *Config, cl *Class) []ConfigWarning {
	var ms []int
	add := func(p *Policy) { ms = append(append(ms, p.Primary), p.Targets...) }
	if cl.Pipeline == nil {
		add(&cl.Policy)
	} else {
		for i := range cl.Pipeline.Steps {
			add(&cl.Pipeline.Steps[i].Call.Policy)
		}
	}
	var out []ConfigWarning
	for i := range cfg.Providers {
		pl := cfg.Providers[i].Pool
		if pl == nil || pl.View == nil || pl.Balancer.readsLoad() {
			continue
		}
		name := cfg.Providers[i].Name
		if !slices.ContainsFunc(ms, func(m int) bool { return m >= 0 && m < len(cfg.Models) && cfg.Models[m].Provider == name }) {
			continue
		}
		out = append(out, ConfigWarning{Step: -1, Model: -1, Provider: i + 1, Field: "view_refresh",
			Text: fmt.Sprintf("provider %s's pool uses the %s balancer, which does not read replica load, so its view (view_refresh) changes nothing and is not simulated; use least_outstanding, p2c or latency_ewma for the view to matter, or remove view_refresh", name, pl.Balancer)})
	}
	return out
}
