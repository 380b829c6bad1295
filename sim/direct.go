package sim

import "math/bits"

// The direct path runs requests that cannot affect each other (see
// Config.independent) one at a time without an event queue. With no
// provider queue an attempt's response time is known when it is sent, so
// a request's pending events are few and of fixed kinds: its deadline, one
// live hedge timer, and per attempt its deciding response and its
// per-attempt timeout. flight keeps them in fixed slots and pop takes the
// earliest by a scan of at most 2·(MaxCopies+1)+2 entries, in exactly the
// (time, sequence) order the heap would give, so the result is the event
// loop's to the bit (TestDirectMatchesEventLoop).

// flight holds the pending events of the request in progress on the
// direct path.
type flight struct {
	deadline event
	timer    event
	resp     [MaxCopies + 1]event // deciding responses, by attempt
	timeout  [MaxCopies + 1]event // per-attempt timeouts, by attempt
	// deadlineOn and timerOn say whether those events are pending; bit k
	// of respOn and timeoutOn whether attempt k's are.
	deadlineOn, timerOn bool
	respOn, timeoutOn   uint16
}

// hold stores ev, scheduled while the direct path runs a request, and
// reports whether it did; any other kind (a provider slot's release, a
// queued attempt's cancel — which independent requests never schedule)
// goes to the heap, which pop also reads.
//
// Of two pending hedge timers only the one due first can fire: a timer
// fires only while its copy is the next to send, and copies are sent in
// order, so a timer for an earlier copy than the newest is stale, and of
// two for the same copy the later finds it sent. hold therefore keeps one.
func (f *flight) hold(ev event) bool {
	switch ev.kind {
	case evDeadline:
		f.deadline, f.deadlineOn = ev, true
	case evResponse:
		f.resp[ev.k] = ev
		f.respOn |= 1 << ev.k
	case evAttemptTimeout:
		f.timeout[ev.k] = ev
		f.timeoutOn |= 1 << ev.k
	case evTimer:
		if !f.timerOn || ev.k != f.timer.k || ev.before(&f.timer) {
			f.timer, f.timerOn = ev, true
		}
	default:
		return false
	}
	return true
}

// clear drops every pending event: the request has ended and all its
// attempts have left.
func (f *flight) clear() {
	f.deadlineOn, f.timerOn = false, false
	f.respOn, f.timeoutOn = 0, 0
}

// popDirect removes the request's next event in (time, sequence) order and
// returns it, in e.cur, or nil when none is pending.
func (e *engine) popDirect() *event {
	f := &e.fl
	var best *event
	var from int // 1 deadline, 2 timer, 3 response, 4 timeout, 5 heap
	if f.deadlineOn {
		best, from = &f.deadline, 1
	}
	if f.timerOn && (best == nil || f.timer.before(best)) {
		best, from = &f.timer, 2
	}
	for m := f.respOn; m != 0; m &= m - 1 {
		k := bits.TrailingZeros16(m)
		if best == nil || f.resp[k].before(best) {
			best, from = &f.resp[k], 3
		}
	}
	for m := f.timeoutOn; m != 0; m &= m - 1 {
		k := bits.TrailingZeros16(m)
		if best == nil || f.timeout[k].before(best) {
			best, from = &f.timeout[k], 4
		}
	}
	if e.q.n > 0 && (best == nil || e.q.ev[0].before(best)) {
		e.q.popInto(&e.cur)
		return &e.cur
	}
	switch from {
	case 0:
		return nil
	case 1:
		f.deadlineOn = false
	case 2:
		f.timerOn = false
	case 3:
		f.respOn &^= 1 << best.k
	case 4:
		f.timeoutOn &^= 1 << best.k
	}
	e.cur = *best
	return &e.cur
}

// runDirect runs independent requests one at a time: each arrives, then
// its events are handled in order until none is left, and only then does
// the next arrive.
func (e *engine) runDirect() {
	for e.more() {
		e.now = e.arrivalTime()
		e.costMark()
		e.arrive()
		for ev := e.popDirect(); ev != nil; ev = e.popDirect() {
			e.now = ev.at
			e.handle(ev)
			if e.seq >= e.lookAt && e.lookAtEvents() {
				return
			}
		}
	}
	e.costsDone()
}
