package sim

import (
	"math"
	"time"

	"github.com/hedgesim/hedgesim/dist"
)

// outcome is the fate of an attempt or a request.
type outcome uint8

const (
	outNone           outcome = iota
	outOK                     // a valid answer
	outError                  // an error response (5xx, outage)
	outRateLimited            // a 429 from a rate limit
	outInvalid                // an answer that is not usable
	outAttemptTimeout         // an attempt abandoned after its timeout
	outTimeout                // the request reached its deadline (requests only)
	outRejected               // an overload error (503/529) from a full provider
	outCancelled              // an attempt stopped by a cancel (attempts only)
	outStalled                // a stream cut for a stall or a crawl (StreamCuts)
)

// attState is where an attempt is in its life.
type attState uint8

const (
	// attInFlight: sent, and part of its request's flight (r.inflight).
	attInFlight attState = iota
	// attAbandoned: let go by its request (the request ended, or the
	// attempt timed out) while waiting in its provider's queue; it stays
	// there until its cancel lands or its service starts.
	attAbandoned
	// attExited: has left the system through exit and been accounted.
	attExited
	// attSkipped: a copy a budget denied, never sent.
	attSkipped
)

// attempt is one call to one model. Times are absolute simulated times.
// Until service starts (it may wait in its provider's queue), first, genFrom
// and end are unknown and the work fields hold what service will take.
//
// An attempt is sent (send), passes its provider's gates and queue
// (dispatch), is served (serve) and leaves the system exactly once, through
// exit, whatever ends it: its response (respond), its request letting go of
// it (abandon, when the request ends or the attempt times out) followed by
// its response or its cancel landing, whichever comes first.
type attempt struct {
	model   int32
	prov    int32
	kind    outcome  // what the call will return if it runs to the end
	state   attState // in flight, abandoned, exited or skipped
	queued  bool     // waiting in the provider's queue
	serving bool     // holds a slot of a provider with a concurrency limit
	started bool     // its service has started (svc is set)
	// Kind of error (for outError), and the circuit breaker's marks:
	// failed at once by the open breaker; let through by a half-open one
	// and not yet judged (probeGen: in which half-open period).
	status    failStatus
	byBreaker bool
	probe     bool
	start     time.Duration // when it was sent
	svc       time.Duration // when its service started
	first     time.Duration // first token (streamed form) or full answer
	genFrom   time.Duration // output tokens are generated linearly from here …
	end       time.Duration // … to here; for an error, a 429 or a rejection, when it arrives

	// Once let go by its request: why (outCancelled or outAttemptTimeout)
	// and when the cancel lands (never, at a provider that ignores them).
	abandonedAs outcome
	try         uint8 // the call's try within the attempt (retry.go): 0 first, n retry n
	// rep is 1 + the index of the replica the call went to, at a
	// provider with a pool (pool.go); 0 otherwise. A retried call keeps
	// its last one's until dispatch picks its own.
	rep      uint16
	probeGen uint32
	cancelAt time.Duration

	// Work to do once in service: time to first token (or the whole call),
	// then decoding; for an error, the time until it is reported.
	workFirst, workDecode, workErr time.Duration
	degU                           float64 // uniform deciding a degraded-period failure
	streamed                       bool    // TTFT form: tokens flow from first on
	// The provider breaker's probe mark, as probe and probeGen are the
	// model breaker's (here, they fill streamed's padding).
	provProbe    bool
	inBatch      bool // in its replica's batch (batching.go)
	provProbeGen uint32
	// limitedBy is 1 + the index in its model's gates (engine.gates) of
	// the gate that answered 429, 0 for none: an index, not the gate, so
	// that an attempt — and a request — holds no pointer, and writing one
	// needs no write barrier nor its slots a scan by the collector.
	limitedBy uint8

	// A stream's pause (Stalls) runs from stallAt to stallEnd; output
	// tokens flow from genFrom to genTo outside it. genTo is 0 unless
	// serve shaped the stream (shapeStream); before service, stallAt is
	// the pause's work offset (−1: before the first token) and stallEnd
	// its length.
	stallAt, stallEnd, genTo time.Duration
}

// send sends the next copy of r now — unless a budget denies it, in which
// case the copy is skipped — and arms the timer of the one after it, or
// sends that at once when its gap is 0. A copy with a negative gap
// (fallback) gets no timer: only a failure under a NonFatal rule sends it.
// A copy denied while nothing of r is in flight stops the sending: no
// timer is armed, so settle ends the request at once with its last failure
// (gRPC A6: when no copy can be sent and none is in flight, the call ends)
// instead of idling until a later timer.
func (e *engine) send(slot int32, r *request) { e.sendAs(slot, r, &e.cfg.Classes[r.class]) }

// sendFirst is send of a new request r's primary (none of r sent, no
// timer pending, round 0), of class cl: sendAs's first turn with k = 0,
// which no budget denies and no copy's bookkeeping concerns, followed by
// sendAs's next turn only for a copy sent at once.
func (e *engine) sendFirst(slot int32, r *request, cl *Class) {
	p := &cl.Policy
	r.sent = 1
	a := &r.att[0]
	m := p.Primary
	if e.shared == nil || !e.sharesDraws[m] {
		e.draw(r, a, m, 0, 0)
	} else if !e.keptAttempt(r, a, m, 0) {
		e.draw(r, a, m, 0, 0)
		e.keepAttempt(r, m, 0)
	}
	r.inflight, r.live = 1, 1
	e.stats[r.class].sent++
	e.dispatchAt(slot, r, 0, a, p) // schedules events only: r stays live
	if p.Copies <= 0 {
		return
	}
	g := p.gap(1) // the policy's gap, or the adaptive delay in force
	if g > 0 && p.Adaptive != nil {
		g = max(e.classes[r.class].est.delay, 1) // a gap of 0 would mean "at once"
	}
	switch {
	case g < 0:
		// fallback: sent only after a failure
	case g > 0:
		r.timer = 1
		// Queued unless it could never fire (endsBy, for r with its one
		// attempt just sent: in flight, only its queue to look at).
		if t := e.now + g; e.queueAllTimers || !(cl.Deadline > 0 && r.arrival+cl.Deadline <= t) &&
			(p.AttemptTimeout > 0 || a.queued || !a.winsBy(cl, t)) {
			e.scheduleIn(fifoIndex(r.class, chanTimer), t, evTimer, slot, r.gen, 1)
		}
	default:
		e.sendAs(slot, r, cl) // copy 1 at once
	}
}

// sendAs is send given cl, r's class, which the caller has at hand. A
// request's primary in its first round (a pipeline's call: none of it
// sent, no timer pending) is sendFirst's.
func (e *engine) sendAs(slot int32, r *request, cl *Class) {
	if r.sent == 0 && r.round == 0 {
		e.sendFirst(slot, r, cl)
		return
	}
	p := &cl.Policy
	c := r.class
	cs := &e.classes[c] // the class's budgets and estimator, looked up once
	r.timer = noTimer
	for {
		k := int(r.sent)
		r.sent++
		if k == 0 || !cs.budgeted || e.allowInto(int(c), r, &cs.denied) { // allow's
			a := &r.att[k]
			// e.target's, without looking up the policy again
			m := p.target(k)
			if k > 0 && p.NewProvider {
				m = e.target(r, k)
			}
			// With e.shared (shared.go), a first call's draws kept by
			// another run are taken, and those drawn here kept.
			switch {
			case e.shared == nil || k >= sharedAttempts || r.round != 0 || !e.sharesDraws[m]:
				e.draw(r, a, m, k, 0)
			case !e.keptAttempt(r, a, m, k):
				e.draw(r, a, m, k, 0)
				e.keepAttempt(r, m, k)
			}
			r.inflight++
			r.live++
			st := &e.stats[c]
			st.sent++
			if k > 0 {
				cs.inflightCopies++
				if r.hedgedCopies == 0 {
					st.hedged++
				}
				r.hedgedCopies++
			}
			e.dispatchAt(slot, r, k, a, p) // schedules events only: r stays live
		} else {
			r.att[k], r.innov[k] = attempt{state: attSkipped}, 0
			if r.inflight == 0 {
				return
			}
		}
		if k >= p.Copies {
			return
		}
		g := p.gap(k + 1) // the policy's gap, or the adaptive delay in force
		if g > 0 && p.Adaptive != nil {
			g = max(cs.est.delay, 1) // a gap of 0 would mean "at once"
		}
		if g < 0 {
			return // fallback: sent only after a failure
		}
		if g > 0 {
			r.timer = uint8(k + 1)
			if !e.endsBy(cl, r, e.now+g) {
				e.scheduleIn(fifoIndex(c, chanTimer+k), e.now+g, evTimer, slot, r.gen, uint8(k+1))
			}
			return
		}
	}
}

// endsBy reports whether request r, of class cl, is certain to end no later than t — by
// its deadline, or by an attempt in service (not queued) whose response
// wins and is due by t — so that a hedge timer at t could never fire and
// need not be queued: either event was queued before the timer and pops
// first. An attempt timeout could intervene, so with one the answer is no.
func (e *engine) endsBy(cl *Class, r *request, t time.Duration) bool {
	if e.queueAllTimers {
		return false
	}
	if cl.Deadline > 0 && r.arrival+cl.Deadline <= t {
		return true
	}
	p := &cl.Policy
	if p.AttemptTimeout > 0 {
		return false
	}
	for k := 0; k < int(r.sent); k++ {
		a := &r.att[k]
		if a.state != attInFlight || a.queued {
			continue
		}
		at, wins := a.end, p.wins(a.kind)
		switch {
		case wins && p.Winner == FirstToken:
			at = a.first
		case p.Winner == FirstResponse && cl.AttemptRetry != nil:
			// A failed call an attempt retry takes wins nothing.
			wins = a.kind == outOK || a.kind == outInvalid
		}
		if wins && at <= t {
			return true
		}
	}
	return false
}

// winsBy reports whether attempt a, in flight and in service, of a
// request of class cl, wins its request with a response due by t:
// endsBy's test, with Policy.wins's switch over the winner taken once.
func (a *attempt) winsBy(cl *Class, t time.Duration) bool {
	switch kind := a.kind; cl.Policy.Winner {
	case FirstToken:
		return (kind == outOK || kind == outInvalid || kind == outStalled) && a.first <= t
	case FirstResponse:
		if cl.AttemptRetry != nil {
			// A failed call an attempt retry takes wins nothing.
			return (kind == outOK || kind == outInvalid) && a.end <= t
		}
		return kind != outStalled && a.end <= t
	}
	return a.kind == outOK && a.end <= t
}

// noTimer marks a request with no hedge timer pending.
const noTimer = 0xff

// target returns the model copy k of r goes to.
func (e *engine) target(r *request, k int) int {
	p := &e.cfg.Classes[r.class].Policy
	if k > 0 && p.NewProvider {
		for _, m := range p.Targets {
			tried := false
			for j := range k {
				a := &r.att[j]
				if a.state != attSkipped && e.modelProv[a.model] == e.modelProv[m] {
					tried = true
					break
				}
			}
			if !tried {
				return m
			}
		}
	}
	return p.target(k)
}

// dispatch takes attempt k of r, just sent, through its provider: the rate
// limits (over a limit: a 429 after the reject latency), then the
// concurrency limit — a slot, a place in the FIFO queue, or, at a provider
// that rejects when full, an overload error at once — then service.
func (e *engine) dispatch(slot int32, r *request, k int) {
	e.dispatchAt(slot, r, k, &r.att[k], &e.cfg.Classes[r.class].Policy)
}

// dispatchAt is dispatch given a, &r.att[k], and p, r's class's policy,
// which send has at hand.
func (e *engine) dispatchAt(slot int32, r *request, k int, a *attempt, p *Policy) {
	pv := &e.provs[a.prov]
	pv.stats.Sent++
	e.modelSent[a.model]++
	avoid := a.rep // a retried call's last replica (resend), else 0
	a.rep = 0
	if to := p.AttemptTimeout; to > 0 && a.try == 0 {
		e.schedule(e.now+to, evAttemptTimeout, slot, r.gen, uint8(k))
	}
	if e.breakers != nil {
		if !e.breakersAdmit(a) {
			a.kind, a.byBreaker = outRejected, true
			a.svc, a.first, a.genFrom, a.end = e.now, e.now, e.now, e.now
			e.scheduleResponse(a.end, slot, r.gen, uint8(k))
			return
		}
	}
	if e.gatedMask>>(uint32(a.model)&63)&1 != 0 { // a's model may have a rate limit
		if gs := e.gates[a.model]; len(gs) > 0 {
			if by := admitAll(e.now, r.in+r.out, gs); by != 0 {
				a.kind = outRateLimited
				a.limitedBy = uint8(by)
				pv.stats.limited++
				a.svc, a.first, a.genFrom = e.now, e.now, e.now
				a.end = e.now + gs[by-1].rejection().RejectLatency
				e.scheduleResponse(a.end, slot, r.gen, uint8(k))
				return
			}
		}
	}
	if pv.pool != nil {
		e.dispatchPool(slot, r, k, a, pv, avoid)
		return
	}
	if pv.capacity > 0 {
		if pv.busy >= pv.capacity {
			if pv.bounded && pv.waiting >= pv.queueLimit {
				a.kind = outRejected
				a.svc, a.first, a.genFrom, a.end = e.now, e.now, e.now, e.now
				e.scheduleResponse(a.end, slot, r.gen, uint8(k))
				return
			}
			a.queued = true
			pv.waiting++
			pv.enqueue(waiter{slot: slot, gen: r.gen, k: uint8(k)})
			return
		}
		pv.busy++
		a.serving = true
	}
	if e.plainServe(a, pv) {
		e.servePlain(slot, r, k, a, pv)
		return
	}
	e.serveAt(slot, r, k, a, pv, nil)
}

// plainServe reports whether servePlain may start the service of attempt
// a at provider pv, which has no pool, rather than serveAt: no stage of
// pv may fail the attempt (pv has no degraded periods, or none with an
// error rate), and a is at no replica, not streamed unless no stream is
// ever shaped (shaping), neither failed already nor let go of — most
// attempts at such a provider. The two places that start such a service,
// dispatchAt and release, ask it and call one or the other (a function
// calling both would not be inlined, and its call would cost serveAt's
// path more than the test).
func (e *engine) plainServe(a *attempt, pv *provider) bool {
	return !pv.failing && a.rep == 0 && (!a.streamed || !e.shaping) && !a.kind.failed() && a.state != attAbandoned
}

// servePlain starts the service of attempt k of r, a, now at provider pv
// when plainServe says it may: serveAt's steps for such an attempt,
// without its other cases' tests — its wait booked, its first token and
// end its work from now, stretched by pv's stages, a stream's tokens
// flowing from its first, its deciding response scheduled.
func (e *engine) servePlain(slot int32, r *request, k int, a *attempt, pv *provider) {
	now := e.now
	a.svc = now
	a.started = true
	pv.waitSum.add(now - a.start)
	pv.stats.started++
	if st := pv.stages; len(st) == 0 { // finishPair's values, without its call
		a.first = now + a.workFirst
		a.end = now + (a.workFirst + a.workDecode)
	} else if g, ok := st[0].(*regime); ok && len(st) == 1 { // finishPair's one stage, called directly
		a.first, a.end = g.finishPair(now, a.workFirst, a.workFirst+a.workDecode)
	} else {
		a.first, a.end = finishPair(st, now, a.workFirst, a.workFirst+a.workDecode)
	}
	a.genFrom = now
	if a.streamed {
		a.genFrom = a.first
	}
	at := a.end
	// A class with its bit in plainAnswer has another winner rule than
	// FirstToken: its policy need not be looked up.
	if e.plainAnswer>>(uint32(r.class)&63)&1 == 0 && e.cfg.Classes[r.class].Policy.Winner == FirstToken {
		at = a.first
	}
	e.scheduleResponse(at, slot, r.gen, uint8(k))
}

// release frees one slot of provider i at now and starts the next attempt
// waiting in its queue, skipping entries whose attempt has left the queue
// (its cancel landed) or whose request slot has been reused.
func (e *engine) release(i int) {
	pv := &e.provs[i]
	pv.busy--
	if pv.waiting == 0 {
		// No attempt waits here (waiting counts those in the queue):
		// every entry left is one nextWaiter would skip, and leave the
		// queue empty. It is emptied without the look.
		pv.waitQueue.empty()
		return
	}
	w, r, a := e.nextWaiter(&pv.waitQueue)
	if a == nil {
		return
	}
	a.queued = false
	pv.waiting--
	a.serving = true
	pv.busy++
	if e.plainServe(a, pv) {
		e.servePlain(w.slot, r, int(w.k), a, pv)
		return
	}
	if a.state == attAbandoned && e.quickLetGo && a.abandonedAs == outCancelled && !pv.failing && pv.pool == nil && !a.streamed && a.kind == outOK {
		e.serveLetGo(w.slot, r, int(w.k), a, pv)
		return
	}
	e.serveAt(w.slot, r, int(w.k), a, pv, nil)
}

// serveLetGo is serveAt's steps for attempt k of r, a, at provider pv
// (no pool, no stage that may fail it), let go of by its request while it
// waited (outCancelled, its cancel on its way), unstreamed and with an
// answer to come, which reaches service now: it starts, its first token
// and end are worked out as serveAt works them out, and it leaves as letGo
// has it leave — when its cancel lands before its answer ends, by
// exitCancelled's steps written out here, its slot's release queued as
// exit queues it (no response of it was queued to turn into the release);
// else by letGo. TestServeLetGoIsServeAt compares runs with it and with
// serveAt.
func (e *engine) serveLetGo(slot int32, r *request, k int, a *attempt, pv *provider) {
	now := e.now
	a.svc = now
	a.started = true
	pv.waitSum.add(now - a.start)
	pv.stats.started++
	if st := pv.stages; len(st) == 0 {
		a.first = now + a.workFirst
		a.end = now + (a.workFirst + a.workDecode)
	} else {
		a.first, a.end = finishPair(st, now, a.workFirst, a.workFirst+a.workDecode)
	}
	a.genFrom = now
	at := a.cancelAt
	if at >= a.end {
		e.letGo(slot, r, k)
		return
	}
	// exitCancelled's steps (a pool's are left out: pv has none).
	a.state = attExited
	r.live--
	if e.breakers != nil && (a.probe || a.provProbe) {
		e.breakersRelease(a)
	}
	e.lastEvent = max(e.lastEvent, at)
	pv.lastEnd = max(pv.lastEnd, at)
	if d := at - a.svc; d > 0 {
		pv.busySum.add(d)
		if e.batched {
			if row := e.rowOf(a); row != nil {
				k, s := r.sec, posSeconds(d)
				row.prov[k] += s
				if row.rep != nil {
					row.rep[k] += s
				}
			} else {
				e.loadSection(pv, r, a, d)
			}
		}
	}
	st := &e.stats[r.class]
	st.cancelled++
	pv.stats.Cancelled++
	var in, out float64
	billed := true
	switch st.cancelBilling {
	case BillNone:
		billed = false
	case BillFull:
		out = r.out
	case BillGenerated:
		out = a.generated(r.out, at)
	}
	if billed {
		in = r.in
		st.billed[2*a.model+1].add(in, out)
		st.wastedOutput += out
		if e.batched {
			if sb := st.times.secBill; sb != nil && e.grow == nil {
				if pr := st.prices; pr != nil && st.cancelBilling == BillFull {
					sb[2*int(r.sec)+1] += pr[a.model] // billed in full: in, out are the class's tokens
				} else {
					sb[2*int(r.sec)+1] += price(&e.cfg.Models[a.model], in, out)
				}
			} else {
				e.billSection(st, r, a, in, out, false)
			}
		} else if e.costs != nil {
			e.billAttempt(r, a.model, in, out)
		}
	}
	if e.trace != nil {
		e.emit(r, k, at, outCancelled.attemptName(), false, in, out, billed)
	}
	if r.ended && r.live == 0 {
		e.retire(slot, r)
	}
	a.serving = false // exit's release of the slot
	e.scheduleRelease(max(at, now), a.prov, a.rep, r.class)
}

// nextWaiter takes from q the first attempt still waiting in it, with its
// request, skipping entries whose attempt has left the queue (its cancel
// landed) or whose request slot has been reused; a is nil when none is
// left.
func (e *engine) nextWaiter(q *waitQueue) (w waiter, r *request, a *attempt) {
	for {
		w, ok := q.dequeue()
		if !ok {
			return w, nil, nil
		}
		r := &e.slots[w.slot]
		if r.gen != w.gen {
			continue
		}
		if a := &r.att[w.k]; a.queued {
			return w, r, a
		}
	}
}

// copulaWork sets the work of attempt a of r to model md (index m) at
// normal score z: a slow draw is slow throughout, TTFT at score z, decode
// and prefill speeds at −z. (draw's general branch has its steps written
// out.)
func (e *engine) copulaWork(r *request, a *attempt, md *Model, m int, z float64) {
	if md.Latency != nil {
		a.workFirst = seconds(e.models[m].latency.fromNormal(md.Latency, z))
		return
	}
	a.streamed = true
	first := dist.FromNormal(md.TTFT, z)
	a.workDecode = seconds(r.out / dist.FromNormal(md.TokensPerSecond, -z))
	if md.PrefillTokensPerSecond != nil {
		first += r.in / dist.FromNormal(md.PrefillTokensPerSecond, -z)
	}
	a.workFirst = seconds(first)
}

// plainDraw says whether the draws of an attempt to a model are plain
// (draw's first branches): the model fails in no way (no error rate, no
// invalid answers, no Failures), has no stalls and draws no stage
// failure's latency (stagefail.go); whether the run has a
// copula (plainCopula); and, without one, whether its latency is one draw
// — of a gamma, a lognormal or an exponential, which draw takes without
// sampler.rand's call and switch, or of another kind — or streamed.
type plainDraw uint8

const (
	notPlain    plainDraw = iota
	plainCopula           // a plain model in a run with a copula
	plainLatency
	plainStreamed
	plainGamma     // a one-draw latency of sampler kind sampleGamma
	plainLogNormal // … of sampleLogNormal
	plainExp       // … of sampleExp
)

// plainDrawOf returns the plainDraw of model md, whose latency's sampler
// is of kind lat, in a run with a copula or without (correlated), whose
// attempts draw a stage failure's latency or not (stageErr).
func plainDrawOf(md *Model, lat samplerKind, correlated, stageErr bool) plainDraw {
	switch {
	case md.ErrorRate > 0 || md.InvalidRate > 0 || md.Failures.any() || md.Stalls.Rate > 0 || stageErr:
		return notPlain
	case correlated:
		return plainCopula
	case md.Latency == nil:
		return plainStreamed
	case lat == sampleGamma:
		return plainGamma
	case lat == sampleLogNormal:
		return plainLogNormal
	case lat == sampleExp:
		return plainExp
	}
	return plainLatency
}

// draw fills attempt k of request r, a = &r.att[k], sent now to model m
// as call try of the attempt (retry.go: 0 for its first). It consumes only
// the stream of (request, attempt k) — and of its round and try, for a
// retried call — always in the same order, so the same attempt to the same
// model is identical under every policy; with a copula, attempt k's
// latency also depends on the normal draws of attempts < k.
func (e *engine) draw(r *request, a *attempt, m, k int, try uint8) {
	pd := e.plainDraws[m]
	if pd > plainCopula {
		// What follows, for a model that fails in no way and stalls
		// not, without a copula: the error and invalid draws only
		// step the stream.
		src := e.rng.of(r, uint8(k), tryKey(r.round, try))
		src.skip()
		src.skip()
		uDeg := src.float64()
		*a = attempt{}
		a.model, a.prov, a.start, a.kind = int32(m), int32(e.modelProv[m]), e.now, outOK
		a.degU, a.workErr, a.try = uDeg, -1, try
		// The latency: sampler.rand's cases of the commonest kinds
		// written out, without its call.
		ms := &e.models[m]
		switch s := &ms.latency; pd {
		case plainGamma:
			x, ok := s.gammaFirst(src)
			if !ok {
				x = s.gamma(src)
			}
			a.workFirst = seconds(x)
		case plainLogNormal:
			z, ok := s.norm.first(src.Uint64()) // normFloat64, its first step inline
			if !ok {
				z = src.normSlow()
			}
			a.workFirst = seconds(math.Exp(z*s.hi + s.lo))
		case plainExp:
			x, ok := s.exp.first(src.Uint64()) // expFloat64, its first step inline
			if !ok {
				x = src.expSlow()
			}
			a.workFirst = seconds(x / s.hi)
		case plainLatency:
			a.workFirst = seconds(s.rand(src))
		default:
			a.streamed = true
			a.workFirst, a.workDecode = ms.streamDraw(&e.cfg.Models[m], r, src)
		}
		return
	}
	md := &e.cfg.Models[m]
	if pd == plainCopula {
		// What follows, for a model that fails in no way and stalls
		// not, with a copula: no client-error nor stall draw, the error
		// and invalid draws only step the stream, and the attempt's
		// kind stays outOK.
		var first float64 // a re-run's first-round innovation, before src: one generator
		if r.round > 0 && try == 0 {
			first = e.firstInnovation(r.id, k)
		}
		src := e.rng.of(r, uint8(k), tryKey(r.round, try))
		src.skip()
		src.skip()
		uDeg := src.float64()
		*a = attempt{}
		a.model, a.prov, a.start, a.kind = int32(m), int32(e.modelProv[m]), e.now, outOK
		a.degU, a.workErr, a.try = uDeg, -1, try
		f, ok := e.norm.first(src.Uint64()) // normFloat64, its first step inline
		if !ok {
			f = src.normSlow()
		}
		z := e.score(r, k, try, first, f)
		if s := &e.models[m].latency; s.kind == sampleLogNormal { // fromNormal's lognormal, without copulaWork's and its calls
			a.workFirst = seconds(math.Exp(s.lo + s.hi*z))
			return
		}
		e.copulaWork(r, a, md, m, z)
		return
	}
	failures := md.Failures.any() // asked up to twice below
	u4xx := 1.0
	if md.Failures.ClientError.Rate > 0 {
		u4xx = uniform(e.rng.at(r.id, clientErrorStream)) // before src: one generator
	}
	// a retried call (retry.go) draws from its try's stream
	var stall time.Duration
	var stallFrac float64
	if md.Stalls.Rate > 0 {
		stall, stallFrac = e.drawStall(r, md, m, k, tryKey(r.round, try)) // before src too
	}
	var first float64 // a re-run's copula: its attempt's first-round innovation
	if e.copula != nil && r.round > 0 && try == 0 {
		first = e.firstInnovation(r.id, k)
	}
	src := e.rng.of(r, uint8(k), tryKey(r.round, try))
	// The error and invalid draws decide only against a rate above 0 (no
	// u in [0, 1) is below a rate ≤ 0) — the error draw also picks a
	// failure of Failures — so an unused one only steps the stream.
	uErr, uInv := 1.0, 1.0
	if md.ErrorRate > 0 || failures {
		uErr = src.float64()
	} else {
		src.skip()
	}
	if md.InvalidRate > 0 {
		uInv = src.float64()
	} else {
		src.skip()
	}
	uDeg := src.float64()
	// Zeroed in place, then filled: a composite literal with these fields
	// is built on the stack and copied, 152 bytes read back in 16-byte
	// pieces just after being written in smaller ones.
	*a = attempt{}
	a.model, a.prov, a.start, a.kind = int32(m), int32(e.modelProv[m]), e.now, outOK
	a.degU, a.workErr, a.try = uDeg, -1, try
	if e.copula != nil {
		f, ok := e.norm.first(src.Uint64()) // normFloat64, its first step inline
		if !ok {
			f = src.normSlow()
		}
		z := e.score(r, k, try, first, f)
		// copulaWork's steps, written out (this branch's attempts may
		// still fail below).
		if md.Latency != nil {
			a.workFirst = seconds(e.models[m].latency.fromNormal(md.Latency, z))
		} else {
			a.streamed = true
			first := dist.FromNormal(md.TTFT, z)
			a.workDecode = seconds(r.out / dist.FromNormal(md.TokensPerSecond, -z))
			if md.PrefillTokensPerSecond != nil {
				first += r.in / dist.FromNormal(md.PrefillTokensPerSecond, -z)
			}
			a.workFirst = seconds(first)
		}
	} else if ms := &e.models[m]; md.Latency != nil {
		a.workFirst = seconds(ms.latency.rand(src))
	} else {
		a.streamed = true
		a.workFirst, a.workDecode = ms.streamDraw(md, r, src)
	}
	if stall > 0 {
		a.stallEnd, a.stallAt = stall, -1
		if stallFrac >= 0 {
			a.stallAt = a.workFirst + time.Duration(math.Round(stallFrac*float64(a.workDecode)))
		}
	}
	switch {
	case u4xx < md.Failures.ClientError.Rate:
		a.drawFailure(md, uErr, u4xx, src) // the request's 4xx, whatever this attempt drew
	case uErr < md.ErrorRate:
		a.kind = outError
		if md.ErrorLatency != nil {
			a.workErr = seconds(e.models[m].errLatency.rand(src))
		}
	case uInv < md.InvalidRate:
		if failures {
			a.drawFailure(md, uErr, u4xx, src)
			if a.kind != outOK {
				break
			}
		}
		a.kind = outInvalid
	default:
		if failures {
			a.drawFailure(md, uErr, u4xx, src)
		}
	}
	// An attempt the model does not fail may still be failed by a stage
	// of its provider or replica at the start of its service: it then
	// comes back after the latency a server error of the model's would
	// have, drawn where that one's is — right after the latency, as
	// drawFailure drew nothing (stagefail.go).
	if e.stageErr != nil && e.stageErr[m] && !a.kind.failed() {
		a.workErr = e.drawStageErr(md, m, src)
	}
}
