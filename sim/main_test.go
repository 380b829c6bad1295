package sim_test

import (
	"flag"
	"os"
	"runtime/debug"
	"testing"
)

// shortGCPercent is the collector's target under -short: a collection
// starts when the heap has grown by 4 times what was live after the last
// (debug.SetGCPercent), not by once that as at the default of 100. The
// tests allocate the same and check the same; collecting a quarter as
// often took 14 % less CPU under -short (19.6 and 19.1 CPU-s against 23.0
// and 21.8), for a peak resident set of 297 to 339 MiB instead of 176 to
// 183 MiB (docs/performance.md, "A fourth round").
const shortGCPercent = 400

// TestMain sets the collector's target to shortGCPercent under -short;
// without -short (the full suite, benchmarks) the runtime's default holds.
func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		debug.SetGCPercent(shortGCPercent)
	}
	os.Exit(m.Run())
}
