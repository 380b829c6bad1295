package sim

import "time"

// Breaker is a circuit breaker on the calls to one model, shared by every
// request across classes, with the semantics of sony/gobreaker (v2,
// Settings: ReadyToTrip on consecutive failures, Timeout, MaxRequests) and
// of Polly's circuit breaker (BreakDuration; one probe when half-open):
//
//   - closed: calls pass; Failures consecutive failed calls open it;
//   - open: every call fails at once, without reaching the model or its
//     provider's limits, for Cooldown;
//   - half-open (the first call after Cooldown): up to Probes calls pass;
//     Probes consecutive successes close it, one failure opens it again,
//     and further calls fail at once while the probes are out.
//
// A call succeeds when the model answers (valid or not, as an HTTP 200);
// an error, a 429, an overload rejection or an attempt timeout is a
// failure. A call cancelled because its request ended counts as neither (a
// cancelled probe frees its place). A call the breaker fails counts as an
// overload rejection (503) of the attempt, handled by the class's on_error
// rule: with "nonfatal" the next copy goes at once — to the next target.
type Breaker struct {
	// Failures is the number of consecutive failed calls that opens the
	// breaker; ≥ 1 (gobreaker's default trips after more than 5).
	Failures int
	// Cooldown is how long it stays open; > 0 (gobreaker's Timeout,
	// default 60 s; Polly's BreakDuration, default 5 s).
	Cooldown time.Duration
	// Probes is how many calls pass while half-open; ≥ 1
	// (gobreaker's MaxRequests, default 1).
	Probes int
}

// BreakerResult is what one model's breaker did over a run.
type BreakerResult struct {
	Model string `json:"model"`
	// Opens counts the times it opened.
	Opens int64 `json:"opens"`
	// OpenSeconds is the simulated time it spent open (cool-downs, the
	// last one cut at the end of the run).
	OpenSeconds float64 `json:"open_s"`
	// Rejected counts the calls it failed at once.
	Rejected int64 `json:"rejected"`
}

// breaker is a Breaker's run-time state.
type breaker struct {
	cfg      *Breaker
	open     bool
	halfOpen bool
	until    time.Duration // open until
	fails    int           // consecutive failures while closed
	probes   int           // probes out while half-open
	succ     int           // consecutive successful probes
	gen      uint32        // counts the entries into half-open
	opens    int64
	openFor  time.Duration
	rejected int64
}

func (b *Breaker) validate() error {
	if b.Failures < 1 || b.Cooldown <= 0 || b.Probes < 1 {
		return invalid("breaker: failures %d, cooldown %v, probes %d: want failures ≥ 1, cooldown > 0, probes ≥ 1", b.Failures, b.Cooldown, b.Probes)
	}
	return nil
}

// admit reports whether a call may go through now; a probe admitted while
// half-open is marked on the attempt.
func (b *breaker) admit(now time.Duration, a *attempt) bool {
	if b.open {
		if now < b.until {
			b.rejected++
			return false
		}
		b.open, b.halfOpen, b.probes, b.succ = false, true, 0, 0
		b.gen++
	}
	if b.halfOpen {
		if b.probes >= b.cfg.Probes {
			b.rejected++
			return false
		}
		b.probes++
		a.probe, a.probeGen = true, b.gen
	}
	return true
}

// sees records the response of a call admitted by the breaker.
func (b *breaker) sees(now time.Duration, ok bool) {
	switch {
	case b.open:
		// A call admitted before the breaker opened: its outcome is stale.
	case b.halfOpen && ok:
		if b.succ++; b.succ >= b.cfg.Probes {
			b.halfOpen, b.fails = false, 0
		}
	case b.halfOpen:
		b.trip(now)
	case ok:
		b.fails = 0
	default:
		if b.fails++; b.fails >= b.cfg.Failures {
			b.trip(now)
		}
	}
}

func (b *breaker) trip(now time.Duration) {
	b.open, b.halfOpen, b.fails = true, false, 0
	b.until = now + b.cfg.Cooldown
	b.opens++
	b.openFor += b.cfg.Cooldown
}

// release frees the place of probe a, which left without a response the
// breaker judges (its request let go of it).
func (b *breaker) release(a *attempt) {
	if a.probe && b.halfOpen && a.probeGen == b.gen && b.probes > 0 {
		b.probes--
	}
	a.probe = false
}

// breakerSees tells model m's breaker, if any, how attempt a's call ended.
func (e *engine) breakerSees(a *attempt, how outcome) {
	if e.breakers == nil || a.byBreaker {
		return
	}
	if b := e.breakers[a.model]; b != nil {
		b.sees(e.now, how == outOK || how == outInvalid)
		a.probe = false
	}
}

// breakerResults returns what every breaker did, the open time cut at
// the run's end.
func (e *engine) breakerResults() []BreakerResult {
	var out []BreakerResult
	for m, b := range e.breakers {
		if b == nil {
			continue
		}
		open := b.openFor
		if b.open && b.until > e.lastEvent {
			open -= b.until - max(e.lastEvent, b.until-b.cfg.Cooldown)
		}
		out = append(out, BreakerResult{Model: e.cfg.Models[m].Name, Opens: b.opens, OpenSeconds: open.Seconds(), Rejected: b.rejected})
	}
	return out
}
