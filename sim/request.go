package sim

import "time"

// request is the state of one request while it is in flight. Slots are
// reused; gen tells a live request from stale events of an earlier one. A
// slot is held until the request has ended and every attempt it sent has
// left the system (an attempt let go of while queued may outlive it).
type request struct {
	gen   uint32
	class int32
	id    int64
	// key is the request's stream key (streams.keyOf(id)): its draws'
	// streams are seeded from it (streams.of) without hashing id again.
	key      uint64
	arrival  time.Duration
	in, out  float64 // input and output tokens
	sent     uint8   // attempts sent so far (primary included), denied copies too
	inflight uint8   // attempts in the request's flight
	live     uint8   // attempts sent that have not left the system
	ended    bool    // the request has ended (finish)
	lastFail outcome
	timer    uint8 // copy index of the pending hedge timer, or noTimer
	// hedgedCopies counts copies actually sent (not denied).
	hedgedCopies uint8
	// round is the request's run under its class's retry (retry.go): 0
	// first, n re-run n; lastStatus and lastAfter are the status and
	// Retry-After hint of its last failure.
	round      uint8
	lastStatus failStatus
	// sec is the request's arrival section (section; a pipeline's call:
	// its pipeline request's), kept so that the per-section figures of its
	// attempts and its latency need no division each.
	sec       uint16
	lastAfter time.Duration
	// pipe is 1 + the pipeline slot of a pipeline's call (0: not a call),
	// pstep its step; doneAt and firstAt are, once it is won, when its
	// answer completes (after the first token, under FirstToken) and its
	// first token (pipeline_run.go).
	pipe            int32
	pstep           uint8
	doneAt, firstAt time.Duration
	att             [MaxCopies + 1]attempt
	innov           [MaxCopies + 1]float64 // copula: independent normal draw of each attempt
}

// reset makes r, in a free slot, request id of stream key key
// (streams.keyOf(id)) arriving at arrival in arrival section sec: every
// field but gen, key, sec and the attempts is zeroed. The attempts (about 1.2 KiB)
// are not: send writes attempt k whole (draw, or a skip) before anything
// reads it, and nothing reads an attempt at or after r.sent.
func (r *request) reset(id int64, key uint64, arrival time.Duration, sec uint16) {
	r.class, r.id, r.key, r.arrival, r.sec = 0, id, key, arrival, sec
	r.in, r.out = 0, 0
	r.sent, r.inflight, r.live, r.ended = 0, 0, 0, false
	r.lastFail, r.timer, r.hedgedCopies = outNone, noTimer, 0
	r.round, r.lastStatus, r.lastAfter = 0, 0, 0
	r.pipe, r.pstep, r.doneAt, r.firstAt = 0, 0, 0, 0
}

// classStats accumulates one class's results.
type classStats struct {
	requests, answered, timeoutsOpen, timeoutsClosed int64
	errors, invalid, hedged                          int64
	sent, completed, failed, invalidAtt, cancelled   int64
	rateLimited, reqRateLimited, timedOut            int64
	rejected, reqRejected                            int64
	stalled, reqStalled                              int64
	// failedBy splits failed by the error's kind (failStatus).
	failedBy [numStatus]int64
	// won counts the answered requests by the attempt that won (wonIndex);
	// rescued and harmed the requests paired with a baseline (pair.go).
	won                  []int64
	met, rescued, harmed int64
	wastedOutput         float64
	// billed[2m] and billed[2m+1] are what model m billed for attempts that
	// responded and for cancelled ones. Token counts are whole numbers, so
	// their sums are exact and independent of the order of events.
	billed []bill
	// times holds the latencies of the requests this engine ran, and split
	// those of the other ranges of a split run (see RunSplit).
	times endTimes
	split latencySet
	// pair is what a run recording or comparing met bits reads of the
	// class at each request's end (pair.go; zero otherwise).
	pair pairClass
	// cancelLatency and cancelBilling are the class's policy's, read when
	// a loser is let go of (abandon), kept here with what its end counts.
	cancelLatency time.Duration
	cancelBilling Billing
	// prices, when the class's requests all have the same token counts,
	// is the price of an attempt of them billed in full, per model; nil
	// otherwise (endSetup).
	prices []float64
	// The stats are 776 bytes, not 768: a class's are found at
	// 776·class, one multiply, where 768 = 3·2⁸ takes two instructions
	// (a scaled add and a shift) on every look-up by class.
	_ [8]byte
}

// record books the latency d of a request that ended with outcome o: the
// time to its usable answer, or, for a miss, the time until it ended.
func (s *classStats) record(o outcome, d time.Duration) {
	s.times.add(d, o == outOK)
}

// fail applies the policy's rule for a failed attempt of the given kind
// (and, for an error, status):
// end the request (Fatal), send the next copy now — or after a 429's
// retry-after hint — (NonFatal), or keep waiting (Ignore). A request with
// nothing in flight and no copy that can still be sent ends at once with
// the failure. An overload rejection follows the error rule.
func (e *engine) fail(slot int32, r *request, kind outcome, status failStatus, retryAfter time.Duration) {
	p := &e.cfg.Classes[r.class].Policy
	r.lastFail, r.lastStatus, r.lastAfter = kind, status, retryAfter
	rule := p.rule(kind)
	if kind == outError {
		rule = p.statusRule(status)
	}
	switch rule {
	case Fatal:
		e.finish(slot, r, kind)
		return
	case NonFatal:
		if int(r.sent) <= p.Copies {
			if retryAfter > 0 {
				r.timer = r.sent
				e.schedule(e.now+retryAfter, evTimer, slot, r.gen, r.sent)
			} else {
				e.send(slot, r)
			}
		}
	}
	e.settle(slot, r)
}

// rule returns the policy's rule for a failed attempt of the given kind:
// OnInvalid, OnRateLimited, OnAttemptTimeout, OnStall, or OnError for the
// others (an error, an overload rejection).
func (p *Policy) rule(kind outcome) ErrorRule {
	switch kind {
	case outInvalid:
		return p.OnInvalid
	case outRateLimited:
		return p.OnRateLimited
	case outAttemptTimeout:
		return p.OnAttemptTimeout
	case outStalled:
		return p.OnStall
	}
	return p.OnError
}

// settle ends r with its last failure when nothing is in flight and no
// copy can still be sent: every copy is used up, or none has a timer (the
// rest are fallback copies, or a budget denied the last one). It must not
// wait for the deadline.
func (e *engine) settle(slot int32, r *request) {
	p := &e.cfg.Classes[r.class].Policy
	if r.inflight == 0 && (int(r.sent) > p.Copies || r.timer == noTimer) {
		e.finish(slot, r, r.lastFail)
	}
}

// leaveFlight takes attempt k of r out of its request's flight.
func (e *engine) leaveFlight(r *request, k int) {
	r.inflight--
	if k > 0 {
		e.classes[r.class].inflightCopies--
	}
}

// finish ends request r now with outcome o: it records the outcome and the
// latency, and lets go of the attempts still in flight (abandon: each
// leaves the system at its response or when its cancel lands, whichever
// is first). The slot is freed once every attempt has left.
//
// A failure its class's retry takes (rerun) does not end the request: it
// runs again after a backoff.
func (e *engine) finish(slot int32, r *request, o outcome) {
	if o != outOK && e.retries != nil && o != outTimeout && e.rerun(slot, r, o) {
		return
	}
	// countRequestIn, without its call.
	st, d := &e.stats[r.class], e.now-r.arrival
	if o == outOK {
		st.answered++
	} else {
		st.countFailed(e.cfg.Classes[r.class].OnTimeout, o)
	}
	st.times.addAt(d, o == outOK, r.sec, r.arrival)
	if e.pair != nil {
		e.pair.end(st, r, o, d)
	}
	e.lastEvent = max(e.lastEvent, e.now)
	if r.inflight != 0 {
		e.letGoAll(slot, r, e.endCause(r, o))
	}
	cs := &e.classes[r.class]
	cs.inflightReqs--
	if x := cs.est; x != nil && x.cfg.Source == FromRequests {
		x.add(e.now, e.now-r.arrival)
	}
	r.ended = true
	if e.loops != nil {
		e.ended(slot, r)
	}
	if r.pipe != 0 {
		e.callEnded(slot, r, o)
	}
	if r.live == 0 {
		e.retire(slot, r)
	}
}

// letGoAll lets go of the attempts of r still in flight, which has ended
// or runs again (cause says why, for the breakers: breakersMiss): each
// leaves the system at its response or when its cancel lands (abandon).
func (e *engine) letGoAll(slot int32, r *request, cause hideCause) {
	if r.inflight == 0 {
		return // none in flight, and none waiting out a backoff (retry.go)
	}
	if r.inflight == 1 { // most often: one attempt, no order to keep
		for k := 0; k < int(r.sent); k++ {
			if r.att[k].state == attInFlight {
				e.leaveFlight(r, k)
				if e.breakers != nil {
					e.breakersMiss(r, &r.att[k], k == 0, cause)
				}
				e.abandon(slot, r, k, outCancelled)
				break
			}
		}
		if e.retries != nil {
			e.dropBackoffs(r)
		}
		return
	}
	// Queued attempts first: a slot another attempt frees now must not
	// start one whose cancel is already on its way.
	for _, queued := range [2]bool{true, false} {
		for k := 0; k < int(r.sent); k++ {
			if a := &r.att[k]; a.state == attInFlight && a.queued == queued {
				e.leaveFlight(r, k)
				if e.breakers != nil {
					e.breakersMiss(r, a, k == 0, cause)
				}
				e.abandon(slot, r, k, outCancelled)
			}
		}
	}
	if e.retries != nil {
		e.dropBackoffs(r)
	}
}

// countRequestIn books request r, ending now with outcome o, in st, its
// class's stats (a lane's, on the lane): its outcome, its latency, its
// fate when the run pairs (pairState.end) and the run's last event. finish
// does the same inline.
func (e *engine) countRequestIn(st *classStats, r *request, o outcome) {
	// Most requests are answered: tested before the switch, which the
	// compiler turns into a search.
	if o == outOK {
		st.answered++
	} else {
		st.countFailed(e.cfg.Classes[r.class].OnTimeout, o)
	}
	st.times.addAt(e.now-r.arrival, o == outOK, r.sec, r.arrival)
	if e.pair != nil {
		e.pair.end(st, r, o, e.now-r.arrival)
	}
	e.lastEvent = max(e.lastEvent, e.now)
}

// countFailed counts a request that ended with o, not answered, in its
// class's stats, st; on is its class's rule for timeouts.
func (st *classStats) countFailed(on TimeoutRule, o outcome) {
	switch o {
	case outError:
		st.errors++
	case outRateLimited:
		st.errors++
		st.reqRateLimited++
	case outRejected:
		st.errors++
		st.reqRejected++
	case outAttemptTimeout:
		st.errors++
	case outStalled:
		st.errors++
		st.reqStalled++
	case outInvalid:
		st.invalid++
	case outTimeout:
		if on == FailClosed {
			st.timeoutsClosed++
		} else {
			st.timeoutsOpen++
		}
	}
}

// retire frees the slot of r, which has ended and whose attempts have all
// left the system.
func (e *engine) retire(slot int32, r *request) {
	r.gen++
	e.free = append(e.free, slot)
	if e.isolated {
		// Every queued event belongs to this request and is now stale.
		e.q.n = 0
		e.fl.clear()
	}
}
