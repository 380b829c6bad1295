package sim

import (
	"math"
	"testing"
	"time"
)

// TestRegimeTrimKeepsAnswers: trimming old switches changes no answer
// about later times, and finish over many periods tends to the mean rate.
func TestRegimeTrimKeepsAnswers(t *testing.T) {
	d := &Degraded{MeanNormal: 30 * time.Millisecond, MeanDegraded: 10 * time.Millisecond, Slowdown: 4}
	a, b := newRegime(d, 1, 0), newRegime(d, 1, 0)
	for i := range 20000 {
		t0 := time.Duration(i) * 7 * time.Millisecond
		b.trim(t0) // a keeps everything
		w := time.Duration(i%50) * time.Millisecond
		if fa, fb := a.finish(t0, w), b.finish(t0, w); fa != fb {
			t.Fatalf("at %v: finish %v untrimmed, %v trimmed", t0, fa, fb)
		}
		if da, _ := a.at(t0); func() bool { db, _ := b.at(t0); return da != db }() {
			t.Fatalf("at %v: states differ", t0)
		}
	}
	if b.dropped == 0 {
		t.Fatal("nothing was trimmed")
	}
	// Work spanning ~10⁵ periods: wall time ≈ work ÷ mean rate, the mean
	// rate being (30+10)/(30+10·4) = 4/7. The walk covers the first 1000
	// periods exactly; the relative error of the rest is about the
	// period-count noise, 1/√(10⁵), so 2 % is ample.
	w := 4000 * time.Second
	got := a.finish(0, w).Seconds()
	want := w.Seconds() * 7 / 4
	if math.Abs(got-want)/want > 0.02 {
		t.Errorf("finish of %v of work: %.0f s, want about %.0f s", w, got, want)
	}
}
