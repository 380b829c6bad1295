package sim

import "time"

// respond handles the deciding response of attempt k, in flight: the
// attempt leaves the system through exit (a plain answer through answer,
// exit's copy for it), then either wins the request or is a failure
// handled by the policy's error rules.
func (e *engine) respond(slot int32, r *request, k int) {
	a := &r.att[k]
	if a.state != attInFlight {
		return
	}
	e.leaveFlight(r, k)
	if a.kind == outOK && e.plainAnswer>>(uint32(r.class)&63)&1 != 0 && (a.rep == 0 || !e.ewma) {
		// The commonest response: an answer, in a class none of whose
		// rules below looks at it (plainAnswers), seen by no latency
		// balancer. It wins now, through a call that is the last: this
		// path keeps nothing across a call, so it spills nothing.
		e.answer(slot, r, k, a)
		return
	}
	if a.kind == outOK && e.plainFirst>>(uint32(r.class)&63)&1 != 0 && (a.rep == 0 || !e.ewma) {
		e.answerFirst(slot, r, k, a) // as answer, the last call
		return
	}
	if a.rep != 0 && e.ewma {
		e.observe(a)
	}
	kind := a.kind
	if kind == outOK && e.plainAnswer>>(uint32(r.class)&63)&1 != 0 {
		e.answer(slot, r, k, a) // a plain answer a latency balancer saw
		return
	}
	p := &e.cfg.Classes[r.class].Policy
	answered := kind == outOK || kind == outInvalid
	// The throttle, the estimator, the 429 hint and the breakers are
	// looked at only when there are any: most runs have none.
	cs := &e.classes[r.class]
	if p.Budget.Throttle != nil {
		cs.attemptDone(p, kind == outOK)
	}
	if x := cs.est; x != nil && answered && (x.cfg.Source == FromAttempts || (x.cfg.Source == FromPrimaries && k == 0)) {
		x.add(e.now, e.now-a.start)
	}

	win := p.wins(kind)
	at := e.now
	if p.Winner == FirstToken && (answered || kind == outStalled) {
		at = a.end // the answer streams on to its end, or its cut
	}
	var retryAfter time.Duration
	if kind == outRateLimited {
		retryAfter = e.retryAfter(a)
	}
	status := a.status
	if e.breakers != nil {
		e.breakerSees(a, kind)
	}
	if e.retries != nil && kind != outOK && e.retryCall(slot, r, k, retryAfter) {
		return // the attempt retries: its request does not see the failure
	}
	e.exit(slot, r, k, at, kind, win)
	if win {
		r.doneAt, r.firstAt = at, a.first
		if kind != outOK {
			r.lastFail, r.lastStatus, r.lastAfter = kind, status, retryAfter
		}
		e.finish(slot, r, kind)
		return
	}
	e.fail(slot, r, kind, status, retryAfter)
}

// answer is respond's short path: attempt k of r, a, answered now in a
// class with its bit in plainAnswer, leaves the system as exit does an
// answer that won (at now) and wins r as finish does an answer, in one
// call. What exit and finish look at that cannot hold here is left out:
// breakers (plainAnswer is 0 with them), an estimator (none in the
// class), a rerun (the request is answered), a request already ended (r
// has an attempt in flight: finish lets go of all of them), and exit's
// run length (finish's own at now covers it).
func (e *engine) answer(slot int32, r *request, k int, a *attempt) {
	now := e.now
	a.state = attExited
	r.live--
	pv := &e.provs[a.prov]
	// served says a was not in a queue: a pool's replica books its service.
	served := true
	if a.queued { // exit's steps for a queued attempt, tested once
		if pv.pool != nil {
			e.leavePool(pv, a, now)
		}
		a.queued = false
		pv.waiting--
		served = false
	}
	if a.started {
		pv.lastEnd = max(pv.lastEnd, now)
		if pl := pv.pool; pl != nil && served && a.rep != 0 {
			pl.reps[a.rep-1].leftCold(now) // leaveService's
		}
		if d := now - a.svc; d > 0 {
			if pl := pv.pool; pl != nil && served && a.rep != 0 {
				pl.reps[a.rep-1].busySum.add(d) // leaveService's, with d at hand
			}
			pv.busySum.add(d)
			if e.batched {
				if row := e.rowOf(a); row != nil { // as in exit
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
	}
	st := &e.stats[r.class]
	st.completed++
	pv.stats.Completed++
	st.won[wonIndex(k, a.model)]++
	st.billed[2*a.model].add(r.in, r.out)
	if e.batched {
		if sb := st.times.secBill; sb != nil && e.grow == nil {
			if pr := st.prices; pr != nil {
				sb[2*int(r.sec)] += pr[a.model] // price's, of the class's tokens
			} else {
				sb[2*int(r.sec)] += price(&e.cfg.Models[a.model], r.in, r.out)
			}
		} else {
			e.billSection(st, r, a, r.in, r.out, true)
		}
	} else if e.costs != nil {
		e.billAttempt(r, a.model, r.in, r.out)
	}
	if e.trace != nil {
		e.emit(r, k, now, outOK.attemptName(), true, r.in, r.out, true)
	}
	// finish's steps for an answer.
	d := now - r.arrival
	st.answered++
	// endTimes.addAt's steps for an answer, without its call.
	t := &st.times
	i := t.a
	if i+t.m == len(t.buf) {
		t.grow()
	}
	t.a = i + 1
	t.sumA.add(d)
	t.sqA.addSquare(d)
	t.maxA = max(t.maxA, d)
	t.buf[i] = toSeconds32(d)
	if t.sec != nil {
		t.sec[i] = r.sec
		t.secLast[r.sec] = max(t.secLast[r.sec], r.arrival)
	}
	if p := e.pair; p != nil {
		// pairState.end's steps for an answer, without its call.
		id, pc := r.id, &st.pair
		met := d <= pc.slo
		if met {
			st.met++
			if rec := p.rec; rec != nil && id < rec.n {
				rec.words[id>>6] |= 1 << (id & 63)
			}
		}
		var rescued, harmed bool
		if b := p.base; b != nil && id < b.n {
			if was := b.words[id>>6]>>(id&63)&1 != 0; met && !was {
				rescued = true
				st.rescued++
			} else if !met && was {
				harmed = true
				st.harmed++
			}
		}
		if pc.fates != nil {
			countFate(pc.fates, r.sec, met, rescued, harmed)
		}
	}
	e.lastEvent = max(e.lastEvent, now)
	if a.serving {
		// exit's release of the slot, scheduled after the counts (which
		// schedule nothing), and before the losers' releases: written in
		// soon, numbered as scheduleRelease numbers it, when it may go
		// there (scheduleRelease's commonest case, without its call),
		// else by scheduleRelease. When soon is empty and may take it,
		// it would be soon's first event, handled right after this one:
		// it is numbered the same, but handled at the end of this call,
		// which is the last step of the current event (respond returns
		// after answer, and drain goes on to soon) — so before the events
		// the steps below put in soon, as from soon. Not in a run with
		// closed loops (answerReleases). Until then it is pending
		// (relPending), as though in soon. A pipeline call held (handOn) is
		// due before it: then it goes to soon.
		a.serving = false
		if e.answerReleases && len(e.soon) == 0 && e.handOn == 0 && !e.heapOnly && !e.nowQueued() {
			e.seq++
			e.relPending = true
		} else if ev := e.soonRoom(); ev != nil {
			e.seq++
			ev.at, ev.seq, ev.slot, ev.gen, ev.kind, ev.k = now, e.seq, a.prov, uint32(a.rep), evRelease, 0
		} else {
			e.scheduleRelease(now, a.prov, a.rep, r.class)
		}
	}
	switch {
	case r.inflight == 1 && e.retries == nil:
		// letGoAll's commonest case, without its call: one attempt in
		// flight, none waiting out a backoff. Of two attempts sent, it is
		// the other one (k left the flight), found without a look.
		j := 1 - k
		if r.sent != 2 {
			for j = range int(r.sent) {
				if r.att[j].state == attInFlight {
					break
				}
			}
		}
		e.leaveFlight(r, j)
		e.cancelLoser(slot, r, j, st)
	case r.inflight != 0:
		e.letGoAll(slot, r, hidByAnswer)
	}
	e.classes[r.class].inflightReqs--
	r.ended = true
	if e.loops != nil {
		e.ended(slot, r)
	}
	if r.pipe != 0 {
		// A pipeline's call: callEnded reads when its answer completed
		// and its first token.
		r.doneAt, r.firstAt = e.now, a.first
		e.callEnded(slot, r, outOK)
	}
	if r.live == 0 {
		e.retire(slot, r)
	}
	if e.relPending { // drain's handling of a release in soon
		e.relPending = false
		if a.rep != 0 {
			e.releaseReplica(int(a.prov), int(a.rep)-1)
		} else {
			e.release(int(a.prov))
		}
	}
}

// answerFirst is respond's steps for attempt k of r, a, answered now in a
// class with its bit in plainFirst (the first-token rule, nothing else to
// look at), seen by no latency balancer: it wins now, at its first token,
// and leaves the system at its end, a.end (≥ now). It takes exit's steps
// for an answer that won at a.end and finish's for an answer, in their
// order, as answer does — without what cannot hold here: breakers
// (plainFirst is 0 with them), an estimator (none in the class), a rerun
// (the request is answered) and a request already ended (r has an
// attempt in flight). TestPlainFirstIsRespond compares it with respond's
// whole path.
func (e *engine) answerFirst(slot int32, r *request, k int, a *attempt) {
	now, at := e.now, a.end
	a.state = attExited
	r.live--
	pv := &e.provs[a.prov]
	// served says a was not in a queue: a pool's replica books its service.
	served := true
	if a.queued { // exit's steps for a queued attempt, tested once
		if pv.pool != nil {
			e.leavePool(pv, a, at)
		}
		a.queued = false
		pv.waiting--
		served = false
	}
	if a.started {
		e.lastEvent = max(e.lastEvent, at)
		pv.lastEnd = max(pv.lastEnd, at)
		if d := at - a.svc; d > 0 {
			if pl := pv.pool; pl != nil && served && a.rep != 0 {
				pl.reps[a.rep-1].busySum.add(d) // leaveService's, with d at hand
			}
			pv.busySum.add(d)
			if e.batched {
				if row := e.rowOf(a); row != nil { // as in exit
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
	}
	st := &e.stats[r.class]
	st.completed++
	pv.stats.Completed++
	st.won[wonIndex(k, a.model)]++
	st.billed[2*a.model].add(r.in, r.out)
	if e.batched {
		if sb := st.times.secBill; sb != nil && e.grow == nil {
			if pr := st.prices; pr != nil {
				sb[2*int(r.sec)] += pr[a.model] // price's, of the class's tokens
			} else {
				sb[2*int(r.sec)] += price(&e.cfg.Models[a.model], r.in, r.out)
			}
		} else {
			e.billSection(st, r, a, r.in, r.out, true)
		}
	} else if e.costs != nil {
		e.billAttempt(r, a.model, r.in, r.out)
	}
	if e.trace != nil {
		e.emit(r, k, at, outOK.attemptName(), true, r.in, r.out, true)
	}
	if a.serving {
		a.serving = false
		e.scheduleRelease(max(at, now), a.prov, a.rep, r.class)
	}
	// finish's steps for an answer.
	d := now - r.arrival
	st.answered++
	// endTimes.addAt's steps for an answer, without its call.
	t := &st.times
	i := t.a
	if i+t.m == len(t.buf) {
		t.grow()
	}
	t.a = i + 1
	t.sumA.add(d)
	t.sqA.addSquare(d)
	t.maxA = max(t.maxA, d)
	t.buf[i] = toSeconds32(d)
	if t.sec != nil {
		t.sec[i] = r.sec
		t.secLast[r.sec] = max(t.secLast[r.sec], r.arrival)
	}
	if p := e.pair; p != nil {
		// pairState.end's steps for an answer, without its call.
		id, pc := r.id, &st.pair
		met := d <= pc.slo
		if met {
			st.met++
			if rec := p.rec; rec != nil && id < rec.n {
				rec.words[id>>6] |= 1 << (id & 63)
			}
		}
		var rescued, harmed bool
		if b := p.base; b != nil && id < b.n {
			if was := b.words[id>>6]>>(id&63)&1 != 0; met && !was {
				rescued = true
				st.rescued++
			} else if !met && was {
				harmed = true
				st.harmed++
			}
		}
		if pc.fates != nil {
			countFate(pc.fates, r.sec, met, rescued, harmed)
		}
	}
	e.lastEvent = max(e.lastEvent, now)
	switch {
	case r.inflight == 1 && e.retries == nil:
		// letGoAll's commonest case, as in answer.
		j := 1 - k
		if r.sent != 2 {
			for j = range int(r.sent) {
				if r.att[j].state == attInFlight {
					break
				}
			}
		}
		e.leaveFlight(r, j)
		e.cancelLoser(slot, r, j, st)
	case r.inflight != 0:
		e.letGoAll(slot, r, hidByAnswer)
	}
	e.classes[r.class].inflightReqs--
	r.ended = true
	if e.loops != nil {
		e.ended(slot, r)
	}
	if r.pipe != 0 {
		// A pipeline's call: callEnded reads when its answer completed
		// and its first token.
		r.doneAt, r.firstAt = at, a.first
		e.callEnded(slot, r, outOK)
	}
	if r.live == 0 {
		e.retire(slot, r)
	}
}

// endSetup gives each class's stats what the end of its requests and
// attempts reads of its configuration (its cancel latency and billing)
// and, when every request of the class has the same token counts (the
// class's constant input and output samplers, no trace giving them), the
// price of an attempt of those tokens billed in full to each model
// (classStats.prices), the very number price gives each.
func (e *engine) endSetup() {
	tr := e.cfg.Arrivals.Trace
	traced := tr != nil && (tr.Input != nil || tr.Output != nil)
	for c := range e.stats {
		st, cl := &e.stats[c], &e.cfg.Classes[c]
		st.cancelLatency, st.cancelBilling = cl.Policy.CancelLatency, cl.Policy.CancelBilling
		in, out := &e.inputs[c], &e.outputs[c]
		if c >= e.users || traced || in.kind != sampleConstant || out.kind != sampleConstant {
			continue // a pipeline's step, or tokens drawn or traced
		}
		st.prices = make([]float64, len(e.cfg.Models))
		for m := range e.cfg.Models {
			st.prices[m] = price(&e.cfg.Models[m], in.tok, out.tok)
		}
	}
}

// plainAnswers sets e.plainAnswer: bit c for each class c whose answered
// attempt wins at its response with nothing else to look at — no retry
// throttle, no adaptive delay's estimator, no first-token rule (which ends
// the request at the answer's end), and no breakers in the run — and
// e.plainFirst: the same, but with the first-token rule. The others, and
// every class of a run with more than 64, take respond's whole path.
func (e *engine) plainAnswers() {
	e.plainAnswer, e.plainFirst = 0, 0
	if e.breakers != nil || len(e.cfg.Classes) > 64 {
		return
	}
	for c := range e.cfg.Classes {
		p := &e.cfg.Classes[c].Policy
		if p.Budget.Throttle == nil && e.classes[c].est == nil {
			if p.Winner != FirstToken {
				e.plainAnswer |= 1 << c
			} else {
				e.plainFirst |= 1 << c
			}
		}
	}
}

// wins reports whether a response of the given kind ends the request
// under the policy's winner rule: a valid answer (FirstValid), any first
// token — of an answer valid or not, or of a stream later cut
// (FirstToken) — or any response (FirstResponse): a stream the client
// cuts is not one, as an attempt timeout is not.
func (p *Policy) wins(kind outcome) bool {
	switch p.Winner {
	case FirstToken:
		return kind == outOK || kind == outInvalid || kind == outStalled
	case FirstResponse:
		return kind != outStalled
	}
	return kind == outOK
}

// attemptTimeout abandons attempt k of r if it is still in flight: its
// request lets go of it as it does of a loser (abandon) and handles a
// failure of kind timeout.
func (e *engine) attemptTimeout(slot int32, r *request, k int) {
	if r.att[k].state == attBackoff {
		e.backoffTimeout(slot, r, k)
		return
	}
	if r.att[k].state != attInFlight {
		return
	}
	e.leaveFlight(r, k)
	e.breakerSees(&r.att[k], outAttemptTimeout)
	e.abandon(slot, r, k, outAttemptTimeout)
	e.classes[r.class].attemptDone(&e.cfg.Classes[r.class].Policy, false)
	e.fail(slot, r, outAttemptTimeout, statusServer, 0)
}

// abandon lets go of attempt k of r, which has just left its request's
// flight: the request has ended (as = outCancelled) or the attempt timed out
// (as = outAttemptTimeout). A cancel goes out now and lands the policy's
// cancel latency later — never, at a provider that ignores cancels. The
// attempt leaves the system at its response or when the cancel lands,
// whichever is first; until then it keeps its place in its provider's
// queue, or its slot.
func (e *engine) abandon(slot int32, r *request, k int, as outcome) {
	a := &r.att[k]
	if a.rep != 0 && e.ewma {
		e.observe(a)
	}
	a.abandonedAs = as
	if pv := &e.provs[a.prov]; pv.ignoresCancel {
		a.cancelAt = never
	} else {
		st := &e.stats[r.class]
		a.cancelAt = e.now + st.cancelLatency
		if as == outCancelled && !a.queued && !a.inBatch && a.kind == outOK && a.started && a.cancelAt < a.end {
			e.exitCancelled(slot, r, k, a, pv, st) // the commonest loser
			return
		}
	}
	if !a.queued { // letGo, without its call
		if a.inBatch {
			e.letGoBatch(slot, r, k)
			return
		}
		at, how := a.leaving()
		e.exit(slot, r, k, at, how, false)
		return
	}
	if a.cancelAt <= e.now {
		e.exit(slot, r, k, e.now, as, false) // leaves the queue at once
		return
	}
	a.state = attAbandoned
	if a.cancelAt != never {
		e.scheduleIn(fifoIndex(r.class, chanCancel), a.cancelAt, evCancel, slot, r.gen, uint8(k))
	}
}

// cancelLoser is abandon of attempt k of r as outCancelled, for answer:
// st is r's class's stats, which give the class's cancel latency and
// billing without a look at its policy. A change to abandon goes here too.
func (e *engine) cancelLoser(slot int32, r *request, k int, st *classStats) {
	a := &r.att[k]
	if a.rep != 0 && e.ewma {
		e.observe(a)
	}
	a.abandonedAs = outCancelled
	if pv := &e.provs[a.prov]; pv.ignoresCancel {
		a.cancelAt = never
	} else {
		a.cancelAt = e.now + st.cancelLatency
		if !a.queued && !a.inBatch && a.kind == outOK && a.started && a.cancelAt < a.end {
			e.exitCancelled(slot, r, k, a, pv, st) // the commonest loser
			return
		}
	}
	if !a.queued {
		if a.inBatch {
			e.letGoBatch(slot, r, k)
			return
		}
		at, how := a.leaving()
		e.exit(slot, r, k, at, how, false)
		return
	}
	if a.cancelAt <= e.now {
		e.exit(slot, r, k, e.now, outCancelled, false)
		return
	}
	a.state = attAbandoned
	if a.cancelAt != never {
		e.scheduleIn(fifoIndex(r.class, chanCancel), a.cancelAt, evCancel, slot, r.gen, uint8(k))
	}
}

// letGo decides when an attempt whose request has let go of it, and whose
// end is known (it is in service, or a gate has answered it), leaves: at
// its end if that comes before the cancel lands — a loser is then counted
// by its response (a completed loser is billed in full), a timed-out
// attempt as timed out but billed for the work done — otherwise when the
// cancel lands.
func (e *engine) letGo(slot int32, r *request, k int) {
	a := &r.att[k]
	if a.inBatch {
		e.letGoBatch(slot, r, k)
		return
	}
	at, how := a.leaving()
	e.exit(slot, r, k, at, how, false)
}

// leaving returns when and how attempt a, let go of by its request with
// its end known and not in a batch, leaves (letGo).
func (a *attempt) leaving() (time.Duration, outcome) {
	if a.end <= a.cancelAt {
		if a.abandonedAs == outAttemptTimeout {
			return a.end, outAttemptTimeout
		}
		return a.end, a.kind
	}
	return a.cancelAt, a.abandonedAs
}

// cancelLands handles the cancel of attempt k of r landing while the
// attempt still waits in its provider's queue: it leaves the queue, never
// having reached the model — or while it is in a replica's batch
// (batching.go): it leaves the batch.
func (e *engine) cancelLands(slot int32, r *request, k int) {
	a := &r.att[k]
	switch {
	case a.state != attAbandoned:
	case a.queued:
		e.exit(slot, r, k, e.now, a.abandonedAs, false)
	case a.inBatch:
		e.cancelBatch(slot, r, k)
	}
}

// exit is the one way an attempt leaves the system, whatever ended it. At
// time at (≥ now) it gives up its place at its provider — a place in the
// queue now, a slot at at (by an event, so that a slot freed now passes to
// the next waiter only after the current event) — and its time in service is
// added to the provider's busy time; it is counted once, by how it ended, in
// its class and its provider; it is billed; and its trace row is written. how
// is outOK, outInvalid, outError, outRateLimited or outRejected for an
// attempt that responded, outStalled for a stream cut (StreamCuts),
// outAttemptTimeout or outCancelled for one its request let go of; won says
// whether its response ended the request. A request whose last attempt leaves
// after it ended frees its slot. The commonest ends take copies of these
// steps: answer, answerFirst, exitCancelled and serveLetGo (a change here
// goes to them too).
func (e *engine) exit(slot int32, r *request, k int, at time.Duration, how outcome, won bool) {
	a := &r.att[k]
	a.state = attExited
	r.live--
	if e.breakers != nil && (a.probe || a.provProbe) { // only breakers mark probes
		e.breakersRelease(a)
	}
	pv := &e.provs[a.prov]
	if pl := pv.pool; pl != nil {
		if a.queued {
			e.leavePool(pv, a, at)
		} else {
			pl.leaveService(a, at) // leavePool's part, without its call
		}
	}
	if a.queued {
		a.queued = false
		pv.waiting--
	}
	if a.started {
		e.lastEvent = max(e.lastEvent, at)
		pv.lastEnd = max(pv.lastEnd, at)
		if d := at - a.svc; d > 0 {
			pv.busySum.add(d)
			if e.batched {
				// loadSection's common case, without its call: the
				// sections of the provider and of the replica are made
				// (their row of e.load.rows), and the run is not grown.
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
	}
	st := &e.stats[r.class]
	var in, out float64
	var billed bool
	// The common ends, an answer, a loser let go of before its answer and
	// one let go of before it reached the model (it left the queue: not
	// billed), are counted and billed here (as count and charge would)
	// without their calls.
	switch {
	case how == outOK:
		st.completed++
		pv.stats.Completed++
		if won {
			st.won[wonIndex(k, a.model)]++
		} else {
			st.wastedOutput += r.out
		}
		st.billed[2*a.model].add(r.in, r.out)
		in, out, billed = r.in, r.out, true
	case how == outCancelled && a.started && a.kind == outOK && at < a.end:
		st.cancelled++
		pv.stats.Cancelled++
		// cancelBilled of an answer, without its call.
		switch e.cfg.Classes[r.class].Policy.CancelBilling {
		case BillNone:
		case BillFull:
			out, billed = r.out, true
		case BillGenerated:
			out, billed = a.generated(r.out, at), true
		default:
			billed = true
		}
		if billed {
			in = r.in
			st.billed[2*a.model+1].add(in, out)
			st.wastedOutput += out
		}
	case how == outCancelled && !a.started:
		st.cancelled++
		pv.stats.Cancelled++
	default:
		st.count(&pv.stats, how, a.status)
		in, out, billed = e.charge(st, r, a, at, how, won)
	}
	if billed && e.batched {
		if sb := st.times.secBill; sb != nil && e.grow == nil {
			// A request's own attempt (only their classes have section
			// bills, not a pipeline step's), as billSection books it: at
			// 2·sec when it answered, 2·sec + 1 when cancelled.
			k := 2 * int(r.sec)
			if how != outOK && how != outInvalid {
				k++
			}
			sb[k] += price(&e.cfg.Models[a.model], in, out)
		} else {
			e.billSection(st, r, a, in, out, how == outOK || how == outInvalid)
		}
	} else if billed && e.costs != nil {
		e.billAttempt(r, a.model, in, out)
	}
	if e.trace != nil {
		e.emit(r, k, at, how.attemptName(), won, in, out, billed)
	}
	if r.ended && r.live == 0 {
		e.retire(slot, r)
	}
	if a.serving {
		// The slot goes to the next waiter once the current event is
		// handled, even when it frees now: the request this attempt won
		// first lets go of its own queued attempts.
		a.serving = false
		e.scheduleRelease(max(at, e.now), a.prov, a.rep, r.class)
	}
}

// exitCancelled is exit for the commonest loser: attempt k of r, a, in
// service (not queued, not in a batch) with an answer to come, which its
// request, ended, let go of and whose cancel lands before that answer
// ends (a.cancelAt < a.end). It leaves when the cancel lands, counted as
// cancelled and billed per its class's cancellation billing, as exit
// does it with at = a.cancelAt, how = outCancelled and won false. pv is
// a's provider and st its class's stats (with its cancellation billing),
// which abandon has at hand. serveLetGo has a copy of these steps for a
// loser that started after it was let go of (a change here goes to it
// too).
func (e *engine) exitCancelled(slot int32, r *request, k int, a *attempt, pv *provider, st *classStats) {
	at := a.cancelAt
	gen := r.gen // its response's, before retire
	a.state = attExited
	r.live--
	if e.breakers != nil && (a.probe || a.provProbe) {
		e.breakersRelease(a)
	}
	if pl := pv.pool; pl != nil {
		pl.leaveService(a, at)
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
	st.cancelled++
	pv.stats.Cancelled++
	// cancelBilled of an answer, without its call.
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
	if a.serving {
		a.serving = false
		e.releaseCancelled(at, a.prov, a.rep, r.class, slot, gen, k) // at ≥ now: a cancel latency is ≥ 0
	} else {
		e.dropResponse(slot, gen, k) // dead: the attempt has left
	}
}

// count adds one attempt that ended as how (an error of the given
// status) to its class's counts, st, and its provider's, pv.
func (st *classStats) count(pv *ProviderResult, how outcome, status failStatus) {
	switch how {
	case outOK:
		st.completed++
		pv.Completed++
	case outInvalid:
		st.invalidAtt++
		pv.Invalid++
	case outError:
		st.failed++
		st.failedBy[status]++
		pv.Failed++
	case outRateLimited:
		st.rateLimited++
		pv.RateLimited++
	case outRejected:
		st.rejected++
		pv.Rejected++
	case outAttemptTimeout:
		st.timedOut++
		pv.TimedOut++
	case outStalled:
		st.stalled++
		pv.Stalled++
	default:
		st.cancelled++
		pv.Cancelled++
	}
}

// charge bills attempt k of r, which leaves at time at having ended as
// how, and returns the tokens billed and whether it was billed at all. An
// answer (valid or not) is billed in full; an error, a 429 or a rejection
// is not. An attempt its request let go of is billed as a cancelled call:
// nothing if it never reached the model (it waited in a queue, or a gate
// answered it), in full if its work was done before it left (an error
// excepted), else per the policy's cancellation billing. A stream cut for
// a stall is billed as a cancelled call: its input and the output tokens
// streamed until the cut. st is the class's stats, e.stats[r.class].
func (e *engine) charge(st *classStats, r *request, a *attempt, at time.Duration, how outcome, won bool) (in, out float64, billed bool) {
	switch how {
	case outOK, outInvalid:
		st.billed[2*a.model].add(r.in, r.out)
		if how == outInvalid || !won {
			st.wastedOutput += r.out
		}
		return r.in, r.out, true
	case outError, outRateLimited, outRejected:
		return 0, 0, false
	case outStalled:
		in, out = r.in, a.generated(r.out, at)
		st.billed[2*a.model+1].add(in, out)
		st.wastedOutput += out
		return in, out, true
	}
	if !a.started || a.kind == outRateLimited || a.kind == outRejected {
		return 0, 0, false
	}
	in = r.in
	switch {
	case at >= a.end:
		switch a.kind {
		case outError:
			return 0, 0, false // the error came back first: errors are not billed
		case outStalled:
			out = a.generated(r.out, a.end) // cut before it finished
		default:
			out = r.out
		}
	default:
		b := e.cfg.Classes[r.class].Policy.CancelBilling
		var billed bool
		if out, billed = cancelBilled(b, a, r.out, at); !billed {
			return 0, 0, false
		}
		if b == BillFull && a.kind == outStalled {
			out = a.generated(r.out, a.end) // a cut stream never gets further
		}
	}
	st.billed[2*a.model+1].add(in, out)
	st.wastedOutput += out
	return in, out, true
}

// cancelBilled returns the output tokens billed under b for attempt a,
// of a request with out output tokens, let go of at at before its end
// (an error bills none), and whether the attempt is billed at all (not
// under BillNone).
func cancelBilled(b Billing, a *attempt, out float64, at time.Duration) (float64, bool) {
	switch {
	case b == BillNone:
		return 0, false
	case a.kind == outError:
		return 0, true
	case b == BillGenerated:
		return a.generated(out, at), true
	case b == BillFull:
		return out, true
	}
	return 0, true
}

// attemptName is how an attempt that ended as o is named in the trace.
func (o outcome) attemptName() string {
	switch o {
	case outOK:
		return "completed"
	case outInvalid:
		return "invalid"
	case outError:
		return "failed"
	case outRateLimited:
		return "rate_limited"
	case outRejected:
		return "rejected"
	case outAttemptTimeout:
		return "timed_out"
	case outStalled:
		return "stalled"
	}
	return "cancelled"
}

// retryAfter returns the retry-after hint of a 429, or 0.
func (e *engine) retryAfter(a *attempt) time.Duration {
	if a.kind != outRateLimited {
		return 0
	}
	if a.limitedBy == 0 {
		return e.cfg.Models[a.model].Failures.RateLimited.RetryAfter // a 429 the model answered itself
	}
	return e.gates[a.model][a.limitedBy-1].rejection().RetryAfter
}
