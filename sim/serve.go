package sim

// serveReplica is serveAt for an attempt at a pool's replica, rp
// (&pv.pool.reps[a.rep-1]), as the pool's dispatch and the release of a
// replica's slot start one.
//
// Most such attempts start at a replica with no stages but a
// straggler's slowdown and no batch, not streamed, neither failed
// already nor let go of: serveReplica serves those itself, in a path
// that makes no call before the response's, and hands the rest to
// serveAt.
func (e *engine) serveReplica(slot int32, r *request, k int, a *attempt, pv *provider, rp *replica) {
	if rp.general || a.streamed || a.kind.failed() || a.state == attAbandoned {
		e.serveAt(slot, r, k, a, pv, rp)
		return
	}
	// serveAt's steps for such an attempt: its wait booked at the
	// provider and at the replica, its work from the end of any cold
	// start, its response at its end or first token.
	now := e.now
	a.svc = now
	a.started = true
	wait := now - a.start
	pv.stats.started++
	if wait != 0 { // most attempts wait for nothing: their sums and waits stay
		pv.waitSum.add(wait)
		rp.waitSum.add(wait)
		rp.waits.add(toSeconds32(wait))
	}
	rp.stats.started++
	t0 := max(now, rp.warmAt)
	if f := rp.slow; f == 0 {
		a.first = t0 + a.workFirst
		a.end = t0 + (a.workFirst + a.workDecode)
	} else { // finishAll's values at the straggler's one stage
		a.first = t0 + satMul(a.workFirst, f)
		a.end = t0 + satMul(a.workFirst+a.workDecode, f)
	}
	a.genFrom = t0
	at := a.end
	// A class with its bit in plainAnswer has another winner rule than
	// FirstToken: its policy need not be looked up.
	if e.plainAnswer>>(uint32(r.class)&63)&1 == 0 && e.cfg.Classes[r.class].Policy.Winner == FirstToken {
		at = a.first
	}
	e.scheduleResponse(at, slot, r.gen, uint8(k))
}

// serveAt is serve with the attempt's replica at hand: rp is
// &pv.pool.reps[a.rep-1] for an attempt at a pool's replica (a.rep > 0),
// or nil, when serveAt looks it up.
func (e *engine) serveAt(slot int32, r *request, k int, a *attempt, pv *provider, rp *replica) {
	now := e.now
	a.svc = now
	a.started = true
	wait := now - a.start
	pv.waitSum.add(wait)
	pv.stats.started++
	// The work starts now, at the provider's stages — or, at a replica of
	// a pool, at its own stages once any cold start is over.
	stages, t0 := pv.stages, now
	batched := false
	if rp != nil || a.rep != 0 {
		if rp == nil {
			rp = &pv.pool.reps[a.rep-1]
		}
		// The replica books the wait (its sum, and each wait but 0 for
		// its percentiles; most attempts wait for nothing), written out
		// here: a call would cost more than the booking.
		rp.waitSum.add(wait)
		if wait != 0 {
			rp.waits.add(toSeconds32(wait))
		}
		rp.stats.started++
		stages, t0, batched = rp.stages, max(now, rp.warmAt), rp.batch != nil
	}
	// Only stages that may fail an attempt are asked whether it fails.
	if len(stages) != 0 && (rp == nil && pv.failing || rp != nil && rp.failing) {
		for _, st := range stages {
			if !a.kind.failed() && st.fails(t0, a.degU) {
				a.kind = outError
			}
		}
	}
	if batched && !a.kind.failed() {
		e.joinBatch(pv, slot, r, k) // its first token and end come as the batch goes
		if a.state == attAbandoned {
			e.letGo(slot, r, k)
		}
		return
	}
	if len(stages) == 0 { // finishAll's values, without its call
		a.first = t0 + a.workFirst
		a.end = t0 + (a.workFirst + a.workDecode)
	} else {
		a.first, a.end = finishPair(stages, t0, a.workFirst, a.workFirst+a.workDecode)
	}
	a.genFrom = t0
	p := &e.cfg.Classes[r.class].Policy
	if a.streamed {
		a.genFrom = a.first
		if !a.kind.failed() && shapes(&e.cfg.Models[a.model], p) {
			shapeStream(a, stages, t0, &p.StreamCuts, r.out)
		}
	}
	if a.kind.failed() && a.workErr >= 0 {
		a.end = finishAll(stages, t0, a.workErr)
	}
	if a.state == attAbandoned {
		e.letGo(slot, r, k)
		return
	}
	at := a.end
	if !a.kind.failed() && p.Winner == FirstToken {
		at = a.first
	}
	e.scheduleResponse(at, slot, r.gen, uint8(k))
}
