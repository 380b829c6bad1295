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

// TestFinishPairIsTwoFinishes: finishPair gives exactly the two values
// finish gives, at a regime and at a straggler with one, for work ending
// in the start's period, periods later, or past maxWalk periods, either
// work the larger.
func TestFinishPairIsTwoFinishes(t *testing.T) {
	d := &Degraded{MeanNormal: 30 * time.Millisecond, MeanDegraded: 10 * time.Millisecond, Slowdown: 3.7}
	g, h := newRegime(d, 7, 1), newRegime(d, 7, 1) // h answers finish alone
	stages := []stage{straggler(1.3), g}
	var u uint64 = 1
	next := func(n uint64) time.Duration { // splitmix64's stream, below n
		u += 0x9e3779b97f4a7c15
		return time.Duration(splitmix64(u) % n)
	}
	works := []uint64{uint64(time.Millisecond), uint64(time.Second), uint64(200 * time.Second)}
	for i := range 30000 {
		t0 := time.Duration(i)*3*time.Millisecond + next(uint64(time.Millisecond))
		w1, w2 := next(works[i%3]), next(works[(i/3)%3])
		if i%5 == 0 {
			w2 = w1 + next(uint64(time.Millisecond))
		}
		f1, f2 := g.finishPair(t0, w1, w2)
		if e1, e2 := h.finish(t0, w1), h.finish(t0, w2); f1 != e1 || f2 != e2 {
			t.Fatalf("at %v, work %v and %v: finishPair %v, %v; finish %v, %v", t0, w1, w2, f1, f2, e1, e2)
		}
		f1, f2 = finishPair(stages, t0, w1, w2)
		if e1, e2 := finishAll(stages, t0, w1), finishAll(stages, t0, w2); f1 != e1 || f2 != e2 {
			t.Fatalf("stages at %v, work %v and %v: finishPair %v, %v; finishAll %v, %v", t0, w1, w2, f1, f2, e1, e2)
		}
	}
}
