package sim

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestPosSecondsIsSeconds checks that posSeconds returns exactly
// Duration.Seconds for durations ≥ 0: the edges of a second, the largest
// duration, and a million durations from a fixed seed, spread over every
// magnitude (a uniform bit length, then uniform bits below it).
func TestPosSecondsIsSeconds(t *testing.T) {
	ds := []time.Duration{0, 1, time.Second - 1, time.Second, time.Second + 1, 1<<63 - 1, maxDelay, never}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		ds = append(ds, time.Duration(rng.Int64N(1<<62)>>rng.IntN(62)))
	}
	for _, d := range ds {
		if got, want := posSeconds(d), d.Seconds(); got != want {
			t.Fatalf("posSeconds(%d) = %v, want Seconds() = %v", int64(d), got, want)
		}
	}
}
