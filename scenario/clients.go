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
