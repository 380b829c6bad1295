package scenario

import (
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// breakerTable is [models.NAME.breaker].
type breakerTable struct {
	Failures *int64    `toml:"failures"`
	Cooldown *Duration `toml:"cooldown"`
	Probes   *int64    `toml:"probes"`
}

// breaker reads the circuit breaker of the model at key into m, recording
// problems.
func (c *checker) breaker(key string, t *modelTable, m *sim.Model) {
	if t.Breaker == nil {
		return
	}
	key += ".breaker"
	b := &sim.Breaker{Probes: 1}
	ok := true
	switch f := t.Breaker.Failures; {
	case f == nil:
		c.keep(c.errorf(key+".failures", "missing; give the number of consecutive failed calls that opens the breaker (≥ 1)"))
		ok = false
	case *f < 1 || *f > 1<<20:
		c.keep(c.errorf(key+".failures", "%d is out of range; want 1 to %d consecutive failed calls", *f, 1<<20))
		ok = false
	default:
		b.Failures = int(*f)
	}
	switch d := t.Breaker.Cooldown; {
	case d == nil:
		c.keep(c.errorf(key+".cooldown", "missing; give how long the breaker stays open, such as \"30s\""))
		ok = false
	case *d <= 0:
		c.keep(c.errorf(key+".cooldown", "%v; want a duration > 0", time.Duration(*d)))
		ok = false
	default:
		b.Cooldown = time.Duration(*d)
	}
	if p := t.Breaker.Probes; p != nil {
		if *p < 1 || *p > 1<<20 {
			c.keep(c.errorf(key+".probes", "%d is out of range; want 1 to %d calls let through while half-open", *p, 1<<20))
			ok = false
		} else {
			b.Probes = int(*p)
		}
	}
	if ok {
		m.Breaker = b
	}
}
