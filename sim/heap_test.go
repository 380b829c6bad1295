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
	if len(q) != 0 {
		t.Fatalf("%d events left", len(q))
	}
}
