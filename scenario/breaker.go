package scenario

import (
	"math"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// breakerTable is [models.NAME.breaker] or [providers.NAME.breaker].
type breakerTable struct {
	Failures     *int64    `toml:"failures"`
	Cooldown     *Duration `toml:"cooldown"`
	Probes       *int64    `toml:"probes"`
	FailureRatio *float64  `toml:"failure_ratio"`
	Window       *int64    `toml:"window"`
	WindowTime   *Duration `toml:"window_time"`
	MinCalls     *int64    `toml:"min_calls"`
}

// maxBreakerCount bounds the breaker's counts (failures, probes, window,
// min_calls).
const maxBreakerCount = 1 << 20

// defaultMinCalls is min_calls with a time window: Polly's
// MinimumThroughput and resilience4j's minimumNumberOfCalls default.
const defaultMinCalls = 100

// breaker reads the circuit breaker of the model at key into m, recording
// problems.
func (c *checker) breaker(key string, t *modelTable, m *sim.Model) {
	if t.Breaker != nil {
		m.Breaker = c.breakerOf(key+".breaker", t.Breaker)
	}
}

// breakerOf builds the breaker table t at key, recording every problem;
// nil when it has one.
func (c *checker) breakerOf(key string, t *breakerTable) *sim.Breaker {
	b := &sim.Breaker{Probes: 1}
	ok := true
	bad := func(k, format string, args ...any) {
		c.keep(c.errorf(key+"."+k, format, args...))
		ok = false
	}
	count := func(k string, v *int64, what string) int {
		if *v < 1 || *v > maxBreakerCount {
			bad(k, "%d is out of range; want 1 to %d %s", *v, maxBreakerCount, what)
			return 0
		}
		return int(*v)
	}
	switch {
	case t.Failures != nil:
		b.Failures = count("failures", t.Failures, "consecutive failed calls")
	case t.FailureRatio == nil && !c.hasErrorsWithin(key+".failure_ratio"):
		bad("failures", "missing; give the number of consecutive failed calls that opens the breaker (≥ 1), or a failure_ratio with its window")
	}
	switch d := t.Cooldown; {
	case d == nil:
		bad("cooldown", "missing; give how long the breaker stays open, such as \"30s\"")
	case *d <= 0:
		bad("cooldown", "%v; want a duration > 0", time.Duration(*d))
	default:
		b.Cooldown = time.Duration(*d)
	}
	if t.Probes != nil {
		b.Probes = count("probes", t.Probes, "calls let through while half-open")
	}
	switch {
	case t.FailureRatio == nil && c.hasErrorsWithin(key+".failure_ratio"):
		// Unreadable: reported already; its window is not checked alone.
	case t.FailureRatio == nil:
		for _, f := range []struct {
			k   string
			set bool
		}{{"window", t.Window != nil}, {"window_time", t.WindowTime != nil}, {"min_calls", t.MinCalls != nil}} {
			if f.set {
				bad(f.k, "needs failure_ratio: the window and min_calls say over which calls the failure ratio is taken")
			}
		}
	default:
		c.failureRatio(key, t, b, bad, count)
	}
	if !ok {
		return nil
	}
	return b
}

// failureRatio reads the failure-ratio trip of breaker table t into b.
func (c *checker) failureRatio(key string, t *breakerTable, b *sim.Breaker, bad func(k, format string, args ...any), count func(k string, v *int64, what string) int) {
	if r := *t.FailureRatio; !(r > 0 && r <= 1) || math.IsNaN(r) {
		bad("failure_ratio", "%g is out of range; want a share of failed calls in (0, 1], such as 0.5", r)
	} else {
		b.FailureRatio = r
	}
	switch {
	case t.Window != nil && t.WindowTime != nil:
		bad("window_time", "window and window_time are exclusive; give a count of recent calls (window) or a span of recent time (window_time)")
	case t.Window != nil:
		b.Window = count("window", t.Window, "recent calls")
	case t.WindowTime != nil:
		if d := time.Duration(*t.WindowTime); d <= 0 {
			bad("window_time", "%v; want a duration > 0, such as \"30s\"", d)
		} else {
			b.WindowTime = d
		}
	case c.hasErrorsWithin(key+".window") || c.hasErrorsWithin(key+".window_time"):
		// Unreadable: reported already, and the file is rejected.
	default:
		bad("failure_ratio", "needs a window: window (the last N calls) or window_time (the calls of the last span, such as \"30s\")")
	}
	switch {
	case t.MinCalls != nil:
		b.MinCalls = count("min_calls", t.MinCalls, "calls in the window")
		if b.Window > 0 && b.MinCalls > b.Window {
			bad("min_calls", "%d exceeds the window of %d calls: the breaker could never open on the ratio; want at most %d", b.MinCalls, b.Window, b.Window)
		}
	case b.Window > 0:
		b.MinCalls = b.Window
	default:
		b.MinCalls = defaultMinCalls
	}
}
