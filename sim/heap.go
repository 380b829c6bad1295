package sim

import (
	"math"
	"math/bits"
	"time"
	"unsafe"
)

// eventKind is what an event does when it is popped.
type eventKind uint8

const (
	evArrival        eventKind = iota // the next request arrives
	evTimer                           // a hedge timer fires: send copy k if still due
	evResponse                        // attempt k produces its deciding response
	evDeadline                        // the request's deadline passes
	evRelease                         // a provider slot frees (slot = provider index; gen = 1 + replica index at a pool, else 0)
	evAttemptTimeout                  // attempt k's per-attempt timeout expires
	evCancel                          // the cancel of attempt k, let go of while queued, lands
	evThink                           // a closed-loop client (slot = client index) ends its think
	evRetry                           // attempt k's backoff ends: its next call goes (retry.go)
	evRound                           // a request's re-run starts after its backoff (retry.go)
	evPipeDeadline                    // a pipeline's end-to-end deadline passes (slot = pipeline slot)
	evPipeCall                        // a pipeline sees a call end (slot = pipeline slot; pipeline_run.go)
	evBatch                           // a replica's batch reaches its next milestone (slot = provider index; gen = 1 + replica index; batching.go)
	evScale                           // a pool's scaler ticks (gen with tickBit) or a replica start ends (gen = its id; slot = provider index; scaler.go)
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
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}

// eventQueue is a 4-ary min-heap of events ordered by (at, seq): children
// of node i are 4i+1 … 4i+4. Invariant: for every 0 < i < n,
// !ev[i].before(&ev[(i-1)/4]); the minimum is ev[0]. push (add) costs
// O(log₄ n) comparisons, pop (popInto) O(4·log₄ n); neither allocates
// unless the backing slice grows. A 4-ary heap halves the depth of a binary one, which pays off
// because pops dominate.
//
// The heap is ev[:n], and ev is as long as the most events ever queued
// at once, so a pop, and a push but for a new most, stores only n:
// storing a slice header (a pointer) on every one would cost a write
// barrier while the garbage collector runs. (add stays small enough to
// be inlined.)
type eventQueue struct {
	ev []event // the heap is ev[:n]; len(ev) ≥ n
	n  int     // the number of events queued
	// look is how many events response looks through, from the last
	// back, and the most a heap may hold for dropResponse to look through
	// it: responseLook (the tests widen and narrow it).
	look int
}

// newEventQueue returns an empty queue with room for size events.
func newEventQueue(size int) eventQueue {
	q := eventQueue{ev: make([]event, 1, size), look: responseLook}
	q.ev[0] = noEvent
	return q
}

// min returns the queue's minimum, ev[0], without a bounds check: ev
// holds at least one event (newEventQueue), noEvent when the queue is
// empty.
func (q *eventQueue) min() *event { return (*event)(unsafe.Pointer(unsafe.SliceData(q.ev))) }

// noEvent is ev[0] of an empty queue made by newEventQueue: due at the
// greatest time and sequence, after every event, so the event loop reads
// the queue's minimum without testing n first (drain).
var noEvent = event{at: math.MaxInt64, seq: math.MaxUint64}

// add makes room for an event due at (at, seq) and returns where it goes:
// the caller writes the event there before the queue is used again.
func (q *eventQueue) add(at time.Duration, seq uint64) *event {
	i := q.n
	if i == len(q.ev) {
		q.ev = append(q.ev, event{}) // a new most queued at once
	}
	q.n++
	h := q.ev
	for i > 0 {
		p := (i - 1) >> 2 // (i − 1) / 4, as i > 0
		if h[p].at < at || h[p].at == at && h[p].seq < seq {
			break
		}
		h[i] = h[p]
		i = p
	}
	return &h[i]
}

// earlier returns all ones when the event at a is due before the one at
// b, else 0, without a branch: the borrow of (a.at, a.seq) − (b.at, b.seq)
// taken as 128-bit unsigned numbers (times are ≥ 0), as a mask.
func earlier(a, b unsafe.Pointer) uintptr {
	x, y := (*event)(a), (*event)(b)
	_, c := bits.Sub64(x.seq, y.seq, 0)
	_, c = bits.Sub64(uint64(x.at), uint64(y.at), c)
	return -uintptr(c)
}

// evSize is the size of an event in bytes, the stride of the heap.
const evSize = unsafe.Sizeof(event{})

// popInto moves the minimum event to *dst. The queue must not be empty.
// The hole left at the root moves down to a leaf, each smaller child
// moving up past it; then the last event, which fills it, moves up past
// every greater parent — rarely far, as a leaf is near the greatest (one
// comparison a level saved against sifting the last event down). A node
// with four children finds the least of them by a tournament of three
// comparisons without a branch (earlier): their outcomes are as good as
// random, and branches on them, mispredicted about half the time, cost
// more CPU time than the masks' few more instructions (BenchmarkPool/p2c
// about 12 % less, with a heap of about 80; loaded-provider about 7 %).
// The last node with children, which may have fewer, takes a loop. The
// root, the walk and the last event are read by pointers into the heap's
// array, with no index checked against its bounds: every node read is
// below n, the heap's length before this pop (a node's children are read
// only when its last is), and the array holds at least n events.
// (Indices and bounds checks kept a level's move at about 50
// instructions, pointers at about 30.)
func (q *eventQueue) popInto(dst *event) {
	n := q.n - 1
	base := unsafe.Pointer(unsafe.SliceData(q.ev))
	hole := (*event)(base)
	*dst = *hole
	q.n = n
	if n == 0 {
		*hole = noEvent
		return
	}
	i := 0
	for {
		c := 4*i + 1
		if c+4 <= n {
			kids := unsafe.Add(base, uintptr(c)*evSize)
			o := earlier(unsafe.Add(kids, evSize), kids) & evSize
			p := 2*evSize + earlier(unsafe.Add(kids, 3*evSize), unsafe.Add(kids, 2*evSize))&evSize
			o ^= (o ^ p) & earlier(unsafe.Add(kids, p), unsafe.Add(kids, o))
			m := (*event)(unsafe.Add(kids, o))
			*hole = *m
			hole = m
			i = c + int(o/evSize)
			continue
		}
		if c < n {
			m, kid := c, (*event)(unsafe.Add(base, uintptr(c)*evSize))
			for j := c + 1; j < n; j++ {
				if x := (*event)(unsafe.Add(base, uintptr(j)*evSize)); x.before(kid) {
					m, kid = j, x
				}
			}
			*hole = *kid
			hole = kid
			i = m
		}
		break
	}
	last := (*event)(unsafe.Add(base, uintptr(n)*evSize))
	for i > 0 {
		p := int(uint(i-1) >> 2) // (i − 1) / 4, i > 0
		parent := (*event)(unsafe.Add(base, uintptr(p)*evSize))
		if !last.before(parent) {
			break
		}
		*hole = *parent
		hole = parent
		i = p
	}
	*hole = *last
}

// response returns the index in the heap of the response of attempt k
// of the request in slot of generation gen, or −1 when none is queued
// among the events from the last back to event lo (at most one is
// queued: an attempt has one response to come). It looks from the last
// event back, as a response still to come after its attempt has been
// let go of is due late, near the leaves; the slot and generation, side
// by side in an event, are compared as one word. The caller's lo is
// lookEnd: in a large heap (a large pool's attempts in flight) a
// response due soon after its cancel lands sits far from the last
// events, and a look through all would cost far more than the dead pop
// it saves; the caller then queues the release as though none were
// found (releaseCancelled), which changes no event's (at, seq). (lo is
// the caller's so that response stays small enough to be inlined.)
func (q *eventQueue) response(slot int32, gen uint32, k uint8, lo int) int {
	want := event{slot: slot, gen: gen, kind: evResponse, k: k}
	id := *(*uint64)(unsafe.Pointer(&want.slot)) // as response reads them (any byte order)
	kk := *(*uint16)(unsafe.Pointer(&want.kind))
	base := unsafe.Pointer(unsafe.SliceData(q.ev))
	for i := q.n - 1; i >= lo; i-- {
		x := unsafe.Add(base, uintptr(i)*evSize)
		if *(*uint64)(unsafe.Add(x, unsafe.Offsetof(event{}.slot))) == id &&
			*(*uint16)(unsafe.Add(x, unsafe.Offsetof(event{}.kind))) == kk {
			return i
		}
	}
	return -1
}

// lookEnd is the last event response looks at, the q.look-th from the
// last, or the first.
func (q *eventQueue) lookEnd() int { return max(q.n-q.look, 0) }

// responseLook is how many events response looks through, from the
// last back: the look costs a few instructions an event, and a response
// left to be popped dead, with its release queued on its own, over a
// hundred.
const responseLook = 64

// response reads an event's slot and generation as one word and its kind
// and copy index as the next two bytes: gen follows slot, k follows kind
// (checked as it compiles: a difference below zero is no uintptr).
const (
	_ = unsafe.Offsetof(event{}.gen) - unsafe.Offsetof(event{}.slot) - 4
	_ = 4 + unsafe.Offsetof(event{}.slot) - unsafe.Offsetof(event{}.gen)
	_ = unsafe.Offsetof(event{}.k) - unsafe.Offsetof(event{}.kind) - 1
	_ = 1 + unsafe.Offsetof(event{}.kind) - unsafe.Offsetof(event{}.k)
)

// raise makes event i due at (at, seq), earlier than it was: it moves
// the later parents down into its place and returns where the event now
// goes, for the caller to write (as add) before the queue is used again.
// Nodes are read by pointers into the heap's array, as in popInto: i is
// below n, and so is each parent.
func (q *eventQueue) raise(i int, at time.Duration, seq uint64) *event {
	base := unsafe.Pointer(unsafe.SliceData(q.ev))
	hole := (*event)(unsafe.Add(base, uintptr(i)*evSize))
	for i > 0 {
		p := int(uint(i-1) >> 2) // (i − 1) / 4, i > 0
		parent := (*event)(unsafe.Add(base, uintptr(p)*evSize))
		if parent.at < at || parent.at == at && parent.seq < seq {
			break
		}
		*hole = *parent
		hole = parent
		i = p
	}
	return hole
}

// removeResponse takes the response of attempt k of the request in slot
// of generation gen out of the heap (remove) when one is queued there,
// looking through every event from the last back, as response does — by
// a pointer, which costs no multiply a step.
func (q *eventQueue) removeResponse(slot int32, gen uint32, k uint8) {
	want := event{slot: slot, gen: gen, kind: evResponse, k: k}
	id := *(*uint64)(unsafe.Pointer(&want.slot))
	kk := *(*uint16)(unsafe.Pointer(&want.kind))
	i := q.n - 1
	if i < 0 {
		return
	}
	const kind = unsafe.Offsetof(event{}.kind) - unsafe.Offsetof(event{}.slot)
	x := unsafe.Add(unsafe.Pointer(unsafe.SliceData(q.ev)), uintptr(i)*evSize+unsafe.Offsetof(event{}.slot))
	for { // two events a turn: x is event i's slot, y event i−1's
		if *(*uint64)(x) == id && *(*uint16)(unsafe.Add(x, kind)) == kk {
			break
		}
		if i == 0 {
			return
		}
		y := unsafe.Add(x, -int(evSize))
		if *(*uint64)(y) == id && *(*uint16)(unsafe.Add(y, kind)) == kk {
			i--
			break
		}
		if i -= 2; i < 0 {
			return
		}
		x = unsafe.Add(y, -int(evSize))
	}
	q.remove(i)
}

// remove takes event i, below n, out of the heap: the last event fills
// its place, moved up past the parents due after it or down past the
// children due before it. Nodes are read by pointers, as in popInto.
func (q *eventQueue) remove(i int) {
	n := q.n - 1
	q.n = n
	base := unsafe.Pointer(unsafe.SliceData(q.ev))
	hole := (*event)(unsafe.Add(base, uintptr(i)*evSize))
	if i == n {
		if n == 0 {
			*hole = noEvent
		}
		return
	}
	last := *(*event)(unsafe.Add(base, uintptr(n)*evSize))
	if i > 0 {
		p := int(uint(i-1) >> 2)
		if parent := (*event)(unsafe.Add(base, uintptr(p)*evSize)); last.before(parent) {
			*hole = *parent
			*q.raise(p, last.at, last.seq) = last // up, as raise
			return
		}
	}
	for { // down: the least child due before it moves up
		c := 4*i + 1
		if c >= n {
			break
		}
		m, kid := c, (*event)(unsafe.Add(base, uintptr(c)*evSize))
		for j := c + 1; j < n && j < c+4; j++ {
			if x := (*event)(unsafe.Add(base, uintptr(j)*evSize)); x.before(kid) {
				m, kid = j, x
			}
		}
		if !kid.before(&last) {
			break
		}
		*hole = *kid
		hole = kid
		i = m
	}
	*hole = last
}

// fifo is a queue of events scheduled in non-decreasing (at, seq) order, so
// its head, ev[i], is its minimum. add is O(1) amortised; popping is
// reading the head and advancing i.
type fifo struct {
	ev []event
	i  int // index of the head
}

// add appends room for an event, due no earlier than the tail, and returns
// it for the caller to fill. When the buffer is full and at least half of
// it lies before the head, the events left move to its front instead of
// the buffer growing: it grows only while more than half of it is queued,
// so it stays within four times the most events ever queued at once (a
// few KiB, cache-resident), and each event is moved O(1) times on
// average.
func (f *fifo) add() *event {
	if len(f.ev) == cap(f.ev) && f.i > 0 && f.i*2 >= len(f.ev) {
		n := copy(f.ev, f.ev[f.i:])
		f.ev, f.i = f.ev[:n], 0
	}
	if f.ev == nil {
		f.ev = make([]event, 0, 64) // one allocation where doubling from 1 takes seven
	}
	f.ev = append(f.ev, event{})
	return &f.ev[len(f.ev)-1]
}

// fifoHead is the head of a FIFO of events: its time, its sequence and
// the FIFO's index.
type fifoHead struct {
	at  time.Duration
	seq uint64
	i   int
}

// before reports whether head a is due before b (as event.before).
func (a *fifoHead) before(b *fifoHead) bool {
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}

// dueBefore reports whether head a is due before (at, seq).
func (a *fifoHead) dueBefore(at time.Duration, seq uint64) bool {
	return a.at < at || a.at == at && a.seq < seq
}

// fifoHeads are the heads of the FIFOs that are not empty, latest first:
// the last is the earliest. There are a few (the FIFOs of deadlines,
// cancels and timers of the classes in use), so keeping them in order
// by moving a head past those it overtakes costs less than a scan of
// them all each time the earliest leaves.
type fifoHeads []fifoHead

// insert adds the head of FIFO i, which was empty, of room FIFOs in all.
// From its first insert heads has room for a head of each, so it grows
// by its length alone: storing its array's pointer on each insert would
// cost a write barrier while the garbage collector runs.
func (h *fifoHeads) insert(at time.Duration, seq uint64, i, room int) {
	if *h == nil {
		*h = make(fifoHeads, 0, room)
	}
	*h = (*h)[:len(*h)+1]
	s := *h
	j := len(s) - 1
	for ; j > 0 && (s[j-1].at < at || s[j-1].at == at && s[j-1].seq < seq); j-- {
		s[j] = s[j-1]
	}
	s[j] = fifoHead{at, seq, i}
}

// next replaces the earliest head, the last, with its FIFO's next one,
// due no earlier, moving it past the heads due before it.
func (h fifoHeads) next(at time.Duration, seq uint64) {
	j := len(h) - 1
	x := fifoHead{at, seq, h[j].i}
	for j > 0 && h[j-1].before(&x) {
		h[j] = h[j-1]
		j--
	}
	h[j] = x
}
