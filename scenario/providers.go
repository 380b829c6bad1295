package scenario

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// providerTable is one [providers.NAME] table: a failure domain.
type providerTable struct {
	Concurrency *int64          `toml:"concurrency"`
	QueueLimit  *int64          `toml:"queue_limit"`
	Cancel      *string         `toml:"cancel"`
	RateLimit   *rateLimitTable `toml:"rate_limit"`
	Degraded    *degradedTable  `toml:"degraded"`
	// Breaker is a circuit breaker shared by the provider's models; see
	// breaker.go.
	Breaker *breakerTable `toml:"breaker"`
	// Pool serves the provider's models from replicas; see pool.go.
	Pool *poolTable `toml:"pool"`
}

// cancelMode is what a cancel does at a provider: the value of cancel.
type cancelMode bool

const (
	cancelStopsWork cancelMode = false // the default
	cancelNone      cancelMode = true  // the provider ignores cancels
)

// String returns the scenario-file name of the mode.
func (m cancelMode) String() string {
	if m == cancelNone {
		return "none"
	}
	return "stops_work"
}

// rateLimitTable is a [providers.NAME.rate_limit] or [models.NAME.rate_limit] table.
type rateLimitTable struct {
	RequestsPerMinute *float64  `toml:"requests_per_minute"`
	TokensPerMinute   *float64  `toml:"tokens_per_minute"`
	Burst             *Span     `toml:"burst"`
	RejectLatency     *Duration `toml:"reject_latency"`
	RetryAfter        *Duration `toml:"retry_after"`
	CountRejected     *bool     `toml:"count_rejected"`
}

// degradedTable is a [providers.NAME.degraded] table.
type degradedTable struct {
	MeanNormal   *Duration `toml:"mean_normal"`
	MeanDegraded *Duration `toml:"mean_degraded"`
	Slowdown     *float64  `toml:"slowdown"`
	ErrorRate    *float64  `toml:"error_rate"`
}

// correlationTable is [correlation].
type correlationTable struct {
	SameModel     *float64 `toml:"same_model"`
	SameProvider  *float64 `toml:"same_provider"`
	CrossProvider *float64 `toml:"cross_provider"`
}

// Defaults and bounds of the provider tables.
const (
	maxSlowdown          = 1e6
	defaultBurst         = time.Minute
	defaultRejectLatency = 20 * time.Millisecond
)

// providers builds the [providers.NAME] tables in name order and checks
// that, when any provider is listed, every model names a listed one.
func (c *checker) providers(tables map[string]providerTable, models []sim.Model) ([]sim.Provider, error) {
	names := make([]string, 0, len(tables))
	for n := range tables {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []sim.Provider
	for _, name := range names {
		key := joinKey("providers", name)
		if err := c.checkName(key, "provider name", name); err != nil {
			c.keep(err)
			continue
		}
		t := tables[name]
		p := sim.Provider{Name: name}
		if t.Concurrency != nil {
			if r := ranges["providers.*.concurrency"]; !r.contains(float64(*t.Concurrency)) {
				c.keep(c.errorf(key+".concurrency", "%d is not allowed; want %s (0 = unlimited)", *t.Concurrency, r.wantInt()))
			} else {
				p.Concurrency = int(*t.Concurrency)
			}
		}
		if t.QueueLimit != nil {
			switch {
			case !ranges["providers.*.queue_limit"].contains(float64(*t.QueueLimit)):
				c.keep(c.errorf(key+".queue_limit", "%d is not allowed; want %s (0 = no queue: reject when every slot is busy)", *t.QueueLimit, ranges["providers.*.queue_limit"].wantInt()))
			case p.Concurrency == 0 && !c.hasErrorsWithin(key+".concurrency"):
				c.keep(c.errorf(key+".queue_limit", "needs concurrency ≥ 1: queue_limit bounds the queue of a concurrency limit"))
			default:
				p.RejectWhenFull = true
				p.QueueLimit = int(*t.QueueLimit)
			}
		}
		mode, err := enum(c, key+".cancel", t.Cancel, cancelStopsWork, cancelStopsWork, cancelNone)
		c.keep(err)
		p.IgnoresCancel = bool(mode)
		p.RateLimit, err = c.rateLimit(key+".rate_limit", t.RateLimit)
		c.keep(err)
		if t.Degraded != nil {
			p.Degraded, err = c.degraded(key+".degraded", t.Degraded)
			c.keep(err)
		}
		if t.Breaker != nil {
			p.Breaker = c.breakerOf(key+".breaker", t.Breaker)
		}
		if t.Pool != nil {
			c.pool(key+".pool", t.Pool, &t, &p)
		}
		out = append(out, p)
	}
	if len(names) > 0 {
		for i, m := range models {
			if _, ok := tables[m.Provider]; !ok && i < len(c.modelNames) {
				c.keep(c.errorf(joinKey("models", c.modelNames[i])+".provider",
					"provider %q is not defined; defined providers: %s (when any [providers.NAME] table is given, every model's provider must be one)",
					m.Provider, strings.Join(names, ", ")))
			}
		}
	}
	return out, nil
}

func (c *checker) rateLimit(key string, t *rateLimitTable) (sim.RateLimit, error) {
	r := sim.RateLimit{Burst: defaultBurst, RejectLatency: defaultRejectLatency}
	if t == nil {
		return r, nil
	}
	for _, f := range []struct {
		name string
		v    *float64
		dst  *float64
	}{{"requests_per_minute", t.RequestsPerMinute, &r.RequestsPerMinute}, {"tokens_per_minute", t.TokensPerMinute, &r.TokensPerMinute}} {
		if f.v == nil {
			continue
		}
		if !(*f.v >= 0) || math.IsInf(*f.v, 1) {
			return r, c.errorf(key+"."+f.name, "%g is not allowed; want a finite number ≥ 0 (0 = no limit)", *f.v)
		}
		*f.dst = *f.v
	}
	if !(r.RequestsPerMinute > 0 || r.TokensPerMinute > 0) {
		return r, c.errorf(key, "no limit set: requests_per_minute and tokens_per_minute are both absent or 0; set at least one > 0, or remove the rate_limit table")
	}
	if t.Burst != nil {
		if r.Burst = time.Duration(*t.Burst); r.Burst <= 0 {
			return r, c.errorf(key+".burst", "%v holds nothing; want a duration > 0 (the bucket holds this many seconds of refill)", r.Burst)
		}
	}
	if t.RejectLatency != nil {
		r.RejectLatency = time.Duration(*t.RejectLatency)
	}
	if t.RetryAfter != nil {
		r.RetryAfter = time.Duration(*t.RetryAfter)
	}
	if t.CountRejected != nil {
		r.CountRejected = *t.CountRejected
	}
	return r, nil
}

func (c *checker) degraded(key string, t *degradedTable) (*sim.Degraded, error) {
	d := &sim.Degraded{Slowdown: 1}
	for _, f := range []struct {
		name string
		v    *Duration
		dst  *time.Duration
	}{{"mean_normal", t.MeanNormal, &d.MeanNormal}, {"mean_degraded", t.MeanDegraded, &d.MeanDegraded}} {
		if f.v == nil {
			return nil, c.errorf(key, "missing %s; give the mean length of %s periods as a duration such as \"10m\"", f.name, strings.TrimPrefix(f.name, "mean_"))
		}
		if time.Duration(*f.v) < sim.MinDegradedPeriod {
			return nil, c.errorf(key+"."+f.name, "%v is too short; want a mean period ≥ %v", time.Duration(*f.v), sim.MinDegradedPeriod)
		}
		*f.dst = time.Duration(*f.v)
	}
	if t.Slowdown != nil {
		if s := *t.Slowdown; !(s >= 1 && s <= maxSlowdown) {
			return nil, c.errorf(key+".slowdown", "%g is not allowed; want a factor in [1, %g] (service takes this many times longer while degraded)", s, float64(maxSlowdown))
		}
		d.Slowdown = *t.Slowdown
	}
	var err error
	if d.ErrorRate, err = c.probability(key+".error_rate", t.ErrorRate); err != nil {
		return nil, err
	}
	if t.Slowdown == nil && t.ErrorRate == nil {
		return nil, c.errorf(key, "degraded periods without an effect; set slowdown (≥ 1) and/or error_rate (in [0, 1])")
	}
	return d, nil
}

func (c *checker) correlation(t *correlationTable) (sim.Correlation, error) {
	var out sim.Correlation
	if t == nil {
		return out, nil
	}
	for _, f := range []struct {
		name string
		v    *float64
		dst  *float64
	}{{"same_model", t.SameModel, &out.SameModel}, {"same_provider", t.SameProvider, &out.SameProvider}, {"cross_provider", t.CrossProvider, &out.CrossProvider}} {
		if f.v == nil {
			continue
		}
		if !(*f.v >= 0 && *f.v <= 1) {
			c.keep(c.errorf("correlation."+f.name, "%g is not allowed; want a correlation in [0, 1] (1 = a copy is exactly as slow as the original)", *f.v))
			continue
		}
		*f.dst = *f.v
	}
	return out, nil
}
