package sim

import (
	"math/bits"
	"time"
)

// schedule queues an event. Its fields are written where it will wait,
// one by one: a struct of six fields is not kept in registers, and building
// it on the stack and copying it costs a stalled load (the copy reads in
// 16 bytes what was just written in pieces).
func (e *engine) schedule(at time.Duration, kind eventKind, slot int32, gen uint32, k uint8) {
	e.seq++
	if e.isolated && e.fl.hold(event{at: at, seq: e.seq, slot: slot, gen: gen, kind: kind, k: k}) {
		return
	}
	var ev *event
	switch i := e.chanOf(at, kind, slot, k); {
	case kind == evArrival:
		ev, e.arrivalDue = &e.arrival, true
	case i >= 0 && !e.heapOnly && (len(e.chans[i].ev) == e.chans[i].i || e.chans[i].ev[len(e.chans[i].ev)-1].at <= at):
		// In (at, seq) order after the FIFO's tail: seq only grows.
		ev = e.chans[i].add()
		e.chanOn[i/64] |= 1 << (i % 64)
	default:
		ev = e.q.add(at, e.seq)
	}
	ev.at, ev.seq, ev.slot, ev.gen, ev.kind, ev.k = at, e.seq, slot, gen, kind, k
}

// The FIFOs of events (chans): events scheduled a fixed delay after the
// moment they are scheduled fall due in the order they are scheduled, so
// they need no heap. chans[0] takes any event due at once (a provider slot
// freed by a response, a rejection); then each class c has chansPerClass
// FIFOs from 1+c·chansPerClass: its deadlines, its queued losers' cancels,
// its attempt timeouts, its closed-loop clients' thinks (a constant think
// time), and its hedge timers for copy j, one FIFO per copy (a constant
// gap per copy). An event goes to its FIFO only when it is due no earlier
// than the FIFO's tail — an adaptive delay, a retry-after or a random
// think time can break the order — and to the heap otherwise, so each
// FIFO stays in (time, sequence) order and pop takes the earliest of the
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
	return 1 + int(c)*chansPerClass + off
}

// pop removes the next event in (time, sequence) order and returns it, in
// e.cur, or nil when nothing is left. Events live in three places, all
// ordered: the heap, the single pending arrival, and the FIFOs (chans)
// that are not empty. Requests that cannot affect each other are run by
// runDirect instead.
func (e *engine) pop() *event {
	var best *event
	src := -2 // -2 none, -1 heap, -3 arrival, ≥ 0 that FIFO
	if len(e.q) > 0 {
		best, src = &e.q[0], -1
	}
	for w, on := range e.chanOn {
		for ; on != 0; on &= on - 1 {
			i := w*64 + bits.TrailingZeros64(on)
			f := &e.chans[i]
			if h := &f.ev[f.i]; best == nil || h.before(best) {
				best, src = h, i
			}
		}
	}
	if e.arrivalDue && (best == nil || e.arrival.before(best)) {
		best, src = &e.arrival, -3
	}
	switch {
	case src == -2:
		return nil
	case src == -1:
		e.q.popInto(&e.cur)
		return &e.cur
	case src == -3:
		e.arrivalDue = false
		e.cur = e.arrival
		return &e.cur
	}
	f := &e.chans[src]
	e.cur = f.ev[f.i]
	f.i++
	if f.i == len(f.ev) {
		f.ev, f.i = f.ev[:0], 0
		e.chanOn[src/64] &^= 1 << (src % 64)
	}
	return &e.cur
}
