package sim

import (
	"testing"
	"time"
	"unsafe"
)

// TestSharedDrawBytes: SharedDrawBytes counts, per request, an arrival
// time, a request's draws and sharedAttempts attempts' draws, at their
// sizes in memory: 80 bytes on a 64-bit platform.
func TestSharedDrawBytes(t *testing.T) {
	var at time.Duration
	per := int64(unsafe.Sizeof(at)) + int64(unsafe.Sizeof(sharedRequest{})) + sharedAttempts*int64(unsafe.Sizeof(sharedAttempt{}))
	if got := SharedDrawBytes(1000); got != 1000*per {
		t.Errorf("SharedDrawBytes(1000) = %d, want %d", got, 1000*per)
	}
	if unsafe.Sizeof(uintptr(0)) == 8 && per != 80 {
		t.Errorf("%d bytes a request, want the 80 the documentation states", per)
	}
	d := newSharedDraws(1000)
	if n := int64(cap(d.at))*8 + int64(cap(d.req))*int64(unsafe.Sizeof(sharedRequest{})) + int64(len(d.att))*int64(unsafe.Sizeof(sharedAttempt{})); n != 1000*per {
		t.Errorf("newSharedDraws(1000) holds %d bytes, SharedDrawBytes counts %d", n, 1000*per)
	}
}

// TestSharedDrawsNotOversized: a batch of small runs after one of large
// runs does not take (and clear in full) the large runs' buffer from the
// pool: whatever the pool hands back, the draws are at most 4 times the
// size asked (at least 2¹⁶ requests' worth), and as long as asked.
func TestSharedDrawsNotOversized(t *testing.T) {
	sharedPool.Put(newSharedDraws(1 << 20))
	d := newSharedDraws(1000)
	n := 1000 * sharedAttempts
	if len(d.att) != n || cap(d.att) > 4*max(n, 1<<16) {
		t.Errorf("draws for 1000 requests: len %d, cap %d; want len %d, cap ≤ %d", len(d.att), cap(d.att), n, 4*max(n, 1<<16))
	}
}
