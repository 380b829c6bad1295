package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestEventQueueOrder: popping yields events in (at, seq) order whatever
// the push order, including many equal times.
func TestEventQueueOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var q eventQueue
	var want []event
	for i := range 5000 {
		e := event{at: time.Duration(r.IntN(300)), seq: uint64(i)}
		want = append(want, e)
		q.push(e)
		if i%3 == 0 { // interleave pops with pushes
			got := q.pop()
			j := slices.IndexFunc(want, func(x event) bool { return x == got })
			for _, x := range want {
				if x.before(&got) {
					t.Fatalf("popped %+v while %+v was queued", got, x)
				}
			}
			want = slices.Delete(want, j, j+1)
		}
	}
	slices.SortFunc(want, func(a, b event) int {
		if a.before(&b) {
			return -1
		}
		return 1
	})
	for i := range want {
		if got := q.pop(); got != want[i] {
			t.Fatalf("pop %d = %+v, want %+v", i, got, want[i])
		}
	}
	if q.n != 0 {
		t.Fatalf("%d events left", q.n)
	}
}

// TestFifoReusesBuffer: a FIFO that never holds more than w events at once
// pops them in the order they were added, and its buffer stays within
// four times w (or 64), however many events pass through: add moves the
// events left to the front of the buffer instead of growing it once half
// of it lies before the head, so it grows only while more than half of it
// is queued, and append at most doubles it.
func TestFifoReusesBuffer(t *testing.T) {
	for _, w := range []int{1, 7, 64, 65, 240, 1000} {
		var f fifo
		next, want := 0, 0
		for range 50 * w {
			for len(f.ev)-f.i < w { // fill up to w queued events
				*f.add() = event{seq: uint64(next)}
				next++
			}
			for range 1 + want%w { // pop a varying number
				if f.i == len(f.ev) {
					break
				}
				if got := f.ev[f.i].seq; got != uint64(want) {
					t.Fatalf("w=%d: popped event %d, want %d", w, got, want)
				}
				f.i++
				want++
			}
		}
		if bound := max(64, 4*w); cap(f.ev) > bound {
			t.Errorf("w=%d: buffer of %d events after %d passed through, want at most %d", w, cap(f.ev), next, bound)
		}
	}
}

// push and pop are the queue's add and popInto with whole events, for the
// tests.
func (q *eventQueue) push(e event) { *q.add(e.at, e.seq) = e }

func (q *eventQueue) pop() event {
	var e event
	q.popInto(&e)
	return e
}

// TestFifoHeadsOrder: the heads of FIFOs, inserted when a FIFO fills and
// replaced by a later one when the earliest leaves, stay latest first, so
// that the last is always the earliest, as a scan of them all finds it —
// with many equal times, broken by sequence.
func TestFifoHeadsOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var h fifoHeads
	var seq uint64
	live := map[int]fifoHead{} // FIFO index → its head
	for step := range 20000 {
		seq++
		if i := 1 + r.IntN(12); r.IntN(3) == 0 {
			if _, ok := live[i]; !ok {
				at := time.Duration(step/4 + r.IntN(40))
				h.insert(at, seq, i, 13) // FIFOs 1 to 12, and 0
				live[i] = fifoHead{at, seq, i}
			}
		} else if len(h) > 0 {
			min := h[len(h)-1]
			delete(live, min.i)
			if r.IntN(4) == 0 {
				h = h[:len(h)-1]
			} else {
				at := min.at + time.Duration(r.IntN(30))
				h.next(at, seq)
				live[min.i] = fifoHead{at, seq, min.i}
			}
		}
		if len(h) != len(live) {
			t.Fatalf("step %d: %d heads, want %d", step, len(h), len(live))
		}
		for j := 1; j < len(h); j++ {
			if !h[j].before(&h[j-1]) {
				t.Fatalf("step %d: heads out of order: %+v before %+v", step, h[j-1], h[j])
			}
		}
		for _, x := range live {
			j := slices.IndexFunc(h, func(y fifoHead) bool { return y.i == x.i })
			if j < 0 || h[j] != x {
				t.Fatalf("step %d: head %+v of FIFO %d lost", step, x, x.i)
			}
			if x.before(&h[len(h)-1]) {
				t.Fatalf("step %d: head %+v before the last, %+v", step, x, h[len(h)-1])
			}
		}
	}
}
