package sim

import (
	"errors"
	"fmt"
	"math"
)

// ErrInvalidConfig is wrapped by every error Validate returns.
var ErrInvalidConfig = errors.New("invalid simulation config")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...)
}

// Validate checks that cfg can be simulated. Scenario files are checked
// with line numbers by the scenario package first; this is the last line of
// defence for configurations built in code. Errors wrap ErrInvalidConfig.
func (cfg *Config) Validate() error {
	if cfg.Requests < 1 || cfg.Requests > MaxRequests {
		return invalid("requests %d: must be in [1, %d]", cfg.Requests, MaxRequests)
	}
	if err := cfg.validateClients(); err != nil {
		return err
	}
	if p := cfg.Pair; p != nil && p.Base != nil && p.Base.Len() != int64(cfg.Requests) {
		return invalid("pair: the baseline's bits are of %d requests; the run has %d", p.Base.Len(), cfg.Requests)
	}
	switch {
	case !cfg.hasOpen():
		// Closed-loop classes only: the arrivals are not used.
	case cfg.Arrivals.Process == Replay:
		if err := cfg.Arrivals.Trace.validate(cfg.Requests, len(cfg.Classes)); err != nil {
			return err
		}
	default:
		if !(cfg.Arrivals.Rate > 0) || math.IsInf(cfg.Arrivals.Rate, 0) {
			return invalid("arrival rate %v: must be finite and > 0", cfg.Arrivals.Rate)
		}
		if span := float64(cfg.Requests) / cfg.Arrivals.Rate; span > MaxSpan.Seconds() {
			return invalid("%d requests at %v per second span %.3g s of simulated time; at most %.3g s (100 years): raise the rate or simulate fewer requests",
				cfg.Requests, cfg.Arrivals.Rate, span, MaxSpan.Seconds())
		}
	}
	if len(cfg.Models) == 0 {
		return invalid("no models")
	}
	for i := range cfg.Models {
		if err := cfg.Models[i].validate(); err != nil {
			return err
		}
	}
	if len(cfg.Classes) == 0 {
		return invalid("no classes")
	}
	var sum float64
	for i := range cfg.Classes {
		c := &cfg.Classes[i]
		if c.Clients > 0 {
			if c.Share != 0 {
				return invalid("class %q: share %v: a closed-loop class (clients) takes no share of the open arrivals: must be 0", c.Name, c.Share)
			}
		} else if !(c.Share > 0 && c.Share <= 1) {
			return invalid("class %q: share %v: must be in (0, 1]", c.Name, c.Share)
		}
		sum += c.Share
		if err := c.validateSLO(); err != nil {
			return err
		}
		if c.Pipeline == nil {
			if err := c.validateCall(len(cfg.Models)); err != nil {
				return invalid("class %q: %v", c.Name, err)
			}
			continue
		}
		if c.Clients > 0 || c.Retry != nil || c.AttemptRetry != nil {
			return invalid("class %q: a pipeline class is open-loop and retries in its steps, not as a whole", c.Name)
		}
		if c.Deadline < 0 {
			return invalid("class %q: deadline %v: must be ≥ 0", c.Name, c.Deadline)
		}
		if err := c.Pipeline.validate(len(cfg.Models)); err != nil {
			return invalid("class %q: %v", c.Name, err)
		}
		for j := range c.Pipeline.Steps {
			if err := c.Pipeline.Steps[j].Call.validateCall(len(cfg.Models)); err != nil {
				return invalid("class %q: step %s: %v", c.Name, c.Pipeline.Steps[j].Name, err)
			}
		}
	}
	if cfg.hasOpen() && math.Abs(sum-1) > 1e-3+1e-12 { // 10⁻¹² for the sum's rounding: 0.4995 + 0.4995 passes
		return invalid("class shares sum to %v: must sum to 1", sum)
	}
	if err := cfg.validateBatching(); err != nil {
		return err
	}
	names := map[string]bool{}
	for i := range cfg.Providers {
		p := &cfg.Providers[i]
		if names[p.Name] {
			return invalid("provider %q is listed twice", p.Name)
		}
		names[p.Name] = true
		if err := p.validate(); err != nil {
			return invalid("provider %q: %v", p.Name, err)
		}
	}
	c := cfg.Correlation
	for _, r := range []float64{c.SameModel, c.SameProvider, c.CrossProvider} {
		if !(r >= 0 && r <= 1) {
			return invalid("correlation %v: must be in [0, 1]", r)
		}
	}
	if cfg.correlated() {
		run, _ := cfg.withSteps()
		for i := range run.Classes {
			if _, err := copulaFactor(c, &run.Classes[i].Policy, cfg.Models); err != nil {
				return invalid("class %q: %v", run.Classes[i].Name, err)
			}
		}
	}
	return nil
}

// validateCall checks what a one-call class and a pipeline step's call
// have: token distributions, deadline, policy and retries.
func (c *Class) validateCall(models int) error {
	if c.InputTokens == nil || c.OutputTokens == nil {
		return invalid("token distributions must be set")
	}
	if c.Deadline < 0 {
		return invalid("deadline %v: must be ≥ 0", c.Deadline)
	}
	if err := c.Policy.validate(models); err != nil {
		return err
	}
	if c.Retry != nil {
		if err := c.Retry.validate(false); err != nil {
			return fmt.Errorf("retry: %w", err)
		}
	}
	if c.AttemptRetry != nil {
		if err := c.AttemptRetry.validate(true); err != nil {
			return fmt.Errorf("attempt retry: %w", err)
		}
	}
	return nil
}

func (p *Provider) validate() error {
	if p.Concurrency < 0 {
		return fmt.Errorf("concurrency %d: must be ≥ 0 (0 = unlimited)", p.Concurrency)
	}
	if p.QueueLimit < 0 {
		return fmt.Errorf("queue limit %d: must be ≥ 0 (0 = no queue)", p.QueueLimit)
	}
	if p.RejectWhenFull && p.Concurrency == 0 {
		return fmt.Errorf("rejecting when full needs a concurrency limit > 0")
	}
	if p.QueueLimit > 0 && !p.RejectWhenFull {
		return fmt.Errorf("queue limit %d has no effect unless the provider rejects when full", p.QueueLimit)
	}
	if err := p.RateLimit.validate(); err != nil {
		return err
	}
	if d := p.Degraded; d != nil {
		if err := d.validate(); err != nil {
			return err
		}
	}
	if pl := p.Pool; pl != nil {
		if p.Concurrency != 0 || p.RejectWhenFull {
			return fmt.Errorf("a provider with a pool has its concurrency and queue per replica: set them in its Pool, not on the provider")
		}
		if err := pl.validate(); err != nil {
			return err
		}
	}
	if p.Breaker != nil {
		return p.Breaker.validate()
	}
	return nil
}

func (d *Degraded) validate() error {
	if d.MeanNormal < MinDegradedPeriod || d.MeanDegraded < MinDegradedPeriod {
		return fmt.Errorf("degraded periods: mean durations %v and %v must be ≥ %v", d.MeanNormal, d.MeanDegraded, MinDegradedPeriod)
	}
	if !(d.Slowdown >= 1) || math.IsInf(d.Slowdown, 0) {
		return fmt.Errorf("degraded periods: slowdown %v must be finite and ≥ 1", d.Slowdown)
	}
	if !(d.ErrorRate >= 0 && d.ErrorRate <= 1) {
		return fmt.Errorf("degraded periods: error rate %v must be in [0, 1]", d.ErrorRate)
	}
	return nil
}

func (r *RateLimit) validate() error {
	for _, x := range []float64{r.RequestsPerMinute, r.TokensPerMinute} {
		if !(x >= 0) || math.IsInf(x, 0) {
			return fmt.Errorf("rate limit %v: must be finite and ≥ 0", x)
		}
	}
	if r.Burst < 0 || r.RejectLatency < 0 || r.RetryAfter < 0 {
		return fmt.Errorf("rate limit durations must be ≥ 0")
	}
	return nil
}

func (m *Model) validate() error {
	streamed := m.TTFT != nil || m.TokensPerSecond != nil
	switch {
	case m.Latency != nil && streamed:
		return invalid("model %q: set either Latency or TTFT+TokensPerSecond, not both", m.Name)
	case m.Latency == nil && (m.TTFT == nil || m.TokensPerSecond == nil):
		return invalid("model %q: needs Latency, or both TTFT and TokensPerSecond", m.Name)
	}
	if m.TokensPerSecond != nil {
		if lo, _ := m.TokensPerSecond.Support(); !(lo >= 0) || m.TokensPerSecond.CDF(0) > 0 {
			return invalid("model %q: tokens per second must be > 0 with probability 1 (P(≤ 0) = %v)", m.Name, m.TokensPerSecond.CDF(0))
		}
	}
	if p := m.PrefillTokensPerSecond; p != nil {
		if m.TTFT == nil {
			return invalid("model %q: PrefillTokensPerSecond needs the TTFT form", m.Name)
		}
		if lo, _ := p.Support(); !(lo >= 0) || p.CDF(0) > 0 {
			return invalid("model %q: prefill tokens per second must be > 0 with probability 1 (P(≤ 0) = %v)", m.Name, p.CDF(0))
		}
	}
	for _, p := range []float64{m.ErrorRate, m.InvalidRate} {
		if !(p >= 0 && p <= 1) {
			return invalid("model %q: probability %v: must be in [0, 1]", m.Name, p)
		}
	}
	for _, p := range []float64{m.PriceInputPerMTok, m.PriceOutputPerMTok, m.PricePerRequest} {
		if !(p >= 0) || math.IsInf(p, 0) {
			return invalid("model %q: price %v: must be finite and ≥ 0", m.Name, p)
		}
	}
	if err := m.RateLimit.validate(); err != nil {
		return invalid("model %q: %v", m.Name, err)
	}
	if err := m.Failures.validate(m.ErrorRate); err != nil {
		return fmt.Errorf("model %q: %w", m.Name, err)
	}
	if err := m.Stalls.validate(m.TTFT != nil); err != nil {
		return fmt.Errorf("model %q: %w", m.Name, err)
	}
	if m.Breaker != nil {
		if err := m.Breaker.validate(); err != nil {
			return fmt.Errorf("model %q: %w", m.Name, err)
		}
	}
	return nil
}

func (p *Policy) validate(models int) error {
	if p.Primary < 0 || p.Primary >= models {
		return fmt.Errorf("primary model index %d out of range [0, %d)", p.Primary, models)
	}
	for _, t := range p.Targets {
		if t < 0 || t >= models {
			return fmt.Errorf("target model index %d out of range [0, %d)", t, models)
		}
	}
	if p.Copies < 0 || p.Copies > MaxCopies {
		return fmt.Errorf("copies %d: must be in [0, %d]", p.Copies, MaxCopies)
	}
	if p.Copies > 0 && len(p.Delays) == 0 {
		return fmt.Errorf("copies %d need at least one delay", p.Copies)
	}
	if p.CancelLatency < 0 {
		return fmt.Errorf("cancel latency %v: must be ≥ 0", p.CancelLatency)
	}
	if p.AttemptTimeout < 0 {
		return fmt.Errorf("attempt timeout %v: must be ≥ 0 (0 = none)", p.AttemptTimeout)
	}
	if err := p.StreamCuts.validate(); err != nil {
		return err
	}
	if a := p.Adaptive; a != nil {
		switch {
		case !(a.Percentile > 0 && a.Percentile < 1):
			return fmt.Errorf("adaptive percentile %v: must be in (0, 1)", a.Percentile)
		case a.Window < 1 && a.WindowTime <= 0:
			return fmt.Errorf("adaptive delay needs a window of ≥ 1 samples or a window time > 0")
		case a.Window > 1<<24:
			return fmt.Errorf("adaptive window %d: at most %d samples", a.Window, 1<<24)
		case a.WarmUp < 0 || a.Min < 0 || a.Max < 0:
			return fmt.Errorf("adaptive warm-up, min and max must be ≥ 0")
		case a.Max > 0 && a.Max < a.Min:
			return fmt.Errorf("adaptive max %v is below min %v", a.Max, a.Min)
		}
	}
	b := &p.Budget
	switch {
	case !(b.MaxHedgeShare >= 0 && b.MaxHedgeShare <= 1):
		return fmt.Errorf("max hedge share %v: must be in [0, 1]", b.MaxHedgeShare)
	case b.Throttle != nil && !(b.Throttle.MaxTokens > 0 && b.Throttle.TokenRatio > 0):
		return fmt.Errorf("retry throttling needs max tokens > 0 and token ratio > 0")
	case !(b.MaxInFlightRatio >= 0) || b.MinInFlight < 0 || b.MaxParallel < 0:
		return fmt.Errorf("in-flight budgets must be ≥ 0")
	case !(b.HedgesPerSecond >= 0) || !(b.Burst >= 0) || math.IsInf(b.HedgesPerSecond, 0) || math.IsInf(b.Burst, 0):
		return fmt.Errorf("hedges per second and burst must be finite and ≥ 0")
	}
	return nil
}

func (t *Trace) validate(requests, classes int) error {
	if t == nil {
		return invalid("replay arrivals need a trace")
	}
	n := len(t.Arrivals)
	if requests > n {
		return invalid("requests %d: the trace has only %d arrivals", requests, n)
	}
	for i, a := range t.Arrivals {
		if a < 0 || (i > 0 && a < t.Arrivals[i-1]) {
			return invalid("trace arrival %d at %v: arrivals must be ≥ 0 and non-decreasing", i, a)
		}
		if a > MaxSpan {
			return invalid("trace arrival %d at %v: a trace may span at most 100 years", i, a)
		}
	}
	for _, col := range []struct {
		name string
		v    []float64
	}{{"input", t.Input}, {"output", t.Output}} {
		if col.v == nil {
			continue
		}
		if len(col.v) != n {
			return invalid("trace has %d %s token counts for %d arrivals", len(col.v), col.name, n)
		}
		for i, x := range col.v {
			if !(x >= 0) || math.IsInf(x, 0) {
				return invalid("trace request %d: %s tokens %v: must be finite and ≥ 0", i, col.name, x)
			}
		}
	}
	if t.Class != nil {
		if len(t.Class) != n {
			return invalid("trace has %d classes for %d arrivals", len(t.Class), n)
		}
		for i, c := range t.Class {
			if c < 0 || c >= classes {
				return invalid("trace request %d: class index %d out of range [0, %d)", i, c, classes)
			}
		}
	}
	return nil
}
