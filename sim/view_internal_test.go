package sim

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestViewLazyIsExact checks the lazy view against a brute-force one. A
// replica's load changes at random times (several at one instant too)
// and is read at random times; the brute force keeps every change and
// every refresh time (the schedule drawn on a copy of the view's stream),
// and answers a read at t with the load just before the last refresh at
// or before t that is not in a stuck period — 0 before any.
func TestViewLazyIsExact(t *testing.T) {
	views := []View{
		{Refresh: 2 * time.Second},
		{Refresh: 700 * time.Millisecond, Scrape: true},
		{Refresh: 1500 * time.Millisecond, Scrape: true, Jitter: 0.4},
		{Refresh: time.Second, Stuck: []Stuck{{At: 5 * time.Second, For: 7 * time.Second}, {At: 10 * time.Second, For: 5 * time.Second}, {At: 40 * time.Second}}},
		{Refresh: 900 * time.Millisecond, Scrape: true, Jitter: 0.3, Stuck: []Stuck{{At: 3 * time.Second, For: 4 * time.Second}}},
		{Refresh: 900 * time.Millisecond, Scrape: true, Stuck: []Stuck{{At: 0, For: 4 * time.Second}}},
	}
	for vi := range views {
		c := &views[vi]
		for seed := uint64(1); seed <= 20; seed++ {
			v := newView(c, 1, seed, 0)
			// The brute force's refresh times, from a copy of the stream.
			var times []time.Duration
			s := v.reps[0]
			for at := s.next; at < 60*time.Second; {
				times = append(times, at)
				if c.Jitter == 0 {
					at += c.Refresh
				} else {
					at += max(1, time.Duration(float64(c.Refresh)*(1+c.Jitter*(2*s.src.float64()-1))))
				}
			}
			type change struct {
				at   time.Duration
				load int
			}
			var hist []change
			before := func(at time.Duration) int { // the load just before at
				l := 0
				for _, h := range hist {
					if h.at < at {
						l = h.load
					}
				}
				return l
			}
			stuck := func(at time.Duration) bool {
				for _, st := range c.Stuck {
					if at >= st.At && (st.For == 0 || at < st.At+st.For) {
						return true
					}
				}
				return false
			}
			rng := rand.New(rand.NewPCG(seed, uint64(vi)))
			now, live := time.Duration(0), 0
			for range 400 {
				if rng.IntN(3) > 0 {
					now += time.Duration(rng.Int64N(int64(400 * time.Millisecond)))
				}
				if now >= 55*time.Second {
					break
				}
				if rng.IntN(2) == 0 { // a change
					v.see(0, now, live)
					if live > 0 && rng.IntN(2) == 0 {
						live--
					} else {
						live++
					}
					hist = append(hist, change{now, live})
					continue
				}
				want := 0
				for _, at := range times {
					if at <= now && !stuck(at) {
						want = before(at)
					}
				}
				if got := v.see(0, now, live); got != want {
					t.Fatalf("view %+v, seed %d: at %v the view shows %d, want %d", *c, seed, now, got, want)
				}
			}
		}
	}
}
