package sim

import "time"

// The pieces that shape an attempt after it is drawn are composed from two
// small interfaces. dispatch asks every gate of the attempt's model and
// then of its provider; serve asks every stage of its provider. A new kind
// of behaviour — a cold start, a priority queue's admission rule, a second
// slowdown process — implements one of them and is added where the engine
// builds the lists (newGates, newStages), not in the event loop.

// gate admits or rejects an attempt when it is sent.
type gate interface {
	// can reports whether an attempt needing n tokens may pass at now,
	// without taking anything.
	can(now time.Duration, n float64) bool
	// take books an admitted attempt of n tokens.
	take(n float64)
	// reject books an attempt of n tokens this gate rejected (a limit
	// that counts rejected requests takes them too).
	reject(now time.Duration, n float64)
	// rejection is what a rejected attempt gets: a 429 after a latency,
	// with an optional retry-after hint (pointed to: read, not copied).
	rejection() *RateLimit
}

// stage shapes an attempt's service at its provider.
type stage interface {
	// fails reports whether an attempt starting service at now fails; u is
	// the attempt's own uniform draw for this decision.
	fails(now time.Duration, u float64) bool
	// finish returns when w of work, started at t0, is done.
	finish(t0, w time.Duration) time.Duration
	// finishPair returns finish(t0, w1) and finish(t0, w2) from one call,
	// finding the period t0 lies in once.
	finishPair(t0, w1, w2 time.Duration) (time.Duration, time.Duration)
	// forget drops what only times before t need; nothing later asks
	// about them.
	forget(t time.Duration)
}

// admitAll passes an attempt of n tokens through gates, all or nothing: it
// returns 0 and books it on every gate, or returns 1 + the index of the
// first gate that rejects it, having booked it on none but that one's
// reject.
func admitAll(now time.Duration, n float64, gates []gate) int {
	for i, g := range gates {
		if !g.can(now, n) {
			g.reject(now, n)
			return i + 1
		}
	}
	for _, g := range gates {
		g.take(n)
	}
	return 0
}

// finishAll returns when w of work started at t0 is done after every
// stage: each stretches the time the previous one leaves.
func finishAll(stages []stage, t0, w time.Duration) time.Duration {
	switch len(stages) {
	case 0:
		return t0 + w
	case 1: // one stage (degraded periods): no loop to keep
		return stages[0].finish(t0, w)
	}
	t := t0 + w
	for _, s := range stages {
		t = s.finish(t0, t-t0)
	}
	return t
}

// finishPair returns finishAll(stages, t0, w1) and finishAll(stages, t0,
// w2) with one call a stage.
func finishPair(stages []stage, t0, w1, w2 time.Duration) (time.Duration, time.Duration) {
	switch len(stages) {
	case 0:
		return t0 + w1, t0 + w2
	case 1:
		return stages[0].finishPair(t0, w1, w2)
	}
	t1, t2 := t0+w1, t0+w2
	for _, s := range stages {
		t1, t2 = s.finishPair(t0, t1-t0, t2-t0)
	}
	return t1, t2
}

// mayFail reports whether any of stages can fail an attempt (fails can
// return true): a straggler's slowdown never does, degraded periods do
// when their error rate is above 0 (an attempt's draw u is never below 0).
func mayFail(stages []stage) bool {
	for _, s := range stages {
		if g, ok := s.(*regime); ok && g.cfg.ErrorRate > 0 {
			return true
		}
	}
	return false
}

// newGates returns the gates of model m: its own rate limit, then its
// provider's.
func newGates(m *Model, p *provider) []gate {
	var gs []gate
	if l := newLimiter(m.RateLimit); l != nil {
		gs = append(gs, l)
	}
	if p.limit != nil {
		gs = append(gs, p.limit)
	}
	return gs
}

// newStages returns the service stages of provider number i.
func newStages(c *Provider, seed uint64, i int) []stage {
	var ss []stage
	if c != nil && c.Degraded != nil {
		ss = append(ss, newRegime(c.Degraded, seed, i))
	}
	return ss
}

func (l *limiter) rejection() *RateLimit { return &l.cfg }

// fails reports whether an attempt starting service at now fails: it
// starts in a degraded period and u < the period's error rate.
func (g *regime) fails(now time.Duration, u float64) bool {
	deg, _ := g.at(now)
	return deg && u < g.cfg.ErrorRate
}

func (g *regime) forget(t time.Duration) { g.trim(t) }
