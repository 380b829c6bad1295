package scenario

import (
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// failuresTable is [models.NAME.failures]: a model's failures by kind.
type failuresTable struct {
	ServerError *failureTable `toml:"server_error"`
	ClientError *failureTable `toml:"client_error"`
	Timeout     *failureTable `toml:"timeout"`
	RateLimited *failureTable `toml:"rate_limited"`
}

// failureTable is one kind of failure.
type failureTable struct {
	Rate       *float64   `toml:"rate"`
	Latency    *dist.Spec `toml:"latency"`
	RetryAfter *Duration  `toml:"retry_after"`
}

// failures reads the failures table of the model at key into m,
// recording problems.
func (c *checker) failures(key string, t *modelTable, m *sim.Model) {
	if t.Failures == nil {
		return
	}
	key += ".failures"
	f := t.Failures
	if f.ServerError != nil && (t.ErrorRate != nil || t.ErrorLatency != nil) {
		k := "error_rate"
		if t.ErrorRate == nil {
			k = "error_latency"
		}
		c.keep(c.errorf(key+".server_error", "error_rate and error_latency are the shorthand for failures.server_error; give one or the other, not both (%s is set)", k))
	}
	sum := m.ErrorRate
	for _, k := range []struct {
		name string
		t    *failureTable
		dst  *sim.Failure
	}{
		{"server_error", f.ServerError, &m.Failures.ServerError},
		{"client_error", f.ClientError, &m.Failures.ClientError},
		{"timeout", f.Timeout, &m.Failures.Timeout},
		{"rate_limited", f.RateLimited, &m.Failures.RateLimited},
	} {
		if k.t == nil {
			continue
		}
		kk := key + "." + k.name
		if k.t.Rate == nil {
			c.keep(c.errorf(kk+".rate", "missing; give the probability in [0, 1] that an attempt fails this way"))
		} else {
			var err error
			k.dst.Rate, err = c.probability(kk+".rate", k.t.Rate)
			c.keep(err)
		}
		if k.name != "client_error" {
			sum += k.dst.Rate // a client error is drawn per request, apart
		}
		if k.t.Latency != nil {
			d, err := c.dist(kk+".latency", k.t.Latency, "s", false)
			c.keep(err)
			k.dst.Latency = d
		}
		if k.t.RetryAfter != nil {
			if k.name != "rate_limited" {
				c.keep(c.errorf(kk+".retry_after", "applies only to rate_limited (a 429's Retry-After hint)"))
			} else {
				k.dst.RetryAfter = time.Duration(*k.t.RetryAfter)
			}
		}
	}
	if sum > 1+1e-9 {
		c.keep(c.errorf(key, "failure rates per attempt sum to %g (error_rate included, client_error apart); server_error, timeout and rate_limited are disjoint shares of the attempts: at most 1", sum))
	}
}
