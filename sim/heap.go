package sim

import "time"

// eventKind is what an event does when it is popped.
type eventKind uint8

const (
	evArrival  eventKind = iota // the next request arrives
	evTimer                     // a hedge timer fires: send copy k if still due
	evResponse                  // attempt k produces its deciding response
	evDeadline                  // the request's deadline passes
)

// event is one scheduled happening. Events of a finished request are not
// removed from the queue; they are dropped when popped because the slot's
// generation no longer matches (lazy cancellation).
type event struct {
	at   time.Duration // simulated time of the event
	seq  uint64        // insertion order, breaks ties in at
	slot int32         // request slot index
	gen  uint32        // slot generation the event was scheduled for
	kind eventKind
	k    uint8 // attempt or copy index
}

// before reports whether a is due before b: earlier time first, then earlier
// insertion, so equal-time events run in the order they were scheduled.
func (a *event) before(b *event) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// eventQueue is a binary min-heap of events ordered by (at, seq).
// Invariant: for every i > 0, !q[i].before(&q[(i-1)/2]); the minimum is q[0].
// push and pop cost O(log n) and allocate only when the backing slice grows.
type eventQueue []event

func (q *eventQueue) push(e event) {
	*q = append(*q, e)
	h := *q
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

// pop removes and returns the minimum event. The queue must not be empty.
func (q *eventQueue) pop() event {
	h := *q
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].before(&h[l]) {
			m = r
		}
		if !h[m].before(&h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}
