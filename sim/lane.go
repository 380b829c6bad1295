package sim

import (
	"math/bits"
	"time"
)

// The lane is the event-free path for the simplest independent requests: no
// provider queue, rate limit, slowdown, per-attempt timeout, copula, failures
// by kind, stalls, stream cuts or trace. Every attempt is served the moment
// it is sent, so its deciding response time is known from its draws alone; a
// request is then a race between its deadline, its one pending hedge timer
// and the responses of its attempts in flight, decided by comparing a handful
// of numbers in (time, scheduling order) — the order the event loop's heap
// would give. The same error and winner rules decide; attempts leave through
// laneExit, which counts and bills them as exit, count and charge do for the
// few ways an attempt can end here (an answer, an error, a cancelled loser),
// tallied per class and model and added up once the requests have run
// (laneFold). TestDirectMatchesEventLoop checks the reports are identical
// byte for byte.

// lane holds the pending events of the request in progress.
type lane struct {
	due [MaxCopies + 1]time.Duration // when attempt k's deciding response comes
	seq [MaxCopies + 1]uint32        // its place in the request's scheduling order
	on  uint32                       // bit k: attempt k is in flight
	// timerAt and timerSeq are the pending hedge timer's, when the request's
	// timer is not noTimer.
	timerAt  time.Duration
	timerSeq uint32
	next     uint32 // the next scheduling order; the deadline has 0
	// classes and models are the lane's contexts (laneSetup); cur is the
	// class of the request in progress.
	classes []laneClass
	models  []laneModel
	cur     *laneClass
	// cut is the end-to-end deadline of the pipeline whose call is in
	// progress (laneRace), never otherwise.
	cut time.Duration
	// outcome is how the last request raced ended (laneFinish).
	outcome outcome
}

// laneOK reports whether the run can take the lane: its requests are
// independent and none of what the lane leaves out is configured.
func (e *engine) laneOK() bool {
	return e.isolated && !e.noLane && e.trace == nil && e.copula == nil && e.cfg.laneable()
}

// laneable reports whether runs of cfg take the lane, from the
// configuration alone: its requests are independent and none of what the
// lane leaves out (a copula, slow periods, per-attempt timeouts, stream
// cuts, failures by kind, stalls) is configured.
func (cfg *Config) laneable() bool { return !cfg.pipelined() && cfg.laneableCalls() }

// laneableCalls is laneable for the calls of cfg, a configuration with its
// pipelines' steps as classes (Config.withSteps): laneable but for the
// pipelines themselves.
func (cfg *Config) laneableCalls() bool {
	if !cfg.independentCalls() || cfg.correlated() {
		return false
	}
	for i := range cfg.Providers {
		if cfg.Providers[i].Degraded != nil {
			return false // slow periods
		}
	}
	for i := range cfg.Classes {
		if p := &cfg.Classes[i].Policy; p.AttemptTimeout > 0 || p.StreamCuts.on() {
			return false
		}
	}
	for i := range cfg.Models {
		if m := &cfg.Models[i]; m.Failures.any() || m.Stalls.Rate > 0 {
			return false // failures by kind and stalls take the event path's draw and rules
		}
	}
	return true
}

// runLane runs every request on the lane, one after another.
func (e *engine) runLane() {
	e.laneSetup()
	r := &request{}
	for e.more() {
		e.now = e.arrivalTime()
		e.laneRequest(r)
	}
	e.laneFold()
}

// laneRequest runs request e.next, arriving now, to its end, reusing r.
//
// The lane keeps no per-class counts of requests and copies in flight
// (classState): only budgets read them, and a budget keeps a run off the
// lane. Nor does it count an attempt's request's attempts in the system
// (r.live): no slot is freed. Attempts are counted in laneTally; a driver
// other than runLane calls laneSetup before its first request and
// laneFold once its requests have run.
func (e *engine) laneRequest(r *request) {
	e.costMark()
	r.id, r.arrival, r.sec = e.next, e.now, e.section(e.next)
	e.next++
	r.sent, r.inflight, r.live, r.hedgedCopies = 0, 0, 0, 0
	r.ended, r.lastFail, r.timer = false, outNone, noTimer
	if e.batch == nil {
		e.drawRequest(r, -1)
	} else if !e.batch.reuseRequest(r) {
		e.drawRequest(r, -1)
		e.batch.keepRequest(r)
	}
	e.laneRace(r, never)
}

// laneRace runs request r, arriving now with its class and token counts
// drawn, to its end. A pipeline's call passes its request's end-to-end
// deadline as cut (never otherwise): reached first, it ends the call as
// the event loop's pipeline deadline does (cutLive).
func (e *engine) laneRace(r *request, cut time.Duration) {
	ln := &e.ln
	lc := &ln.classes[r.class]
	ln.cur = lc
	lc.st.requests++
	ln.on, ln.next = 0, 1
	deadline := never
	if lc.deadline > 0 {
		deadline = e.now + lc.deadline
	}
	if cut <= deadline {
		deadline = cut
	}
	ln.cut = cut
	e.laneSend(r)
	for !r.ended {
		// The earliest pending event; ties go to the one scheduled first.
		at, seq, what := deadline, uint32(0), -1
		if r.timer != noTimer && (ln.timerAt < at || ln.timerAt == at && ln.timerSeq < seq) {
			at, seq, what = ln.timerAt, ln.timerSeq, -2
		}
		for m := ln.on; m != 0; m &= m - 1 {
			k := bits.TrailingZeros32(m)
			if ln.due[k] < at || ln.due[k] == at && ln.seq[k] < seq {
				at, seq, what = ln.due[k], ln.seq[k], k
			}
		}
		if at == never {
			e.stranded++ // nothing pending and not ended: audit reports it
			return
		}
		e.now = at
		switch what {
		case -1:
			e.laneFinish(r, outTimeout)
		case -2:
			e.laneSend(r) // a pending timer is always for the next copy
			e.laneSettle(r)
		default:
			e.laneRespond(r, what)
		}
	}
}

// laneSend is send on the lane: it sends the next copy of r now, and the
// ones after it while their gap is 0, and arms the timer of the next.
func (e *engine) laneSend(r *request) {
	ln := &e.ln
	lc := ln.cur
	st := lc.st
	r.timer = noTimer
	for {
		k := int(r.sent)
		r.sent++
		m := int(lc.target[k])
		if k > 0 && lc.newProvider {
			m = e.target(r, k)
		}
		e.laneDraw(r, m, k)
		r.inflight++
		lc.tally[m].sent++
		if k > 0 {
			if r.hedgedCopies == 0 {
				st.hedged++
			}
			r.hedgedCopies++
		}
		a := &r.att[k]
		at := a.end
		if lc.firstToken && a.kind != outError {
			at = a.first
		}
		ln.due[k], ln.seq[k] = at, ln.next
		ln.next++
		ln.on |= 1 << k
		if k >= lc.copies {
			return
		}
		g := lc.gap[k+1]
		if g < 0 {
			return // fallback: sent only after a failure
		}
		if g > 0 {
			r.timer = uint8(k + 1)
			ln.timerAt, ln.timerSeq = e.now+g, ln.next
			ln.next++
			return
		}
	}
}

// laneDraw is draw followed by serve on the lane: attempt k of r, sent now
// to model m, drawn from the stream of (request, attempt k) exactly as draw
// does, and served at once.
func (e *engine) laneDraw(r *request, m, k int) {
	if b := e.batch; b != nil {
		d := b.entry(m, k)
		if d.id != b.id { // the first run to send it draws it
			kind, first, end := e.laneDrawn(r, m, k)
			*d = drawnAttempt{id: b.id, first: first, end: end, kind: kind}
		}
		e.laneServe(r, m, k, d.kind, d.first, d.end)
		return
	}
	kind, first, end := e.laneDrawn(r, m, k)
	e.laneServe(r, m, k, kind, first, end)
}

// laneDrawn draws attempt k of r to model m from the stream of (request,
// attempt k) exactly as draw does: how it will end, and when its first
// token (or whole answer) and its end come after its send.
func (e *engine) laneDrawn(r *request, m, k int) (kind outcome, first, end time.Duration) {
	lm := &e.ln.models[m]
	md, ms := lm.md, lm.ms
	src := e.rng.at(r.id, uint8(k))
	if lm.plain {
		// Neither an error nor an invalid rate, and a whole-call latency:
		// the three draws before it are unused (as below), the rest is
		// the default case below.
		src.skip3()
		first = seconds(ms.latency.rand(src))
		return outOK, first, first
	}
	// The error and invalid draws decide only against a rate above 0 (no
	// u in [0, 1) is below a rate ≤ 0), and the degraded-period draw is
	// unused without slowdowns: an unused draw only steps the stream.
	uErr, uInv := 1.0, 1.0
	if md.ErrorRate > 0 {
		uErr = src.float64()
	} else {
		src.skip()
	}
	if md.InvalidRate > 0 {
		uInv = src.float64()
	} else {
		src.skip()
	}
	src.skip()
	var decode time.Duration
	if md.Latency != nil {
		first = seconds(ms.latency.rand(src))
	} else {
		first, decode = ms.streamDraw(md, r, src)
	}
	kind, end = outOK, first+decode
	switch {
	case uErr < md.ErrorRate:
		kind = outError
		if md.ErrorLatency != nil {
			if w := seconds(ms.errLatency.rand(src)); w >= 0 {
				end = w
			}
		}
	case uInv < md.InvalidRate:
		kind = outInvalid
	}
	return kind, first, end
}

// laneServe sets up attempt k of r, sent now to model m and served at
// once: it will end as kind, its first token (or whole answer) first and
// its end end after now.
func (e *engine) laneServe(r *request, m, k int, kind outcome, first, end time.Duration) {
	a := &r.att[k]
	a.model, a.prov = int32(m), e.ln.models[m].prov
	a.kind, a.state = kind, attInFlight
	a.queued, a.serving, a.started = false, false, true
	a.start, a.svc, a.genFrom = e.now, e.now, e.now
	a.streamed = e.ln.models[m].md.Latency == nil
	a.first, a.end = e.now+first, e.now+end
	if a.streamed {
		a.genFrom = a.first
	}
}

// laneRespond is respond on the lane: attempt k's deciding response.
func (e *engine) laneRespond(r *request, k int) {
	a := &r.att[k]
	lc := e.ln.cur
	p := lc.p
	e.ln.on &^= 1 << k
	r.inflight--
	win := p.wins(a.kind)
	at := e.now
	if lc.firstToken && (a.kind == outOK || a.kind == outInvalid) {
		at = a.end // the answer streams on to its end
	}
	e.laneExit(r, a, at, a.kind, win)
	if win {
		r.doneAt, r.firstAt = at, a.first
		e.laneFinish(r, a.kind)
		return
	}
	// fail, on the lane: no 429s here, so no retry-after hint.
	r.lastFail = a.kind
	switch p.rule(a.kind) {
	case Fatal:
		e.laneFinish(r, a.kind)
		return
	case NonFatal:
		if int(r.sent) <= lc.copies {
			e.laneSend(r)
		}
	}
	e.laneSettle(r)
}

// laneSettle is settle on the lane.
func (e *engine) laneSettle(r *request) {
	if r.inflight == 0 && (int(r.sent) > e.ln.cur.copies || r.timer == noTimer) {
		e.laneFinish(r, r.lastFail)
	}
}

// laneFinish is finish on the lane: r ends now with outcome o and lets go of
// its attempts in flight, in the order they were sent. Each is abandoned
// and let go of (abandon, letGo): no queue holds it, so it leaves at its
// end or when its cancel lands, whichever comes first.
func (e *engine) laneFinish(r *request, o outcome) {
	ln := &e.ln
	lc := ln.cur
	ln.outcome = o
	if o == outTimeout && e.now == ln.cut {
		lc.st.requests-- // a pipeline's call cut at its end-to-end deadline: counted apart
	} else {
		e.countRequestIn(lc.st, r, o)
	}
	for m := ln.on; m != 0; m &= m - 1 {
		a := &r.att[bits.TrailingZeros32(m)]
		r.inflight--
		cancelAt := never
		if ln.models[a.model].cancels {
			cancelAt = e.now + lc.cancel
		}
		if a.end <= cancelAt {
			e.laneExit(r, a, a.end, a.kind, false)
		} else {
			e.laneExit(r, a, cancelAt, outCancelled, false)
		}
	}
	ln.on = 0
	r.ended = true
}

// laneExit is exit on the lane, where an attempt waits in no queue, holds
// no slot and no breaker probe, is served from when it is sent and writes
// no trace row: a is counted (in its tally), billed as charge bills it and
// its time in service added.
func (e *engine) laneExit(r *request, a *attempt, at time.Duration, how outcome, won bool) {
	a.state = attExited
	lc := e.ln.cur
	t := &lc.tally[a.model]
	e.lastEvent = max(e.lastEvent, at)
	t.last = max(t.last, at)
	if at > a.svc {
		t.busy.add(at - a.svc)
	}
	st := lc.st
	switch {
	case how == outOK || how == outInvalid:
		// charge: an answer is billed in full.
		if how == outOK {
			t.completed++
			if won { // who won: the primary, or a copy to a.model
				if a == &r.att[0] {
					t.wonPrimary++
				} else {
					t.wonCopy++
				}
			}
		} else {
			t.invalid++
		}
		st.billed[2*a.model].add(r.in, r.out)
		if how == outInvalid || !won {
			st.wastedOutput += r.out
		}
	case how == outCancelled && at < a.end && (a.kind == outOK || a.kind == outError || a.kind == outInvalid):
		// charge of an attempt let go of before its end, having been
		// served from its send: per the policy's cancellation billing.
		t.cancelled++
		out, billed := cancelBilled(lc.billing, a, r.out, at)
		if !billed {
			return
		}
		st.billed[2*a.model+1].add(r.in, out)
		st.wastedOutput += out
	case how == outError && a.status == statusServer:
		t.failed++ // an error is not billed
	default: // not on the lane today: counted and billed as exit does
		st.count(&e.ln.models[a.model].pv.stats, how, a.status)
		e.charge(st, r, a, at, how, won)
	}
}
