package scenario

import (
	"reflect"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// thinkTime is a closed-loop class's think_time as written: a duration
// string (a constant pause) or a distribution table in seconds. It keeps
// the raw value; closedLoop checks it with the key's line.
type thinkTime struct{ raw any }

// UnmarshalTOML implements toml.Unmarshaler; every check is closedLoop's.
func (t *thinkTime) UnmarshalTOML(v any) error {
	t.raw = v
	return nil
}

// closedClasses reports whether every class of the file is closed-loop
// (has clients), and whether any is.
func closedClasses(tables []classTable) (all, any bool) {
	all = len(tables) > 0
	for i := range tables {
		if tables[i].Clients != nil {
			any = true
		} else {
			all = false
		}
	}
	return all, any
}

// closedLoop reads the clients and think_time of the class at key into cl,
// recording problems. It reports whether the class is closed-loop.
func (c *checker) closedLoop(key string, t *classTable, cl *sim.Class) bool {
	if t.Clients == nil {
		if t.ThinkTime != nil {
			c.keep(c.errorf(key+".think_time", "applies only to a closed-loop class; set clients (the number of concurrent clients, ≥ 1) or remove think_time"))
		}
		return false
	}
	if n := *t.Clients; n < 1 || n > sim.MaxRequests {
		c.keep(c.errorf(key+".clients", "%d is out of range; want an integer in [1, %d] concurrent clients (omit clients for open arrivals)", n, sim.MaxRequests))
	} else {
		cl.Clients = int(n)
	}
	if c.replay != nil {
		c.keep(c.errorf(key+".clients", "closed-loop clients cannot be combined with replayed arrivals; drop clients or the replay"))
	}
	if t.Share != nil {
		c.keep(c.errorf(key+".share", "does not apply to a closed-loop class: its traffic is set by clients and think_time; remove share"))
	}
	if t.ThinkTime == nil {
		return true
	}
	k := key + ".think_time"
	switch v := t.ThinkTime.raw.(type) {
	case string:
		var d Duration
		if err := d.UnmarshalText([]byte(v)); err != nil {
			c.keep(c.errorf(k, "%v", err))
			return true
		}
		cl.ThinkTime = dist.Constant{Value: time.Duration(d).Seconds()}
	case map[string]any:
		var s dist.Spec
		if err := c.bind(v, reflect.ValueOf(&s).Elem(), k); err != nil {
			c.keep(err)
			return true
		}
		if c.hasErrorsWithin(k) {
			return true
		}
		d, err := c.dist(k, &s, "s", false)
		c.keep(err)
		cl.ThinkTime = d
	default:
		c.keep(c.errorf(k, "got %s; want a duration string with a unit, such as \"500ms\" or \"2s\", or a distribution table in seconds, such as { kind = \"exponential\", rate = 0.5 }", describe(v)))
	}
	return true
}

// zero reports whether d always draws 0 (nil counts as 0).
func zero(d any) bool {
	if d == nil {
		return true
	}
	c, ok := d.(dist.Constant)
	return ok && c.Value == 0
}

// checkCycle reports a closed-loop class at key whose every cycle takes no
// time: no think time and a primary that always answers at once (a
// constant 0 s latency, or a constant 0 s TTFT with no output tokens). Its
// clients would send without bound in no simulated time, so it has no
// finite throughput.
func (c *checker) checkCycle(key string, t *classTable, cl *sim.Class, models []sim.Model) {
	if cl.Clients == 0 || !zero(cl.ThinkTime) || c.hasErrorsWithin(key) {
		return
	}
	p := cl.Policy.Primary
	if p < 0 || p >= len(models) {
		return
	}
	m := &models[p]
	instant := m.Latency != nil && zero(m.Latency) ||
		m.Latency == nil && m.TTFT != nil && zero(m.TTFT) && cl.OutputTokens != nil && zero(cl.OutputTokens)
	if !instant {
		return
	}
	k := key + ".clients"
	if t.ThinkTime != nil {
		k = key + ".think_time"
	}
	c.keep(c.errorf(k, "a closed loop whose cycle (response time + think time) is always 0 s sends without bound in no time and has no finite throughput: model %q answers in 0 s and there is no think time; give a think_time > 0 or a model latency > 0", m.Name))
}
