package sim

import (
	"testing"
	"time"
	"unsafe"

	"github.com/hedgesim/hedgesim/dist"
)

// TestSharedDrawBytes: SharedDrawBytes counts, per request, an arrival
// time, a request's draws and the attempts' draws — in the full form one
// sharedAttempt, in the plain form sharedAttempts plainAttempts — at
// their sizes in memory: 80 bytes on a 64-bit platform, in either form,
// as newSharedDraws allocates them.
func TestSharedDrawBytes(t *testing.T) {
	var at time.Duration
	head := int64(unsafe.Sizeof(at)) + int64(unsafe.Sizeof(sharedRequest{}))
	full := head + int64(unsafe.Sizeof(sharedAttempt{}))
	plain := head + sharedAttempts*int64(unsafe.Sizeof(plainAttempt{}))
	for _, per := range []int64{full, plain} {
		if got := SharedDrawBytes(1000); got != 1000*per {
			t.Errorf("SharedDrawBytes(1000) = %d, want %d", got, 1000*per)
		}
		if unsafe.Sizeof(uintptr(0)) == 8 && per != 80 {
			t.Errorf("%d bytes a request, want the 80 the documentation states", per)
		}
	}
	for _, isPlain := range []bool{false, true} {
		d := newSharedDraws(1000, isPlain)
		n := int64(cap(d.at))*8 + int64(cap(d.req))*int64(unsafe.Sizeof(sharedRequest{})) +
			int64(len(d.att))*int64(unsafe.Sizeof(sharedAttempt{})) + int64(len(d.plain))*int64(unsafe.Sizeof(plainAttempt{}))
		if n != SharedDrawBytes(1000) {
			t.Errorf("newSharedDraws(1000, %v) holds %d bytes, SharedDrawBytes counts %d", isPlain, n, SharedDrawBytes(1000))
		}
	}
}

// TestSharedDrawsNotOversized: a batch of small runs after one of large
// runs does not take (and clear in full) the large runs' buffer from the
// pool: whatever the pool hands back, the draws are at most 4 times the
// size asked (at least 2¹⁶ requests' worth), as long as asked, and of
// the form asked.
func TestSharedDrawsNotOversized(t *testing.T) {
	for _, isPlain := range []bool{false, true} {
		for _, pooled := range []bool{false, true} {
			sharedPool.Put(newSharedDraws(1<<20, pooled))
			d := newSharedDraws(1000, isPlain)
			n, l, c := 1000, len(d.att), cap(d.att)
			if isPlain {
				n, l, c = 1000*sharedAttempts, len(d.plain), cap(d.plain)
			}
			if (d.plain != nil) != isPlain || (d.att != nil) == isPlain {
				t.Errorf("draws asked plain %v (pool held plain %v): got full %v, plain %v", isPlain, pooled, d.att != nil, d.plain != nil)
			}
			if l != n || c > 4*max(n, 1<<16) {
				t.Errorf("draws for 1000 requests (plain %v, pool held plain %v): len %d, cap %d; want len %d, cap ≤ %d", isPlain, pooled, l, c, n, 4*max(n, 1<<16))
			}
		}
	}
}

// TestSharedDrawsKeepCopies: in the plain form (a pool of a lognormal
// model, as replica-pool's), a run that hedges keeps the draws of each
// request's first copy beside its primary's, for the next run of the
// batch to take: one copy's draws kept per request hedged. (The full
// form keeps the primary's alone; that the runs taking them are the runs
// made alone is TestRunPoliciesEachMatchesRun's.)
func TestSharedDrawsKeepCopies(t *testing.T) {
	lat, err := dist.LogNormalFromMedianP95(1, 2)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Name: "copies", Seed: 1, Requests: 2000,
		Arrivals: Arrivals{Process: Poisson, Rate: 4},
		Models:   []Model{{Name: "m", Provider: "p", Latency: lat, PricePerRequest: 0.0002}},
		Providers: []Provider{{Name: "p", Pool: &Pool{Replicas: 8, Concurrency: 4, Balancer: PowerOfTwo,
			Overrides: []ReplicaOverride{{Replica: 3, Slowdown: 5}}}}},
		Classes: []Class{{Name: "c", Share: 1, Deadline: 30 * time.Second,
			InputTokens: dist.Constant{Value: 300}, OutputTokens: dist.Constant{Value: 60},
			Policy: Policy{Copies: 1, Delays: []time.Duration{500 * time.Millisecond}}}},
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	e := newEngine(&cfg)
	if !e.plainShares() || !cfg.shareable() || e.laneOK() {
		t.Fatalf("plain shares %v, shareable %v, lane %v: want the plain form on the event loop", e.plainShares(), cfg.shareable(), e.laneOK())
	}
	d := newSharedDraws(cfg.Requests, true)
	e.shared = d
	e.run()
	hedged := e.result().Classes[0].Hedged
	var primaries, copies int64
	for i := range d.plain {
		if d.plain[i].model == 0 {
			continue
		}
		if i%sharedAttempts == 0 {
			primaries++
		} else {
			copies++
		}
	}
	if primaries != int64(cfg.Requests) || hedged == 0 || copies != hedged {
		t.Errorf("kept the draws of %d primaries and %d copies; want %d and one per request hedged (%d)", primaries, copies, cfg.Requests, hedged)
	}
}
