package sim

import (
	"math"
	"time"
)

// Retries. A class may retry failures in two layers, both optional:
//
//   - Class.AttemptRetry, inside each attempt: the client library's own
//     retry loop (the OpenAI and Anthropic SDKs retry inside the client,
//     max_retries = 2 by default; failsafe-go's RetryPolicy composed inside
//     its HedgePolicy). Each hedge attempt — the primary and every copy —
//     is itself a retry loop on its model: a retryable failure of a call is
//     not seen by the hedging layer; after a backoff the same model is
//     called again, with fresh latency and error draws, until a call
//     succeeds, fails in a way that is not retryable, or the tries run out;
//     only then does the failure reach the policy's error rules. Hedging
//     sits around these retries. A policy's AttemptTimeout bounds a whole
//     attempt, its retries and backoffs included. The request's deadline
//     is the SDK's timeout (a caller with a deadline passes it as the
//     request's timeout or context), so the deadline rule of Class.Retry
//     holds here too: a retry whose backoff would end at or after the
//     deadline is not made, and the call's failure stands — the request
//     ends as an error, not as a timeout, in either layer.
//   - Class.Retry, around the whole hedged request: when the request fails
//     (its outcome is retryable) it is run again — primary, hedge copies
//     and all — after a backoff, as an application's retry loop around its
//     client. The request's latency is still from its arrival to its usable
//     answer, and its deadline still holds: a retry whose backoff would end
//     at or after the deadline is not made, and the request ends with its
//     failure (as Google's API clients stop when the next delay would pass
//     the total timeout). A deadline reached is never retried.
//
// With both, every failed request makes up to Retry.MaxAttempts ×
// AttemptRetry.MaxAttempts calls per attempt slot: stacked retry layers
// multiply upstream calls.

// attBackoff: an attempt whose last call failed and has left the system,
// waiting the backoff before its next call; still in its request's flight.
const attBackoff = attSkipped + 1

// MaxRetryAttempts bounds Retry.MaxAttempts (gRPC caps its maxAttempts at 5;
// client libraries allow more).
const MaxRetryAttempts = 10

// Jitter is how a retry's backoff is randomised (AWS Architecture Blog,
// Marc Brooker, "Exponential Backoff And Jitter", 2015).
type Jitter uint8

const (
	// JitterFull waits U(0, d): the AWS post's "Full Jitter", and gRPC's
	// retry backoff (gRFC A6: random(0, current_backoff)).
	JitterFull Jitter = iota
	// JitterEqual waits d/2 + U(0, d/2): the AWS post's "Equal Jitter".
	JitterEqual
	// JitterNone waits exactly d.
	JitterNone
)

// String returns the scenario-file name of the jitter.
func (j Jitter) String() string {
	switch j {
	case JitterEqual:
		return "equal"
	case JitterNone:
		return "none"
	}
	return "full"
}

// RetryOn is a set of retryable kinds of failure, a bit per kind.
type RetryOn uint8

const (
	// RetryServerError: an error (5xx, overloaded 503/529, a degraded
	// period's failure, a full provider's or an open breaker's rejection).
	RetryServerError RetryOn = 1 << iota
	// RetryRateLimited: a 429, from a rate limit or the model.
	RetryRateLimited
	// RetryClientError: a 4xx other than 429 (Failures.ClientError). A
	// request's 4xx repeats on every call to the same model.
	RetryClientError
	// RetryUpstreamTimeout: an upstream timeout (504, 408;
	// Failures.Timeout).
	RetryUpstreamTimeout
	// RetryAttemptTimeout: an attempt abandoned at the policy's
	// AttemptTimeout (Class.Retry only).
	RetryAttemptTimeout
	// RetryInvalid: an unusable answer (Class.Retry only: a client library
	// does not judge answers).
	RetryInvalid
	// RetryStall: a request that ended with a stream cut (StreamCuts) is
	// run again (Class.Retry only: a client library does not cut streams).
	RetryStall
)

// DefaultRetryOn is what the OpenAI and Anthropic SDKs retry: 408 and
// other upstream timeouts, 429 and 5xx (connection errors aside).
const DefaultRetryOn = RetryServerError | RetryRateLimited | RetryUpstreamTimeout

// RetryKinds names the kinds of RetryOn in scenario files, in bit order
// (bit i is RetryKinds[i]); read-only.
var RetryKinds = []string{"5xx", "429", "4xx", "upstream_timeout", "attempt_timeout", "invalid", "stall"}

// has reports whether a failure of kind o (and, for an error, status s)
// is retryable.
func (on RetryOn) has(o outcome, s failStatus) bool {
	var bit RetryOn
	switch o {
	case outError:
		switch s {
		case statusClient:
			bit = RetryClientError
		case statusUpstreamTimer:
			bit = RetryUpstreamTimeout
		default:
			bit = RetryServerError
		}
	case outRejected:
		bit = RetryServerError
	case outRateLimited:
		bit = RetryRateLimited
	case outAttemptTimeout:
		bit = RetryAttemptTimeout
	case outInvalid:
		bit = RetryInvalid
	case outStalled:
		bit = RetryStall
	}
	return on&bit != 0
}

// Retry is a retry policy with capped exponential backoff, the shape of
// gRPC's retryPolicy (gRFC A6: maxAttempts, initialBackoff, maxBackoff,
// backoffMultiplier, retryableStatusCodes) and failsafe-go's RetryPolicy
// (WithMaxAttempts, WithBackoff, WithJitter). Retry n (n ≥ 1, the first
// retry is n = 1) waits
//
//	d_n = min(MaxBackoff, InitialBackoff × Multiplier^(n−1))
//
// jittered as Jitter says; a 429 whose Retry-After hint is longer waits
// the hint instead.
type Retry struct {
	// MaxAttempts counts the first try: 3 means up to 2 retries. In
	// [1, MaxRetryAttempts]; 1 never retries.
	MaxAttempts int
	// InitialBackoff is d_1, ≥ 0.
	InitialBackoff time.Duration
	// MaxBackoff caps d_n; ≥ InitialBackoff.
	MaxBackoff time.Duration
	// Multiplier is the growth of d_n per retry; ≥ 1 (finite).
	Multiplier float64
	// Jitter randomises each backoff.
	Jitter Jitter
	// On is the set of retryable failures; not empty.
	On RetryOn
	// CountsAgainstBudget makes a retry pass the class's hedge budgets
	// (Policy.Budget) as a copy does: a retry a budget denies is not made
	// (the failure stands) and counts in the class's denied retries, per
	// budget (RetryCounts.DeniedBy, apart from the copies denied), and a
	// retry sent takes a token of the hedge rate limit. Without it retries
	// are free of the budgets. The retry throttle (Budget.Throttle) sees
	// every call's outcome either way, as gRPC's does.
	CountsAgainstBudget bool
}

func (r *Retry) validate(inner bool) error {
	if r.MaxAttempts < 1 || r.MaxAttempts > MaxRetryAttempts {
		return invalid("max attempts %d: must be in [1, %d]", r.MaxAttempts, MaxRetryAttempts)
	}
	if r.InitialBackoff < 0 {
		return invalid("initial backoff %v: must be ≥ 0", r.InitialBackoff)
	}
	if r.MaxBackoff < r.InitialBackoff {
		return invalid("max backoff %v: must be ≥ the initial backoff %v", r.MaxBackoff, r.InitialBackoff)
	}
	if !(r.Multiplier >= 1) || math.IsInf(r.Multiplier, 0) {
		return invalid("backoff multiplier %v: must be finite and ≥ 1", r.Multiplier)
	}
	if r.Jitter > JitterNone {
		return invalid("jitter %d: unknown", r.Jitter)
	}
	if r.On == 0 || r.On >= 1<<len(RetryKinds) {
		return invalid("retryable failures: must name at least one of %v", RetryKinds)
	}
	if inner && r.On&(RetryAttemptTimeout|RetryInvalid|RetryStall) != 0 {
		return invalid("an attempt's retry cannot retry attempt timeouts (the timeout bounds the attempt, its retries included), invalid answers (a client library does not judge answers) or stream cuts (a client library does not cut streams): use the class's retry")
	}
	return nil
}

// Backoff returns the wait before retry n (n ≥ 1) for a uniform u in
// [0, 1): d_n jittered — u·d_n (full), d_n/2 + u·d_n/2 (equal) or d_n
// (none).
func (r *Retry) Backoff(n int, u float64) time.Duration {
	d := float64(r.InitialBackoff) * math.Pow(r.Multiplier, float64(n-1))
	d = math.Min(d, float64(r.MaxBackoff))
	switch r.Jitter {
	case JitterFull:
		d *= u
	case JitterEqual:
		d = d/2 + u*d/2
	}
	return time.Duration(d)
}

// RetryCounts is what a class's retries did over a run.
type RetryCounts struct {
	// RequestsRerun counts the requests run again at least once
	// (Class.Retry), Reruns the re-runs (a request re-run twice counts
	// twice), and Calls the calls an attempt retried (Class.AttemptRetry).
	// Every retry is also counted in the attempts sent.
	RequestsRerun int64 `json:"requests_rerun"`
	Reruns        int64 `json:"reruns"`
	Calls         int64 `json:"calls"`
	// Denied counts the retries a budget denied (CountsAgainstBudget), and
	// DeniedBy the same per budget; they are not among the copies denied
	// (ClassResult.Denied).
	Denied   int64  `json:"denied"`
	DeniedBy Denied `json:"denied_by"`
}

func (c *RetryCounts) add(o *RetryCounts) {
	c.RequestsRerun += o.RequestsRerun
	c.Reruns += o.Reruns
	c.Calls += o.Calls
	c.Denied += o.Denied
	c.DeniedBy.add(o.DeniedBy)
}

// Streams of the backoff draws: retry t of attempt k of round r of request
// i draws its jitter from stream (i, backoffStream+k, t | r<<8), the re-run
// of round r from (i, roundStream, r<<8); the retried calls themselves from
// (i, k, t | r<<8) (see streams.atTry), so they get fresh latency and
// error draws, and the same under every hedge policy.
const (
	backoffStream = 0xf0 // + attempt index k ≤ MaxCopies
	roundStream   = 0xf8
)

// tryKey is the key of try t of an attempt in round r of its request.
func tryKey(round, t uint8) uint16 { return uint16(round)<<8 | uint16(t) }

// retrying reports whether any class retries.
func (cfg *Config) retrying() bool {
	for i := range cfg.Classes {
		if cfg.Classes[i].Retry != nil || cfg.Classes[i].AttemptRetry != nil {
			return true
		}
	}
	return false
}

// retryCall handles a failed response of attempt k of r, which has just
// left the request's flight, under the class's attempt retry: when the
// failure is retryable, tries remain and the budgets allow it, the call
// leaves the system (exit) and the attempt waits its backoff in flight —
// the policy's error rules do not see the failure — and retryCall reports
// true. A retry whose backoff would end at or after the request's
// deadline is not made, as in rerun. retryAfter is the call's 429 hint.
func (e *engine) retryCall(slot int32, r *request, k int, retryAfter time.Duration) bool {
	rt := e.cfg.Classes[r.class].AttemptRetry
	a := &r.att[k]
	if rt == nil || !rt.On.has(a.kind, a.status) || int(a.try)+1 >= rt.MaxAttempts {
		return false
	}
	n := int(a.try) + 1
	if a.kind != outRateLimited {
		retryAfter = 0
	}
	d, ok := e.backoff(rt, n, e.rng.atTry(r.id, backoffStream+uint8(k), tryKey(r.round, uint8(n))).float64(), retryAfter, r)
	if !ok {
		return false
	}
	e.exit(slot, r, k, e.now, a.kind, false)
	a.state, a.try = attBackoff, uint8(n)
	r.inflight++ // back in the flight: the attempt goes on
	if k > 0 {
		e.classes[r.class].inflightCopies++
	}
	e.schedule(e.now+d, evRetry, slot, r.gen, uint8(k))
	return true
}

// backoff returns the wait before retry n under rt, drawn from u ∈ [0, 1)
// (Retry.Backoff), or after, a 429's Retry-After hint (0 without one),
// when that is longer; and whether the retry may be made: it would start
// before r's deadline and, when retries count against the budgets, they
// allow it (which takes from them).
func (e *engine) backoff(rt *Retry, n int, u float64, after time.Duration, r *request) (time.Duration, bool) {
	d := max(rt.Backoff(n, u), after)
	if dl := e.cfg.Classes[r.class].Deadline; dl > 0 && e.now+d >= r.arrival+dl {
		return 0, false
	}
	if rt.CountsAgainstBudget && !e.allowRetry(int(r.class), r) {
		return 0, false
	}
	return d, true
}

// resend sends the next call of attempt k of r, waiting its backoff: to
// the same model, with the draws of its try.
func (e *engine) resend(slot int32, r *request, k int) {
	a := &r.att[k]
	if a.state != attBackoff {
		return
	}
	prev := a.rep
	e.draw(r, a, int(a.model), k, a.try) // keeps a.try
	a.rep = prev                         // the replica its last call went to: the pool picks another
	r.live++
	e.stats[r.class].sent++
	e.retries[r.class].Calls++
	e.dispatch(slot, r, k)
}

// dropBackoffs takes the attempts of r waiting a backoff out of its flight:
// the request has ended, so they send nothing more.
func (e *engine) dropBackoffs(r *request) {
	for k := 0; k < int(r.sent); k++ {
		if a := &r.att[k]; a.state == attBackoff {
			e.leaveFlight(r, k)
			a.state = attExited
		}
	}
}

// backoffTimeout ends attempt k of r, waiting a backoff, at its attempt
// timeout: no call is in flight, so none is abandoned; the request handles
// a failure of kind timeout.
func (e *engine) backoffTimeout(slot int32, r *request, k int) {
	e.leaveFlight(r, k)
	r.att[k].state = attExited
	e.fail(slot, r, outAttemptTimeout, statusServer, 0)
}

// rerun handles request r, in slot, about to end with failure o, under its
// class's retry: when o is retryable, rounds remain, the backoff ends before
// the deadline and the budgets allow it, the request lets go of what it
// has in flight, moves to a new slot (the old one is freed once its
// attempts have left) and runs again after the backoff, and rerun reports
// true. The request is counted only when it finally ends.
func (e *engine) rerun(slot int32, r *request, o outcome) bool {
	cl := &e.cfg.Classes[r.class]
	rt := cl.Retry
	if rt == nil || !rt.On.has(o, r.lastStatus) || int(r.round)+1 >= rt.MaxAttempts {
		return false
	}
	n := int(r.round) + 1
	after := time.Duration(0)
	if o == outRateLimited {
		after = r.lastAfter
	}
	d, ok := e.backoff(rt, n, e.rng.atTry(r.id, roundStream, tryKey(uint8(n), 0)).float64(), after, r)
	if !ok {
		return false
	}
	id, key, arrival, class, in, out, hedged, sec := r.id, r.key, r.arrival, r.class, r.in, r.out, r.hedgedCopies, r.sec
	pipe, pstep := r.pipe, r.pstep
	client := int32(-1)
	if e.clients != nil && pipe == 0 { // a pipeline's call has no client (ended)
		client = e.slotClient[slot]
	}
	e.letGoAll(slot, r, hidByFailure)
	r.ended = true
	if r.live == 0 {
		e.retire(slot, r)
	}
	// r is not used past here: the slots may grow.
	s := e.allocSlot()
	nr := &e.slots[s]
	nr.reset(id, key, arrival, sec)
	nr.class, nr.in, nr.out, nr.round, nr.hedgedCopies = class, in, out, uint8(n), hedged
	if pipe != 0 {
		nr.pipe, nr.pstep, nr.doneAt = pipe, pstep, -1
		e.pipeMoved(pipe-1, slot, s)
	}
	if e.clients != nil {
		e.setClient(s, client)
	}
	if cl.Deadline > 0 {
		// Earlier than the deadlines queued since the first run: put sends
		// it to the heap.
		e.scheduleIn(fifoIndex(class, chanDeadline), arrival+cl.Deadline, evDeadline, s, nr.gen, 0)
	}
	e.schedule(e.now+d, evRound, s, nr.gen, 0)
	return true
}

// startRound sends the primary of a request's re-run.
func (e *engine) startRound(slot int32, r *request) {
	rc := &e.retries[r.class]
	if r.round == 1 {
		rc.RequestsRerun++ // its first re-run
	}
	rc.Reruns++
	e.send(slot, r)
	e.settle(slot, r)
}
