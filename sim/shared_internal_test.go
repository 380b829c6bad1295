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
