package scenario

import (
	"fmt"
	"math"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// HedgeDelay is a hedge delay: a duration string ≥ 0, or the word
// "fallback", meaning the copy is sent only after a failure, never on a
// timer (it decodes to a negative delay, as sim.Policy writes fallback).
// A negative duration is an error, as everywhere in a scenario file.
type HedgeDelay time.Duration

// fallbackDelay is what "fallback" decodes to.
const fallbackDelay = HedgeDelay(-1)

// UnmarshalTOML implements toml.Unmarshaler: v must be a duration string
// or "fallback".
func (d *HedgeDelay) UnmarshalTOML(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("got %s; want a duration string with a unit, such as \"750ms\", or \"fallback\"", describe(v))
	}
	if s == "fallback" {
		*d = fallbackDelay
		return nil
	}
	x, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("invalid delay %q; want a number with a unit (ns, us, ms, s, m, h) such as \"750ms\", or \"fallback\" to send the copy only after a failure", s)
	}
	if x < 0 {
		return fmt.Errorf("negative delay %q; a delay is a duration ≥ 0 — write \"fallback\" to send the copy only after a failure", s)
	}
	*d = HedgeDelay(x)
	return nil
}

// adaptiveTable is [classes.hedge.adaptive].
type adaptiveTable struct {
	Percentile *float64  `toml:"percentile"`
	Window     *int64    `toml:"window"`
	WindowTime *Span     `toml:"window_time"`
	WarmUp     *int64    `toml:"warm_up"`
	Min        *Duration `toml:"min"`
	Max        *Duration `toml:"max"`
	Source     *string   `toml:"source"`
}

// budgetTable is [classes.hedge.budget].
type budgetTable struct {
	MaxHedgeShare    *float64       `toml:"max_hedge_share"`
	RetryThrottling  *throttleTable `toml:"retry_throttling"`
	MaxInFlightRatio *float64       `toml:"max_in_flight_ratio"`
	MinInFlight      *int64         `toml:"min_in_flight"`
	HedgesPerSecond  *float64       `toml:"hedges_per_second"`
	Burst            *float64       `toml:"burst"`
	MaxParallel      *int64         `toml:"max_parallel"`
}

// throttleTable is gRPC's retryThrottling.
type throttleTable struct {
	MaxTokens  *float64 `toml:"max_tokens"`
	TokenRatio *float64 `toml:"token_ratio"`
}

// Defaults of the adaptive delay.
const (
	defaultAdaptiveWindow = 1000
	defaultAdaptiveWarmUp = 100
)

// policyExtras builds the policy settings beyond delays and targets: the
// per-kind error rules, attempt timeout, stream cuts, target rule,
// adaptive delay and budgets, recording problems.
func (c *checker) policyExtras(key string, h *hedgeTable, p *sim.Policy) {
	var err error
	p.OnRateLimited, err = enum(c, key+".on_rate_limited", h.OnRateLimited, p.OnError, sim.Fatal, sim.NonFatal, sim.Ignore)
	c.keep(err)
	p.OnClientError, err = enum(c, key+".on_client_error", h.OnClientError, sim.Fatal, sim.Fatal, sim.NonFatal, sim.Ignore)
	c.keep(err)
	p.OnUpstreamTimeout, err = enum(c, key+".on_upstream_timeout", h.OnUpstreamTimeout, p.OnError, sim.Fatal, sim.NonFatal, sim.Ignore)
	c.keep(err)
	p.OnAttemptTimeout, err = enum(c, key+".on_attempt_timeout", h.OnAttemptTimeout, sim.NonFatal, sim.Fatal, sim.NonFatal, sim.Ignore)
	c.keep(err)
	if h.AttemptTimeout != nil {
		p.AttemptTimeout = time.Duration(*h.AttemptTimeout)
	}
	c.streamCuts(key, h, p)
	if h.NewProvider != nil {
		p.NewProvider = *h.NewProvider
		if p.NewProvider && len(p.Targets) == 0 && !c.hasErrorsWithin(key+".targets") {
			c.keep(c.errorf(key+".new_provider", "needs targets to choose from; list models on other providers in targets"))
		}
	}
	if h.Adaptive != nil {
		p.Adaptive, err = c.adaptive(key+".adaptive", h.Adaptive)
		c.keep(err)
		if err == nil && !hasTimedGap(p) && !c.hasErrorsWithin(key+".delay") && !c.hasErrorsWithin(key+".delays") && !c.hasErrorsWithin(key+".max_copies") {
			c.keep(c.errorf(key+".adaptive", "an adaptive delay replaces the timed gaps (delay > 0), and this policy has none; set delay (e.g. \"1s\", a starting value) and max_copies ≥ 1"))
		}
	}
	if h.Budget != nil {
		p.Budget, err = c.budget(key+".budget", h.Budget)
		c.keep(err)
	}
}

// adaptive builds the adaptive delay at key; every bad setting is
// reported (as Errors), each checked on its own.
func (c *checker) adaptive(key string, t *adaptiveTable) (*sim.Adaptive, error) {
	a := &sim.Adaptive{Window: defaultAdaptiveWindow, WarmUp: defaultAdaptiveWarmUp}
	var errs Errors
	if t.Percentile == nil {
		errs = append(errs, c.errorf(key, "missing percentile; give the latency percentile to hedge at as a fraction, such as percentile = 0.95"))
	} else if q := *t.Percentile; !(q > 0 && q < 1) {
		errs = append(errs, c.errorf(key+".percentile", "%g is not allowed; want a fraction in (0, 1), such as 0.95 for p95", q))
	} else {
		a.Percentile = q
	}
	if t.Window != nil {
		if w := *t.Window; w < 1 || w > 1<<24 {
			errs = append(errs, c.errorf(key+".window", "%d is not allowed; want a number of samples in [1, %d]", w, 1<<24))
		} else {
			a.Window = int(w)
		}
	}
	if t.WindowTime != nil {
		switch {
		case t.Window != nil:
			errs = append(errs, c.errorf(key+".window_time", "window and window_time are exclusive; give a number of samples or a span of time"))
		case *t.WindowTime <= 0:
			errs = append(errs, c.errorf(key+".window_time", "%v holds nothing; want a duration > 0", *t.WindowTime))
		default:
			a.WindowTime = time.Duration(*t.WindowTime)
		}
	}
	if t.WarmUp != nil {
		if r := callRanges["hedge.adaptive.warm_up"]; !r.contains(float64(*t.WarmUp)) {
			errs = append(errs, c.errorf(key+".warm_up", "%d is not allowed; want %s samples", *t.WarmUp, r.wantInt()))
		} else {
			a.WarmUp = int(*t.WarmUp)
		}
	}
	if t.Min != nil {
		a.Min = time.Duration(*t.Min)
	}
	if t.Max != nil {
		a.Max = time.Duration(*t.Max)
		if a.Max < a.Min {
			errs = append(errs, c.errorf(key+".max", "%v is below min %v", a.Max, a.Min))
		}
	}
	var err error
	if a.Source, err = enum(c, key+".source", t.Source, sim.FromPrimaries, sim.FromPrimaries, sim.FromAttempts, sim.FromRequests); err != nil {
		errs = append(errs, err.(*Error))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return a, nil
}

func (c *checker) budget(key string, t *budgetTable) (sim.Budget, error) {
	var b sim.Budget
	nonNeg := func(name string, v *float64, max float64) (float64, error) {
		if v == nil {
			return 0, nil
		}
		if !(*v >= 0 && *v <= max) {
			return 0, c.errorf(key+"."+name, "%g is not allowed; want a number in [0, %g] (0 = off)", *v, max)
		}
		return *v, nil
	}
	count := func(name string, v *int64) (int, error) {
		if v == nil {
			return 0, nil
		}
		if r := callRanges["hedge.budget."+name]; !r.contains(float64(*v)) {
			return 0, c.errorf(key+"."+name, "%d is not allowed; want %s (0 = off)", *v, r.wantInt())
		}
		return int(*v), nil
	}
	// Each limit is checked on its own: every bad one is reported.
	var err error
	b.MaxHedgeShare, err = nonNeg("max_hedge_share", t.MaxHedgeShare, 1)
	c.keep(err)
	b.MaxInFlightRatio, err = nonNeg("max_in_flight_ratio", t.MaxInFlightRatio, math.MaxFloat64)
	c.keep(err)
	b.HedgesPerSecond, err = nonNeg("hedges_per_second", t.HedgesPerSecond, math.MaxFloat64)
	c.keep(err)
	b.Burst, err = nonNeg("burst", t.Burst, math.MaxFloat64)
	c.keep(err)
	if t.Burst != nil && t.HedgesPerSecond == nil {
		c.keep(c.errorf(key+".burst", "burst needs hedges_per_second"))
	}
	b.MinInFlight, err = count("min_in_flight", t.MinInFlight)
	c.keep(err)
	b.MaxParallel, err = count("max_parallel", t.MaxParallel)
	c.keep(err)
	if r := t.RetryThrottling; r != nil {
		k := key + ".retry_throttling"
		if r.MaxTokens == nil || r.TokenRatio == nil {
			return b, c.errorf(k, "needs max_tokens and token_ratio (gRPC's retryThrottling, e.g. { max_tokens = 10, token_ratio = 0.1 })")
		}
		if !(*r.MaxTokens > 0) || math.IsInf(*r.MaxTokens, 1) {
			return b, c.errorf(k+".max_tokens", "%g is not allowed; want a number > 0", *r.MaxTokens)
		}
		if !(*r.TokenRatio > 0) || math.IsInf(*r.TokenRatio, 1) {
			return b, c.errorf(k+".token_ratio", "%g is not allowed; want a number > 0", *r.TokenRatio)
		}
		b.Throttle = &sim.Throttle{MaxTokens: *r.MaxTokens, TokenRatio: *r.TokenRatio}
	}
	return b, nil
}

// hasTimedGap reports whether one of p's copies is sent on a timer (a gap
// > 0), which is what an adaptive delay replaces.
func hasTimedGap(p *sim.Policy) bool {
	for j := 0; j < p.Copies && j < len(p.Delays); j++ {
		if p.Delays[j] > 0 {
			return true
		}
	}
	return p.Copies > len(p.Delays) && len(p.Delays) > 0 && p.Delays[len(p.Delays)-1] > 0
}

// checkGaps reports settings of a class's hedge policy h (built into cl's
// policy) that can never take effect: delays given with max_copies = 0
// (unless max_copies = 0 is an override, --set's way to turn the class's
// hedging off, and the delays are the file's), and a gap between sends at or past the class's deadline — no timer that
// long can fire before the request ends, whenever the previous copy went
// out. An adaptive delay replaces the timed gaps and is not checked.
func (c *checker) checkGaps(classKey string, h *hedgeTable, cl *sim.Class) error {
	if h == nil {
		return nil
	}
	key := classKey + ".hedge"
	p := &cl.Policy
	if p.Copies == 0 && (h.Delay != nil || h.Delays != nil) {
		what := "delay"
		if h.Delays != nil {
			what = "delays"
		}
		if _, set := c.overridden[key+".max_copies"]; set && c.overrideOf(key+"."+what) == "" {
			// --set …hedge.max_copies=0 on a file's hedged class: the
			// what-if of no hedging, which --set cannot write by removing
			// the file's delay. The delay is left unused, as in the
			// no-hedging baseline (sim.NoHedging).
			return nil
		}
		return c.errorf(key+".max_copies", "0 copies, so %s has no effect; remove %s (and max_copies) to turn hedging off, or set max_copies ≥ 1", what, what)
	}
	if cl.Deadline == 0 || p.Adaptive != nil {
		return nil
	}
	for j := 1; j <= p.Copies; j++ {
		g := p.Delays[min(j, len(p.Delays))-1]
		if g < cl.Deadline {
			continue
		}
		k := key + ".delay"
		if h.Delays != nil {
			k = indexKey(key+".delays", min(j, len(p.Delays))-1)
		}
		return c.errorf(k, "%v is at or past the class's deadline %v: a copy this long after the previous send can never go out before the request ends; use a shorter delay, or \"fallback\" to send the copy only after a failure", g, cl.Deadline)
	}
	return nil
}
