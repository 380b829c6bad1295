package sim

import "strconv"

// Run simulates cfg and returns the outcome. It returns the error of
// cfg.Validate when the configuration is not usable; it does not modify cfg.
// Run is deterministic: the same cfg gives the same Result.
func Run(cfg *Config) (*Result, error) { return RunTrace(cfg, nil) }

// WithoutHedging returns a copy of cfg in which no class sends copies and
// no attempt has a per-attempt timeout or stream cut (a per-try timeout is part of a
// hedge policy: without it the primary runs until it answers or the
// deadline): the baseline that added cost and latency gains are measured
// against. Because draws depend only on (seed, request, attempt), the
// baseline sees exactly the same arrivals, token counts and primary
// attempts as cfg.
func WithoutHedging(cfg *Config) *Config {
	c := *cfg
	c.Classes = make([]Class, len(cfg.Classes))
	copy(c.Classes, cfg.Classes)
	for i := range c.Classes {
		NoHedging(&c.Classes[i].Policy)
		if p := c.Classes[i].Pipeline; p != nil {
			c.Classes[i].Pipeline = noHedgingPipeline(p)
		}
	}
	return &c
}

// NoHedging turns p into its no-hedging baseline: no copies and no
// per-attempt timeout — neither AttemptTimeout nor the stream cuts
// (StreamCuts: an inter-token timeout and a speed floor are per-try
// timeouts too); everything else (winner, error rules, cancellation) is
// kept.
func NoHedging(p *Policy) {
	p.Copies = 0
	p.AttemptTimeout = 0
	p.InterTokenTimeout = 0
	p.MinTokensPerSecond = 0
}

// independent reports whether requests cannot affect one another (no shared
// queue, rate limit, budget or adaptive state), so the engine may run each
// request to its end before the next arrives. Retries, whose re-runs move
// a request to a new slot, also take the event loop.
func (cfg *Config) independent() bool { return !cfg.pipelined() && cfg.independentCalls() }

// independentCalls is independent but for pipeline classes: whether calls
// cannot affect one another.
func (cfg *Config) independentCalls() bool {
	if !cfg.startsEmpty() {
		for _, c := range cfg.Classes {
			if c.Policy.Adaptive != nil {
				return false
			}
		}
		return true
	}
	return false
}

// startsEmpty reports whether runs of cfg start in a state their steady
// state is not in — empty queues, full rate-limit and budget buckets,
// closed breakers, clients all sending at once, retry throttles at rest —
// which the warm-up cut (warmup.go) removes. An adaptive delay alone makes
// requests interact (their delays follow the latencies before them), but
// its start is its own warm-up (Adaptive.WarmUp samples), part of what the
// policy does: it is not cut.
func (cfg *Config) startsEmpty() bool {
	for _, p := range cfg.Providers {
		if p.Concurrency > 0 || p.RateLimit.on() || p.Breaker != nil || p.Pool != nil {
			return true
		}
	}
	for _, m := range cfg.Models {
		if m.RateLimit.on() || m.Breaker != nil {
			return true
		}
	}
	for _, c := range cfg.Classes {
		if c.Clients > 0 || c.Policy.Budget.active() || c.Retry != nil || c.AttemptRetry != nil {
			return true
		}
	}
	return false
}

// interacts reports whether requests of cfg can affect one another and
// start in a state their steady state is not in — startsEmpty over only
// the providers and models cfg's classes reach (a class's primary and
// targets; a pipeline's steps'), so that a replica pool, limit or breaker
// no class sends to makes no request interact. It decides whether runs
// batch their intervals and cut a warm-up (batched); the engine's choice
// of running requests one at a time stays startsEmpty's.
func (cfg *Config) interacts() bool {
	reached, loop := cfg.reachedModels()
	if loop {
		return true
	}
	for i := range cfg.Models {
		m := &cfg.Models[i]
		if !reached[i] {
			continue
		}
		if m.RateLimit.on() || m.Breaker != nil {
			return true
		}
		for _, p := range cfg.Providers {
			if p.Name == m.Provider && (p.Concurrency > 0 || p.RateLimit.on() || p.Breaker != nil || p.Pool != nil) {
				return true
			}
		}
	}
	return false
}

// reachedModels returns which of cfg's models its classes reach (a
// class's primary and targets; a pipeline's steps'), and whether a class
// or step has closed-loop clients, a hedge budget or retries (which make
// requests interact whatever they reach).
func (cfg *Config) reachedModels() (reached []bool, loop bool) {
	reached = make([]bool, len(cfg.Models))
	reach := func(p *Policy) {
		for _, m := range append([]int{p.Primary}, p.Targets...) {
			if m >= 0 && m < len(reached) {
				reached[m] = true
			}
		}
	}
	for i := range cfg.Classes {
		c := &cfg.Classes[i]
		if c.Clients > 0 || c.Policy.Budget.active() || c.Retry != nil || c.AttemptRetry != nil {
			loop = true
		}
		if c.Pipeline == nil {
			reach(&c.Policy)
			continue
		}
		for j := range c.Pipeline.Steps {
			st := &c.Pipeline.Steps[j].Call
			if st.Clients > 0 || st.Policy.Budget.active() || st.Retry != nil || st.AttemptRetry != nil {
				loop = true
			}
			reach(&st.Policy)
		}
	}
	return reached, loop
}

// cutsWarmUp reports whether runs of cfg, whose requests interact, cut a
// warm-up (warmup.go): not when a pool a class reaches is autoscaled from
// zero replicas up at time 0 (Autoscale.Initial = 0, which needs Min = 0).
// Its start — every request waiting for, or failed for want of, a
// replica's cold start — is then the state the scenario asks about and
// the pool returns to whenever it scales to zero, not a transient of the
// simulation: MSER would find those requests' long times and cut exactly
// them.
func (cfg *Config) cutsWarmUp() bool {
	reached, _ := cfg.reachedModels()
	for i := range cfg.Models {
		if !reached[i] {
			continue
		}
		for _, p := range cfg.Providers {
			if p.Name == cfg.Models[i].Provider && p.Pool != nil && p.Pool.Autoscale != nil && p.Pool.Autoscale.Initial == 0 {
				return false
			}
		}
	}
	return true
}

// noCut says whether a run whose sections are batched cuts a warm-up
// (cutByMSER) and, when it cuts none, why: the report's warm_up.rule
// (noCut.rule).
type noCut uint8

const (
	cutByMSER     noCut = iota // MSER finds the cut (warmup.go)
	noCutAdaptive              // requests interact only through an adaptive delay (!Config.interacts)
	noCutFromZero              // a pool autoscaled from zero replicas (!Config.cutsWarmUp)
)

// warmUpCut returns whether cfg's batched runs cut a warm-up, and why
// not: requests that interact only through an adaptive delay start in no
// state they will not return to, and a pool from zero replicas starts in
// the state the scenario asks about.
func (cfg *Config) warmUpCut() noCut {
	switch {
	case !cfg.interacts():
		return noCutAdaptive
	case !cfg.cutsWarmUp():
		return noCutFromZero
	}
	return cutByMSER
}

// rule says how the warm-up was found: WarmUp.Rule.
func (n noCut) rule() string {
	switch n {
	case noCutAdaptive:
		return "none: the requests interact only through an adaptive delay, whose start is part of the policy"
	case noCutFromZero:
		return "none: a pool autoscaled from zero replicas starts in the state the scenario asks about"
	}
	return "MSER (White) on the means of " + strconv.Itoa(numSections) + " arrival sections"
}

func (r RateLimit) on() bool { return r.RequestsPerMinute > 0 || r.TokensPerMinute > 0 }
