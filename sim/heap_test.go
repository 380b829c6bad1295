package sim

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
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

// TestEventQueueTurnResponse: response finds the one queued response of
// an attempt (slot, generation, copy) among events of other kinds,
// slots, generations and copies when it is among the last responseLook
// events of the heap, and −1 for an attempt with none there (none
// queued, or queued earlier in the heap, which grows to thousands of
// events: both are checked); an event turned in place into an earlier
// one and moved up (raise) leaves a heap that pops every event in (at,
// seq) order.
func TestEventQueueTurnResponse(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	q := newEventQueue(1)
	if q.look != responseLook {
		t.Fatalf("a new queue looks through %d events, not responseLook (%d)", q.look, responseLook)
	}
	var found, beyond int // responses found, and queued beyond the look
	type key struct {
		slot int32
		gen  uint32
		k    uint8
	}
	queued := map[key]bool{} // the attempts with a response queued
	var seq uint64
	for step := range 20000 {
		seq++
		x := event{at: time.Duration(step/8 + r.IntN(200)), seq: seq,
			slot: int32(r.IntN(6)), gen: uint32(r.IntN(3)), k: uint8(r.IntN(MaxCopies + 1))}
		id := key{x.slot, x.gen, x.k}
		switch {
		case r.IntN(2) == 0 && !queued[id]:
			x.kind = evResponse
			queued[id] = true
		case r.IntN(2) == 0:
			x.kind = evRelease
		default:
			x.kind = evDeadline
		}
		q.push(x)
		want := key{int32(r.IntN(6)), uint32(r.IntN(3)), uint8(r.IntN(MaxCopies + 1))}
		i := q.response(want.slot, want.gen, want.k, q.lookEnd())
		at := -1 // where want's response is queued, by a look through all
		for j := range q.n {
			if y := q.ev[j]; y.kind == evResponse && (key{y.slot, y.gen, y.k}) == want {
				at = j
			}
		}
		if (at >= 0) != queued[want] {
			t.Fatalf("step %d: %+v has a response at %d, queued %v", step, want, at, queued[want])
		}
		if at >= 0 && at < q.n-responseLook {
			beyond++
			if i >= 0 {
				t.Fatalf("step %d: found %+v at %d for %+v, queued at %d, before the last %d of %d", step, q.ev[i], i, want, at, responseLook, q.n)
			}
		} else if !queued[want] {
			if i >= 0 {
				t.Fatalf("step %d: found %+v at %d for %+v, which has no response queued", step, q.ev[i], i, want)
			}
		} else if y := q.ev[i]; i != at || y.kind != evResponse || (key{y.slot, y.gen, y.k}) != want {
			t.Fatalf("step %d: found %+v at %d for %+v", step, y, i, want)
		} else if found++; r.IntN(2) == 0 { // turned into an earlier release
			seq++
			y.at, y.seq, y.kind = y.at-time.Duration(r.IntN(300)), seq, evRelease
			if y.at < 0 {
				y.at = 0
			}
			*q.raise(i, y.at, y.seq) = y
			delete(queued, want)
		}
		// Pops: a third of a push while the heap grows, then 5/3 of one
		// while it shrinks, by turns of 2 000 steps: it holds from none
		// to about 1 300 events.
		pops := 0
		if step/2000%2 == 0 {
			if r.IntN(3) == 0 {
				pops = 1
			}
		} else if r.IntN(6) != 0 {
			pops = 2
		}
		for ; pops > 0 && q.n > 0; pops-- {
			if y := q.pop(); y.kind == evResponse {
				delete(queued, key{y.slot, y.gen, y.k})
			}
		}
	}
	if found < 1000 || beyond < 1000 {
		t.Fatalf("%d responses found, %d beyond the look: too few to check", found, beyond)
	}
	var last event
	for q.n > 0 {
		y := q.pop()
		if y.before(&last) {
			t.Fatalf("popped %+v after %+v", y, last)
		}
		last = y
	}
}

// TestEventQueueRemoveResponse: removeResponse takes out the one queued
// response of an attempt wherever it is in the heap — the root, a leaf,
// the last event — and nothing else (an attempt with none queued leaves
// the heap as it was); the heap then pops every other event, in (at, seq)
// order. Times fall on a coarse grid, so that many tie.
func TestEventQueueRemoveResponse(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	q := newEventQueue(1)
	type key struct {
		slot int32
		gen  uint32
		k    uint8
	}
	queued := map[key]uint64{} // the attempts with a response queued: its seq
	in := map[uint64]bool{}    // the events queued, by seq
	var seq uint64
	removed, missed := 0, 0
	for step := range 20000 {
		seq++
		x := event{at: time.Duration(step/8 + r.IntN(50)), seq: seq,
			slot: int32(r.IntN(6)), gen: uint32(r.IntN(3)), k: uint8(r.IntN(MaxCopies + 1)), kind: evDeadline}
		if id := (key{x.slot, x.gen, x.k}); r.IntN(2) == 0 && queued[id] == 0 {
			x.kind = evResponse
			queued[id] = x.seq
		}
		q.push(x)
		in[x.seq] = true
		want := key{int32(r.IntN(6)), uint32(r.IntN(3)), uint8(r.IntN(MaxCopies + 1))}
		n := q.n
		q.removeResponse(want.slot, want.gen, want.k)
		if s := queued[want]; s != 0 {
			removed++
			delete(queued, want)
			delete(in, s)
		} else {
			missed++
		}
		if q.n != len(in) {
			t.Fatalf("step %d: %+v: %d events before, %d after, %d queued", step, want, n, q.n, len(in))
		}
		for j := range q.n { // the events left are the others
			if !in[q.ev[j].seq] {
				t.Fatalf("step %d: %+v left in the heap, taken out for %+v", step, q.ev[j], want)
			}
		}
		// Half a pop a push, then one and a half, by turns of 1 000
		// steps: the heap holds from none to about 500 events.
		pops := 1 + r.IntN(2)
		if step/1000%2 == 0 {
			pops = r.IntN(2)
		}
		var last event
		for ; pops > 0 && q.n > 0; pops-- {
			y := q.pop()
			if y.before(&last) {
				t.Fatalf("step %d: popped %+v after %+v", step, y, last)
			}
			last = y
			if !in[y.seq] {
				t.Fatalf("step %d: popped %+v, not queued", step, y)
			}
			delete(in, y.seq)
			if y.kind == evResponse {
				delete(queued, key{y.slot, y.gen, y.k})
			}
		}
	}
	if removed < 1000 || missed < 1000 {
		t.Fatalf("%d responses removed, %d looked for with none queued: too few to check", removed, missed)
	}
	var last event
	for q.n > 0 {
		y := q.pop()
		if y.before(&last) || !in[y.seq] {
			t.Fatalf("popped %+v after %+v (queued %v)", y, last, in[y.seq])
		}
		delete(in, y.seq)
		last = y
	}
	if len(in) != 0 {
		t.Fatalf("%d events queued were never popped", len(in))
	}
}

// TestResponseLookChangesNothing: a large pool's losers let go of in
// service, whose responses response finds only among the heap's last
// responseLook events, end their attempts in the same order and give the
// same result as when every response is found (a look through the whole
// heap): a release queued on its own, its response popped dead, falls
// due as the response turned into it would. The heap holds hundreds of
// events, so many a response is beyond the look.
func TestResponseLookChangesNothing(t *testing.T) {
	t.Parallel()
	lat, err := dist.LogNormalFromMedianP95(1, 3)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{
		Name: "look", Seed: 3, Requests: 20_000,
		Arrivals: Arrivals{Process: Poisson, Rate: 300},
		Models:   []Model{{Name: "m", Provider: "p", Latency: lat, PriceInputPerMTok: 1}},
		Providers: []Provider{{Name: "p", Pool: &Pool{
			Replicas: 200, Concurrency: 2, Balancer: PowerOfTwo}}},
		Classes: []Class{{Name: "c", Share: 1, Deadline: 10 * time.Second,
			InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Constant{Value: 10},
			Policy: Policy{Copies: 1, Delays: []time.Duration{800 * time.Millisecond},
				CancelLatency: 50 * time.Millisecond, CancelBilling: BillFull}}},
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	run := func(look int) (*Result, []AttemptRecord, int) {
		var recs []AttemptRecord
		e := newEngine(cfg)
		e.q.look = look
		e.trace = func(r *AttemptRecord) { recs = append(recs, *r) }
		e.run()
		return e.result(), recs, len(e.q.ev)
	}
	a, ra, most := run(responseLook)
	b, rb, _ := run(math.MaxInt)
	if most < 4*responseLook {
		t.Fatalf("the heap held at most %d events: too few for responses beyond the look", most)
	}
	if a.Overall.Attempts.Cancelled == 0 {
		t.Fatal("no loser was let go of: nothing was checked")
	}
	if !reflect.DeepEqual(Canonical(a), Canonical(b)) {
		t.Errorf("the look changed the result:\n%+v\n%+v", a.Overall.Attempts, b.Overall.Attempts)
	}
	if !reflect.DeepEqual(ra, rb) {
		t.Error("the look changed the order in which attempts end")
	}
}
