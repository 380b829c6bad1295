package sim

import (
	"fmt"
	"time"
)

// Breaker is a circuit breaker on the calls to one model (Model.Breaker)
// or to every model of one provider (Provider.Breaker), shared by every
// request across classes, with the semantics of sony/gobreaker (v2,
// Settings: ReadyToTrip, Timeout, MaxRequests) and of Polly's circuit
// breaker (BreakDuration; one probe when half-open):
//
//   - closed: calls pass; Failures consecutive failed calls open it, and
//     so does, when FailureRatio is set, a failure ratio ≥ FailureRatio
//     over the sliding window with at least MinCalls calls in it (either
//     condition trips it);
//   - open: every call fails at once, without reaching the model or its
//     provider's limits, for Cooldown;
//   - half-open (the first call after Cooldown): up to Probes calls pass;
//     Probes consecutive successes close it, one failure opens it again,
//     and further calls fail at once while the probes are out.
//
// The failure-ratio trip follows Polly v8's CircuitBreakerStrategyOptions
// (FailureRatio, MinimumThroughput, SamplingDuration: a time window) and
// resilience4j's CircuitBreakerConfig (failureRateThreshold,
// minimumNumberOfCalls, slidingWindowType COUNT_BASED with
// slidingWindowSize calls, or TIME_BASED): the window holds the outcomes of
// the last Window calls, or of the calls that ended in the last WindowTime;
// the ratio is failures ÷ calls in it, and is checked when a failure is
// recorded (Polly; a success never opens the breaker). Unlike Polly's ten
// time buckets and resilience4j's one-second ones, the time window is
// exact. The window starts empty whenever the breaker closes (both
// libraries reset their metrics on a state change).
//
// A call succeeds when the model answers (valid or not, as an HTTP 200);
// an error, a 429, an overload rejection or an attempt timeout is a
// failure. A call cancelled because its request ended counts as neither (a
// cancelled probe frees its place). A call the breaker fails counts as an
// overload rejection (503) of the attempt, handled by the class's on_error
// rule: with "nonfatal" the next copy goes at once — to the next target.
// A call to a model with a breaker of its own and one on its provider
// passes the model's first, then the provider's; a call either fails is
// not seen by the other.
type Breaker struct {
	// Failures is the number of consecutive failed calls that opens the
	// breaker; ≥ 1, or 0 for none when FailureRatio is set
	// (gobreaker's default trips after more than 5).
	Failures int
	// Cooldown is how long it stays open; > 0 (gobreaker's Timeout,
	// default 60 s; Polly's BreakDuration, default 5 s).
	Cooldown time.Duration
	// Probes is how many calls pass while half-open; ≥ 1
	// (gobreaker's MaxRequests, default 1).
	Probes int
	// FailureRatio, in (0, 1], opens the breaker when the failed share of
	// the calls in the window reaches it; 0 turns the ratio trip off
	// (Polly's FailureRatio, default 0.1; resilience4j's
	// failureRateThreshold, default 50 %).
	FailureRatio float64
	// Window is the number of most recent calls in a count window, ≥ 1;
	// WindowTime the span of a time window, > 0. Exactly one is set when
	// FailureRatio is (resilience4j's slidingWindowSize, default 100
	// calls; Polly's SamplingDuration, default 30 s).
	Window     int
	WindowTime time.Duration
	// MinCalls is the fewest calls the window must hold before the ratio
	// can open the breaker; ≥ 1, and ≤ Window for a count window (Polly's
	// MinimumThroughput and resilience4j's minimumNumberOfCalls, both
	// default 100).
	MinCalls int
}

// BreakerResult is what one circuit breaker did over a run: a model's
// (Model set) or a provider's (Provider set).
type BreakerResult struct {
	Model    string `json:"model,omitempty"`
	Provider string `json:"provider,omitempty"`
	// Opens counts the times it opened.
	Opens int64 `json:"opens"`
	// OpenSeconds is the simulated time it spent open (cool-downs, the
	// last one cut at the end of the run).
	OpenSeconds float64 `json:"open_s"`
	// Rejected counts the calls it failed at once.
	Rejected int64 `json:"rejected"`
	// starved, for a failure-ratio breaker whose window never held
	// min_calls outcomes (so the ratio never applied), says so.
	starved string
	// hidden, when cancelled calls hid failures from it that matter
	// (hiddenWarning), says so; hiddenN and seenN count the failures
	// hidden from it and those it saw.
	hidden         string
	hiddenN, seenN int64
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
	win      window // the outcomes the failure ratio is taken over
	hid      hiddenFailures
}

// window is the sliding window of a failure-ratio breaker: the outcomes
// of recent calls in a ring (oldest at head), with their end times for a
// time window. Adding is O(1) amortised.
type window struct {
	failed []bool
	at     []time.Duration // time window only
	head   int
	n      int // outcomes held
	fails  int // failed outcomes held
	most   int // the most outcomes it ever held
}

func (b *Breaker) validate() error {
	if b.Failures < 0 || b.Cooldown <= 0 || b.Probes < 1 || (b.Failures == 0 && b.FailureRatio == 0) {
		return invalid("breaker: failures %d, cooldown %v, probes %d, failure ratio %v: want failures ≥ 1 or a failure ratio, cooldown > 0, probes ≥ 1",
			b.Failures, b.Cooldown, b.Probes, b.FailureRatio)
	}
	if b.FailureRatio == 0 {
		return nil
	}
	switch {
	case !(b.FailureRatio > 0 && b.FailureRatio <= 1):
		return invalid("breaker: failure ratio %v: want a value in (0, 1]", b.FailureRatio)
	case (b.Window > 0) == (b.WindowTime > 0) || b.Window < 0 || b.WindowTime < 0:
		return invalid("breaker: window %d calls, window time %v: want exactly one, > 0", b.Window, b.WindowTime)
	case b.MinCalls < 1 || (b.Window > 0 && b.MinCalls > b.Window):
		return invalid("breaker: min calls %d: want ≥ 1 and, with a window of %d calls, at most that", b.MinCalls, b.Window)
	}
	return nil
}

// add records an outcome that ended at now in the window of cfg and
// reports whether the window now holds at least MinCalls calls of which
// at least FailureRatio failed.
func (w *window) add(cfg *Breaker, now time.Duration, failed bool) bool {
	if cfg.WindowTime > 0 {
		for w.n > 0 && w.at[w.head] <= now-cfg.WindowTime { // ended WindowTime or more ago
			w.drop()
		}
		if w.n == len(w.failed) { // full: grow the ring, oldest first
			c := max(16, 2*w.n)
			f, at := make([]bool, c), make([]time.Duration, c)
			for i := range w.n {
				j := (w.head + i) % len(w.failed)
				f[i], at[i] = w.failed[j], w.at[j]
			}
			w.failed, w.at, w.head = f, at, 0
		}
		j := (w.head + w.n) % len(w.failed)
		w.failed[j], w.at[j] = failed, now
	} else {
		if w.failed == nil {
			w.failed = make([]bool, cfg.Window)
		}
		if w.n == cfg.Window {
			w.drop()
		}
		w.failed[(w.head+w.n)%cfg.Window] = failed
	}
	w.n++
	w.most = max(w.most, w.n)
	if failed {
		w.fails++
	}
	return w.n >= cfg.MinCalls && float64(w.fails) >= cfg.FailureRatio*float64(w.n)
}

// drop removes the oldest outcome.
func (w *window) drop() {
	if w.failed[w.head] {
		w.fails--
	}
	w.head = (w.head + 1) % len(w.failed)
	w.n--
}

func (w *window) reset() { w.head, w.n, w.fails = 0, 0, 0 }

// admit reports whether a call may go through now; a probe admitted while
// half-open is marked in *probe, with its half-open period in *gen.
func (b *breaker) admit(now time.Duration, probe *bool, gen *uint32) bool {
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
		*probe, *gen = true, b.gen
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
		if b.cfg.FailureRatio > 0 {
			b.win.add(b.cfg, now, false)
		}
	default:
		b.fails++
		consecutive := b.cfg.Failures > 0 && b.fails >= b.cfg.Failures
		ratio := b.cfg.FailureRatio > 0 && b.win.add(b.cfg, now, true)
		if consecutive || ratio {
			b.trip(now)
		}
	}
}

func (b *breaker) trip(now time.Duration) {
	b.open, b.halfOpen, b.fails = true, false, 0
	b.win.reset()
	b.until = now + b.cfg.Cooldown
	b.opens++
	b.openFor += b.cfg.Cooldown
}

// release frees the place of a probe marked in *probe (half-open period
// gen), which left without a response the breaker judges (its request let
// go of it).
func (b *breaker) release(probe *bool, gen uint32) {
	if *probe && b.halfOpen && gen == b.gen && b.probes > 0 {
		b.probes--
	}
	*probe = false
}

// breakersAdmit asks attempt a's model's breaker, then its provider's,
// whether its call may go through now; a call the provider's breaker
// fails frees the place it took as the model breaker's probe.
func (e *engine) breakersAdmit(a *attempt) bool {
	if b := e.breakers[a.model]; b != nil && !b.admit(e.now, &a.probe, &a.probeGen) {
		return false
	}
	if e.provBreakers != nil {
		if b := e.provBreakers[a.prov]; b != nil && !b.admit(e.now, &a.provProbe, &a.provProbeGen) {
			if a.probe {
				e.breakers[a.model].release(&a.probe, a.probeGen)
			}
			return false
		}
	}
	return true
}

// breakersRelease frees the probe places attempt a holds, which leaves
// without a response its breakers judge.
func (e *engine) breakersRelease(a *attempt) {
	if a.probe {
		e.breakers[a.model].release(&a.probe, a.probeGen)
	}
	if a.provProbe {
		e.provBreakers[a.prov].release(&a.provProbe, a.provProbeGen)
	}
}

// breakerSees tells attempt a's model's and provider's breakers, if any,
// how its call ended.
func (e *engine) breakerSees(a *attempt, how outcome) {
	if e.breakers == nil || a.byBreaker {
		return
	}
	ok := how == outOK || how == outInvalid
	if b := e.breakers[a.model]; b != nil {
		b.sees(e.now, ok)
		if !ok {
			b.hid.seen++
		}
		a.probe = false
	}
	if e.provBreakers != nil {
		if b := e.provBreakers[a.prov]; b != nil {
			b.sees(e.now, ok)
			if !ok {
				b.hid.seen++
			}
			a.provProbe = false
		}
	}
}

// breakerResults returns what every breaker did, models' then providers',
// the open time cut at the run's end.
func (e *engine) breakerResults() []BreakerResult {
	var out []BreakerResult
	add := func(b *breaker, r BreakerResult) {
		open := b.openFor
		if b.open && b.until > e.lastEvent {
			open -= b.until - max(e.lastEvent, b.until-b.cfg.Cooldown)
		}
		r.Opens, r.OpenSeconds, r.Rejected = b.opens, open.Seconds(), b.rejected
		if c := b.cfg; c.FailureRatio > 0 && b.win.most < c.MinCalls {
			span := fmt.Sprintf("the last %d calls", c.Window)
			if c.WindowTime > 0 {
				span = "the last " + c.WindowTime.String()
			}
			r.starved = fmt.Sprintf("its window (%s) held at most %d calls, fewer than min_calls = %d, so its failure_ratio never applied: lower min_calls or widen the window", span, b.win.most, c.MinCalls)
		}
		r.hidden, r.hiddenN, r.seenN = e.hiddenWarning(b), b.hid.n, b.hid.seen
		out = append(out, r)
	}
	for m, b := range e.breakers {
		if b != nil {
			add(b, BreakerResult{Model: e.cfg.Models[m].Name})
		}
	}
	for p, b := range e.provBreakers {
		if b != nil {
			add(b, BreakerResult{Provider: e.provs[p].name})
		}
	}
	return out
}

// auditBreakers checks, after a run, that every call a breaker failed at
// once was counted once as an overload rejection at its provider (equal
// counts unless a bounded queue rejects calls too), and that each
// failure-ratio window holds what its counts say.
func (e *engine) auditBreakers() error {
	var byBreakers, rejected int64
	bounded := false
	for i := range e.provs {
		rejected += e.provs[i].stats.Rejected
		bounded = bounded || e.provs[i].bounded || e.provs[i].pool != nil // a pool's replicas and scaler reject too
	}
	for _, bs := range [][]*breaker{e.breakers, e.provBreakers} {
		for _, b := range bs {
			if b == nil {
				continue
			}
			byBreakers += b.rejected
			w := &b.win
			fails := 0
			for i := range w.n {
				if w.failed[(w.head+i)%len(w.failed)] {
					fails++
				}
			}
			if fails != w.fails || w.n > len(w.failed) || (b.cfg.Window > 0 && w.n > b.cfg.Window) {
				return fmt.Errorf("breaker window holds %d outcomes, %d failed, but counts %d failed (capacity %d, window %d)", w.n, fails, w.fails, len(w.failed), b.cfg.Window)
			}
		}
	}
	if byBreakers > rejected || (!bounded && byBreakers != rejected) {
		return fmt.Errorf("breakers failed %d calls at once, providers counted %d rejections", byBreakers, rejected)
	}
	return nil
}
