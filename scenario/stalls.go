package scenario

import (
	"math"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// stallsTable is [models.NAME.stalls]: a streamed model's stalls.
type stallsTable struct {
	Rate     *float64   `toml:"rate"`
	Duration *dist.Spec `toml:"duration"`
	At       *string    `toml:"at"`
}

// defaultSpeedWindow is the measurement window of min_tokens_per_s.
const defaultSpeedWindow = 2 * time.Second

// stalls reads the stalls table of the model at key into m, recording
// problems.
func (c *checker) stalls(key string, t *modelTable, m *sim.Model) {
	if t.Stalls == nil {
		return
	}
	key += ".stalls"
	s := t.Stalls
	if t.Latency != nil {
		c.keep(c.errorf(key, "stalls pause a stream, and this model is in latency form (one whole-call latency); give it ttft and tokens_per_s, or model a slow call in its latency distribution"))
		return
	}
	var st sim.Stalls
	var err error
	if s.Rate == nil {
		c.keep(c.errorf(key+".rate", "missing; give the probability in [0, 1] that an attempt's stream stalls"))
	} else {
		st.Rate, err = c.probability(key+".rate", s.Rate)
		c.keep(err)
	}
	if s.Duration == nil {
		c.keep(c.errorf(key+".duration", "missing; give how long a stall lasts, a distribution in seconds, such as { kind = \"constant\", value = 60 }"))
	} else {
		st.Duration, err = c.dist(key+".duration", s.Duration, "s", false)
		c.keep(err)
	}
	st.At, err = enum(c, key+".at", s.At, sim.MidStream, sim.MidStream, sim.BeforeFirstToken)
	c.keep(err)
	m.Stalls = st
}

// streamCuts reads a hedge table's stream cuts into p, recording
// problems; on_attempt_timeout must have been read.
func (c *checker) streamCuts(key string, h *hedgeTable, p *sim.Policy) {
	var err error
	p.OnStall, err = enum(c, key+".on_stall", h.OnStall, p.OnAttemptTimeout, sim.Fatal, sim.NonFatal, sim.Ignore)
	c.keep(err)
	if h.InterTokenTimeout != nil {
		p.InterTokenTimeout = time.Duration(*h.InterTokenTimeout)
	}
	if f := h.MinTokensPerSecond; f != nil {
		if !(*f >= 0) || math.IsInf(*f, 1) {
			c.keep(c.errorf(key+".min_tokens_per_s", "%g is not allowed; want a decode speed ≥ 0 tokens/s (0 = off)", *f))
		} else {
			p.MinTokensPerSecond = *f
		}
	}
	switch w := h.SpeedWindow; {
	case w == nil:
		if p.MinTokensPerSecond > 0 {
			p.SpeedWindow = defaultSpeedWindow
		}
	case h.MinTokensPerSecond == nil:
		c.keep(c.errorf(key+".speed_window", "the window of the speed floor needs min_tokens_per_s (tokens/s)"))
	case *w == 0:
		c.keep(c.errorf(key+".speed_window", "0s measures nothing; want a duration > 0, such as \"2s\""))
	default:
		p.SpeedWindow = time.Duration(*w)
	}
}
