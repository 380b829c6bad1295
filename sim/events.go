package sim

import (
	"math"
	"time"
)

// schedule queues an event. Its fields are written where it will wait,
// one by one: a struct of six fields is not kept in registers, and building
// it on the stack and copying it costs a stalled load (the copy reads in
// 16 bytes what was just written in pieces). The commonest events have
// shortcuts that skip chanOf: scheduleResponse, scheduleRelease and
// scheduleArrival. The next arrival of a global run, the commonest, is
// written here; the rest by scheduleOther, called last so that no
// argument is saved around the call.
func (e *engine) schedule(at time.Duration, kind eventKind, slot int32, gen uint32, k uint8) {
	e.seq++
	if kind == evArrival && !e.isolated {
		ev := &e.arrival
		ev.at, ev.seq, ev.slot, ev.gen, ev.kind, ev.k = at, e.seq, slot, gen, kind, k
		return
	}
	e.scheduleOther(at, kind, slot, gen, k)
}

// scheduleOther is schedule for any event but the arrival of a global
// run, numbered e.seq.
func (e *engine) scheduleOther(at time.Duration, kind eventKind, slot int32, gen uint32, k uint8) {
	if e.isolated && e.fl.hold(event{at: at, seq: e.seq, slot: slot, gen: gen, kind: kind, k: k}) {
		return
	}
	if kind == evArrival {
		ev := &e.arrival
		ev.at, ev.seq, ev.slot, ev.gen, ev.kind, ev.k = at, e.seq, slot, gen, kind, k
		return
	}
	e.put(e.chanOf(at, kind, slot, k), at, kind, slot, gen, k)
}

// put queues an event due at at, numbered e.seq, in FIFO i — when i ≥ 0
// and the event keeps the FIFO in (at, seq) order — or else in the heap.
func (e *engine) put(i int, at time.Duration, kind eventKind, slot int32, gen uint32, k uint8) {
	if i == 0 && !e.heapOnly {
		e.queueNow(kind, slot, gen, k)
		return
	}
	var ev *event
	if f := e.fifoFor(i, at); f != nil {
		if len(f.ev) == f.i {
			e.newHead(i, at)
		}
		ev = f.add()
	} else {
		ev = e.q.add(at, e.seq)
	}
	ev.at, ev.seq, ev.slot, ev.gen, ev.kind, ev.k = at, e.seq, slot, gen, kind, k
}

// newHead makes the event due at at, numbered e.seq, the head of FIFO i,
// which is empty: it is due before chans[fmin]'s if it is due earlier,
// or at the same time and numbered lower (a deadline numbered before the
// events its request's arrival queued, queueDeadline), and before none
// when no FIFO has a head (fminAt is then the greatest time).
func (e *engine) newHead(i int, at time.Duration) {
	if at < e.fminAt || at == e.fminAt && e.seq < e.fminSeq || len(e.heads) == 0 {
		e.fmin, e.fminAt, e.fminSeq = i, at, e.seq
	}
	e.heads.insert(at, e.seq, i, len(e.chans))
}

// fifoFor returns FIFO i if an event due at at may go there: i ≥ 0, the
// FIFOs are in use, and at is no earlier than the FIFO's tail (seq only
// grows, so the FIFO stays in (at, seq) order). Otherwise it returns nil.
func (e *engine) fifoFor(i int, at time.Duration) *fifo {
	if i < 0 || e.heapOnly {
		return nil
	}
	f := &e.chans[i]
	if len(f.ev) == f.i || f.ev[len(f.ev)-1].at <= at {
		return f
	}
	return nil
}

// scheduleIn is schedule for an event the caller knows the FIFO of, i =
// chanOf(at, …) for at later than now, without calling chanOf: a
// deadline, a hedge timer or a cancel (fifoIndex). The commonest case,
// a FIFO that is not empty, whose tail is due no later and whose buffer
// has room, appends the event here rather than through put: what put
// would do then, without its other cases' checks; so does the next, an
// empty FIFO whose buffer is made, whose new head the event becomes.
func (e *engine) scheduleIn(i int, at time.Duration, kind eventKind, slot int32, gen uint32, k uint8) {
	if e.isolated {
		e.schedule(at, kind, slot, gen, k)
		return
	}
	e.seq++
	if at == e.now {
		i = 0
	} else if !e.heapOnly {
		f := &e.chans[i]
		// Not empty, room after the tail, and the tail due no later. The
		// head's index compared unsigned with the length proves the length
		// at least 1: the tail's index and the new event's need no check.
		if evs := f.ev; uint(f.i) < uint(len(evs)) && len(evs) < cap(evs) && evs[len(evs)-1].at <= at {
			n := len(evs)
			evs = evs[:n+1]
			f.ev = evs
			ev := &evs[n]
			ev.at, ev.seq, ev.slot, ev.gen, ev.kind, ev.k = at, e.seq, slot, gen, kind, k
			return
		} else if len(evs) == 0 && cap(evs) > 0 {
			// Empty, its buffer made: the event is its new head (put's
			// case, without its checks).
			evs = evs[:1]
			f.ev = evs
			ev := &evs[0]
			ev.at, ev.seq, ev.slot, ev.gen, ev.kind, ev.k = at, e.seq, slot, gen, kind, k
			e.newHead(i, at)
			return
		}
	}
	e.put(i, at, kind, slot, gen, k)
}

// queueDeadline queues the deadline of the request in slot, due at at,
// later than now, in FIFO i (its class's deadlines) and numbered seq,
// taken before its primary's events were (arriveFrom): scheduleIn's way,
// under that number, its commonest case written out. Deadlines are
// queued as their requests arrive, each a class's constant deadline
// after its arrival, so the FIFO holds only earlier ones, due no later
// and numbered lower: it stays in order. (A re-run's deadline, due at its
// first run's, joins the FIFO only when due no earlier than the tail,
// fifoFor, and was queued before: numbered lower.) Requests run one at
// a time (e.isolated) queue theirs at arrival.
func (e *engine) queueDeadline(i int, at time.Duration, seq uint64, slot int32, gen uint32) {
	if !e.heapOnly {
		f := &e.chans[i]
		if evs := f.ev; uint(f.i) < uint(len(evs)) && len(evs) < cap(evs) && evs[len(evs)-1].at <= at {
			n := len(evs)
			evs = evs[:n+1]
			f.ev = evs
			ev := &evs[n]
			ev.at, ev.seq, ev.slot, ev.gen, ev.kind, ev.k = at, seq, slot, gen, evDeadline, 0
			return
		}
	}
	last := e.seq
	e.seq = seq // the number put gives it
	e.put(i, at, evDeadline, slot, gen, 0)
	e.seq = last
}

// fifoIndex is the index in chans of FIFO off (chanDeadline …) of class c.
func fifoIndex(c int32, off int) int { return 1 + int(c)*chansPerClass + off }

// scheduleResponse queues the deciding response of attempt k of the
// request in slot: schedule without chanOf, which sends a response to
// due or soon (queueNow) when it is due now and to the heap otherwise.
func (e *engine) scheduleResponse(at time.Duration, slot int32, gen uint32, k uint8) {
	if e.isolated {
		e.schedule(at, evResponse, slot, gen, k)
		return
	}
	e.seq++
	if at == e.now && !e.heapOnly {
		e.queueNow(evResponse, slot, gen, k)
		return
	}
	ev := e.q.add(at, e.seq)
	ev.at, ev.seq, ev.slot, ev.gen, ev.kind, ev.k = at, e.seq, slot, gen, evResponse, k
}

// scheduleRelease queues the release of a slot of provider prov at at —
// of its replica rep − 1 when rep > 0 (the event's gen carries rep) —
// freed by an attempt of class c: to due or soon (queueNow) when it is
// due now; to the class's FIFO of cancels when it is due a cancel latency
// from now (the cancel of an attempt in service landing first), where it
// falls due in order with the cancels; to the heap otherwise. Independent
// requests (e.isolated) never hold a slot. The release of a loser let go
// of in service is queued by releaseCancelled, in its response's place.
func (e *engine) scheduleRelease(at time.Duration, prov int32, rep uint16, c int32) {
	e.seq++
	switch {
	case e.heapOnly:
	case at == e.now: // queueNow, its soon case inlined: no call
		if ev := e.soonRoom(); ev != nil {
			ev.at, ev.seq, ev.slot, ev.gen, ev.kind, ev.k = at, e.seq, prov, uint32(rep), evRelease, 0
			return
		}
		e.queueNowSlow(evRelease, prov, uint32(rep), 0)
		return
	case at == e.now+e.cfg.Classes[c].Policy.CancelLatency:
		e.put(fifoIndex(c, chanCancel), at, evRelease, prov, uint32(rep), 0)
		return
	}
	ev := e.q.add(at, e.seq)
	ev.at, ev.seq, ev.slot, ev.gen, ev.kind, ev.k = at, e.seq, prov, uint32(rep), evRelease, 0
}

// soonRoom returns the room for an event due now at the end of soon,
// made there, when soon has room and may take it (queueNow's soon case:
// nothing queued is due now, and the queues are not the heap alone);
// else nil, soon left as it was. The caller writes every field of the
// event. It is scheduleRelease's commonest case, and answer's, which
// writes the release of its slot there without calling scheduleRelease
// when soon already holds events (when soon is empty, answer handles the
// release itself, as its last step).
func (e *engine) soonRoom() *event {
	n := len(e.soon)
	if n == cap(e.soon) || e.heapOnly || e.nowQueued() {
		return nil
	}
	e.soon = e.soon[:n+1]
	return &e.soon[n]
}

// releaseCancelled queues the release at at of a slot of provider prov
// (of its replica rep − 1 when rep > 0) freed by attempt k of class c of
// the request in slot, of generation gen, let go of in service with its
// response still to come, later than at (exitCancelled). It is
// scheduleRelease, but when the release is due later than now it turns
// that response, which would be popped dead once the attempt has left,
// into the release where it waits in the heap — with the (at, seq)
// scheduleRelease would give it, so every event falls due in the same
// order — moved up (raise): the dead response's pop and the release's
// trip through the FIFO of cancels are saved for a look through the
// heap's last events (response). When the look does not find it (a large
// heap), the release is queued as scheduleRelease queues it and the
// response is popped dead, under the same (at, seq) as before. A release
// due now (a cancel latency of 0) is queued as scheduleRelease queues it,
// and the response leaves the heap (dropResponse).
func (e *engine) releaseCancelled(at time.Duration, prov int32, rep uint16, c int32, slot int32, gen uint32, k int) {
	if at == e.now && !e.heapOnly { // scheduleRelease's case, without its call: a cancel latency of 0
		e.dropResponse(slot, gen, k)
		e.seq++
		e.queueNow(evRelease, prov, uint32(rep), 0)
		return
	}
	if at > e.now && !e.isolated {
		if i := e.q.response(slot, gen, uint8(k), e.q.lookEnd()); i >= 0 {
			if e.q.ev[i].at > at {
				e.seq++
				ev := e.q.raise(i, at, e.seq)
				ev.at, ev.seq, ev.slot, ev.gen, ev.kind, ev.k = at, e.seq, prov, uint32(rep), evRelease, 0
				return
			}
		}
	}
	e.scheduleRelease(at, prov, rep, c)
}

// dropResponse takes out of the heap the response of attempt k of the
// request in slot, of generation gen, let go of in service with its
// response still to come (exitCancelled): it has left, so its response
// would be popped dead. Only a heap of at most q.look events is looked
// through, whole, a few instructions an event against the dead pop's
// 200 or so; a larger one keeps it, to be popped dead, which changes no
// event's (at, seq).
func (e *engine) dropResponse(slot int32, gen uint32, k int) {
	if e.q.n <= e.q.look && !e.isolated {
		e.q.removeResponse(slot, gen, uint8(k))
	}
}

// The FIFOs of events (chans): events scheduled a fixed delay after the
// moment they are scheduled fall due in the order they are scheduled, so
// they need no heap. FIFO 0, due, takes the events due at once (a
// provider slot freed by a response, a rejection) that soon cannot
// (dueNow): few, as it is only when some event queued is due now. Then each
// class c has chansPerClass FIFOs from 1+c·chansPerClass: its deadlines,
// its queued losers' cancels, its attempt timeouts, its closed-loop
// clients' thinks (a constant think time), and its hedge timers for copy
// j, one FIFO per copy (a constant gap per copy). An event goes to its FIFO only when it is due no earlier
// than the FIFO's tail — an adaptive delay, a retry-after or a random
// think time can break the order — and to the heap otherwise, so each
// FIFO stays in (time, sequence) order and drain takes the earliest of the
// heap's minimum and the FIFOs' heads.
const (
	chanDeadline = iota
	chanCancel
	chanTimeout
	chanThink
	chanTimer     // + j − 1 for copy j
	chansPerClass = chanTimer + MaxCopies
)

// chanOf returns the FIFO an event may go to, or −1 for the heap (a
// response, or a slot freed later: their times are drawn).
func (e *engine) chanOf(at time.Duration, kind eventKind, slot int32, k uint8) int {
	if at == e.now {
		return 0
	}
	var c int32
	var off int
	switch kind {
	case evDeadline:
		c, off = e.slots[slot].class, chanDeadline
	case evCancel:
		c, off = e.slots[slot].class, chanCancel
	case evAttemptTimeout:
		c, off = e.slots[slot].class, chanTimeout
	case evThink:
		c, off = e.clients[slot].class, chanThink
	case evTimer:
		if k == 0 {
			return -1
		}
		c, off = e.slots[slot].class, chanTimer+int(k)-1
	default:
		return -1
	}
	return fifoIndex(c, off)
}

// Where drain found the next event: the heap (or none, when the heap's
// minimum is noEvent), the pending arrival, or (≥ 0) that FIFO. noFIFO
// is fmin when no FIFO holds an event (noHead).
const (
	fromHeap    = -1
	noFIFO      = -2
	fromArrival = -3
)

// drain handles events in (time, sequence) order until none is left or
// the loop's look at stop ends it (lookAtEvents): the event loop of a
// global run (run, continueRun), each event taken and handled in one
// pass, without a call that returns it. Events live in three places, all
// ordered: the heap, the single pending arrival and the FIFOs (due, the
// events due now, among them), of which only the one with the earliest
// head, chans[fmin], can hold the next event. (Events due now scheduled
// when nothing queued is due now skip all three: they are handled from
// soon right after the event that scheduled them, see dueNow.) Requests that
// cannot affect each other are run by runDirect instead. An arrival is
// started here, without handle's switch; it is copied to e.cur all the
// same, which hold (fork.go) looks at.
func (e *engine) drain() {
	for {
		// The earliest (at, seq) so far, from src; nothing is due at
		// (maxDuration, MaxUint64), an empty heap's noEvent.
		m := e.q.min()
		at, seq, src := m.at, m.seq, fromHeap
		if e.fminAt < at || e.fminAt == at && e.fminSeq < seq { // never when fmin is noFIFO (noHead)
			at, seq, src = e.fminAt, e.fminSeq, e.fmin
		}
		if e.arrival.at < at || e.arrival.at == at && e.arrival.seq < seq { // never when none is pending (noArrival)
			src = fromArrival
		}
		switch src {
		case fromHeap:
			if e.q.n == 0 {
				return // nothing is left
			}
			e.q.popInto(&e.cur)
			e.now = e.cur.at
			if ev := &e.cur; ev.kind == evResponse { // the commonest: handle's case, inline
				if r := e.live(ev); r != nil {
					e.respond(ev.slot, r, int(ev.k))
				}
			} else {
				e.handle(ev) // if dead, handle drops it (checking here costs more)
			}
		case fromArrival:
			e.cur = e.arrival
			e.noArrival()
			e.now = e.cur.at
			if e.clients == nil || e.more() { // or closed-loop clients took the last requests
				e.arriveFrom(-1)
			}
		default:
			if !e.popFIFO(src) {
				continue
			}
			e.now = e.cur.at
			e.handle(&e.cur)
		}
		if e.handOn != 0 {
			e.handHeld()
		}
		if len(e.soon) > 0 { // handleSoon, written out: no call
			for i := 0; i < len(e.soon); i++ {
				e.cur = e.soon[i]
				if ev := &e.cur; ev.kind != evRelease {
					e.handle(ev)
				} else if ev.gen != 0 {
					e.releaseReplica(int(ev.slot), int(ev.gen-1))
				} else {
					e.release(int(ev.slot))
				}
			}
			e.soon = e.soon[:0]
		}
		if e.seq >= e.lookAt && e.lookAtEvents() { // spent, by the events scheduled; or held (fork.go)
			return
		}
	}
}

// popFIFO takes the head of FIFO i and reports whether handle
// would handle it (not dead), when it is moved to e.cur.
//
// An event at the head of a FIFO that handle would
// ignore (dead) is dropped here rather than handled: a deadline, timer
// or timeout of a request that has ended, or any event of a request whose
// slot has been reused. Once dead an event stays dead, so the dead events
// queued right behind it are dropped too: most deadlines go that way, in
// runs of hundreds.
func (e *engine) popFIFO(i int) bool {
	f := &e.chans[i]
	j := f.i
	ev := &f.ev[j]
	live := !e.dead(ev)
	if live {
		e.cur = *ev
		j++
	} else if ev.kind == evCancel || i == 0 {
		for j++; j < len(f.ev) && e.dead(&f.ev[j]); j++ {
		}
	} else {
		// A FIFO of deadlines, of attempt timeouts or of timers holds
		// events of one kind (chanOf), never dead by kind, so dead's
		// look at the kind is left out, and the FIFO and the slots are
		// held in locals, not loaded again for each event.
		evs, slots := f.ev, e.slots
		for j++; j < len(evs); j++ {
			if x := &evs[j]; slots[x.slot].gen == x.gen && !slots[x.slot].ended {
				break
			}
		}
	}
	if j == len(f.ev) {
		f.ev, f.i = f.ev[:0], 0
		e.heads = e.heads[:len(e.heads)-1]
	} else {
		f.i = j
		h := &f.ev[j]
		at, seq := h.at, h.seq
		// FIFO i is fmin, the last of heads: when its new head is due no
		// later than the head before it, it stays the earliest, and its
		// head's time and sequence are set where they are (next's and
		// refmin's outcome, without moving the head or reading it back).
		hs := e.heads
		if n := len(hs) - 1; n == 0 || !hs[n-1].dueBefore(at, seq) {
			hs[n].at, hs[n].seq = at, seq
			e.fminAt, e.fminSeq = at, seq
			return live
		}
		hs.next(at, seq)
	}
	e.refmin()
	return live
}

// refmin sets fmin to the FIFO whose head is due first, the last of
// heads, or to noFIFO when they are all empty: after that FIFO's head has
// left.
func (e *engine) refmin() {
	if n := len(e.heads); n > 0 {
		h := &e.heads[n-1]
		e.fmin, e.fminAt, e.fminSeq = h.i, h.at, h.seq
		return
	}
	e.noHead()
}

// noHead sets fmin to noFIFO, no FIFO holding an event, and
// its head's time and sequence to the greatest, which no event's in drain
// comes after: drain compares them without looking at fmin first. The
// event loop calls it before it first looks at them (drain).
func (e *engine) noHead() {
	e.fmin, e.fminAt, e.fminSeq = noFIFO, math.MaxInt64, math.MaxUint64
}

// noArrival marks the pending arrival as none: due at the greatest time
// and sequence, after every event, so drain compares it without a flag
// to test first. The event loop calls it before it first looks at it
// (run), and once it has taken the arrival (drain).
func (e *engine) noArrival() {
	e.arrival.at, e.arrival.seq = math.MaxInt64, math.MaxUint64
}

// dead reports whether handle would ignore ev: it belongs to a request
// whose slot has been reused, or, other than the cancel of a queued
// attempt, to a request that has ended. Arrivals, thinks, slot releases,
// batches and the events of a pipeline or a scaler (whose slot is no
// request's; due, FIFO 0, may hold them) are never dead.
func (e *engine) dead(ev *event) bool {
	if neverDead>>(ev.kind&31)&1 != 0 {
		return false
	}
	r := &e.slots[ev.slot]
	return r.gen != ev.gen || r.ended && ev.kind != evCancel
}

// neverDead has bit k set for the kinds of event that are never dead: a
// mask, one test rather than a switch's comparisons.
const neverDead = 1<<evArrival | 1<<evThink | 1<<evRelease | 1<<evBatch |
	1<<evPipeDeadline | 1<<evPipeCall | 1<<evScale

// dueNow returns where an event due now, scheduled now, goes: due,
// which holds only events due now, in order — or soon, when no event
// queued is due now. Such an event would be the next popped once the
// current one is handled (every event scheduled later comes after it),
// so the event loop handles it then, and the ones soon holds after it,
// in order, without drain's look at the queues (handleSoon). Events due
// now scheduled while soon holds some join them when still nothing
// queued is due now, and go to due otherwise: after soon's, which were
// scheduled before them.
// Requests run one at a time (e.isolated) pop their own way and never
// use soon.
func (e *engine) dueNow() *event {
	if e.nowQueued() {
		f := &e.chans[0]
		if len(f.ev) == f.i {
			e.newHead(0, e.now)
		}
		return f.add()
	}
	// The caller writes every field: the new element needs no zeroing
	// when soon has room.
	if n := len(e.soon); n < cap(e.soon) {
		e.soon = e.soon[:n+1]
		return &e.soon[n]
	}
	e.soon = append(e.soon, event{})
	return &e.soon[len(e.soon)-1]
}

// queueNow queues an event due now, numbered e.seq, where dueNow says:
// in soon, appended here when it has room, or else by queueNowSlow. The
// callers hand over the event's fields and keep none past the call, so
// they save no registers around it; nor does queueNow on its own path.
func (e *engine) queueNow(kind eventKind, slot int32, gen uint32, k uint8) {
	if n := len(e.soon); n < cap(e.soon) && !e.nowQueued() {
		e.soon = e.soon[:n+1]
		ev := &e.soon[n]
		ev.at, ev.seq, ev.slot, ev.gen, ev.kind, ev.k = e.now, e.seq, slot, gen, kind, k
		return
	}
	e.queueNowSlow(kind, slot, gen, k)
}

// queueNowSlow is queueNow by dueNow.
func (e *engine) queueNowSlow(kind eventKind, slot int32, gen uint32, k uint8) {
	ev := e.dueNow()
	ev.at, ev.seq, ev.slot, ev.gen, ev.kind, ev.k = e.now, e.seq, slot, gen, kind, k
}

// nowQueued reports whether an event due now must go to due rather than
// soon (dueNow): some event queued is due now, or requests run one at a
// time.
func (e *engine) nowQueued() bool {
	return e.isolated || e.q.min().at == e.now || // due's head, if any, is chans[fmin]'s: fminAt is now
		e.fminAt == e.now || e.arrival.at == e.now // never now when fmin is noFIFO (noHead) or no arrival is pending (noArrival)
}

// handleSoon handles the events in soon, in order, as drain would have
// taken them (dueNow), after a pipeline's call seen now that comes
// before them (handOn); those they schedule in soon are handled too. The
// commonest, the release of a slot (a replica's or a provider's), is
// handled without handle's switch. drain takes the same steps written out, without the
// call (a change here goes there too).
func (e *engine) handleSoon() {
	if e.handOn != 0 {
		e.handHeld()
	}
	for i := 0; i < len(e.soon); i++ {
		e.cur = e.soon[i]
		if ev := &e.cur; ev.kind != evRelease {
			e.handle(ev)
		} else if ev.gen != 0 {
			e.releaseReplica(int(ev.slot), int(ev.gen-1))
		} else {
			e.release(int(ev.slot))
		}
	}
	e.soon = e.soon[:0]
}
