package sim

import (
	"math"
	"time"
)

// Measured throughput of open traffic. A run with closed-loop clients
// measures the rate at which requests end (Throughput, closed.go). With
// open arrivals the offered rate is the scenario's; what the system
// delivers — the answers per second — is the arrival rate times the
// answered share, which a run whose requests interact (a queue, a limit,
// a breaker, …) measures after its warm-up cut: A answers among the
// requests kept, over the span T of their arrivals, from the last arrival
// cut (0 without a cut) to the last arrival kept, r = A ÷ T. The batches
// of the row's intervals (batchmeans.go) split T into spans T_j holding
// A_j answers; the batches are nearly independent, and r is a ratio of
// their sums, so its interval is the ratio estimator's over them (Cochran,
// Sampling Techniques, 3rd ed., §6.4):
//
//	r ± t₀.₉₇₅,B−1 · √(Σ(A_j − r·T_j)² ÷ (B(B − 1))) ÷ T̄,
//
// T̄ = T ÷ B: it carries both the arrivals' own randomness (how many fall
// in a span) and the answered share's. For independent requests no rate
// is reported: the arrivals are the scenario's (its rate is an input, or
// a trace's exact timestamps) and the answered share has its Wilson
// interval, so their product says all a measured rate would.

// CIMethodAnswerRate names how AnsweredPerSecondCI95 is made.
const CIMethodAnswerRate = "ratio estimate over the batches of arrival-ordered requests after the warm-up cut: answers ÷ the span of their arrivals (t interval)"

// answerRate returns the answers per second of the requests of sections
// cut on, grouped in g, whose sections' last arrivals are secLast, and
// its 95 % interval (NaN bounds with fewer than two batches; NaN rate
// when the span is empty).
func answerRate(secLast []time.Duration, cut int, g *batchGroups) (float64, [2]float64) {
	nan := [2]float64{math.NaN(), math.NaN()}
	if g.nb == 0 || len(secLast) != numSections {
		return math.NaN(), nan
	}
	// end is the latest arrival up to each section (an empty section's
	// secLast is 0).
	var start, end time.Duration
	for k := range cut {
		start = max(start, secLast[k])
	}
	end = start
	spans := make([]float64, g.nb)
	prev := start
	for k := cut; k < numSections; k++ {
		end = max(end, secLast[k])
		if k+1 == numSections || g.of(k+1) != g.of(k) {
			j := g.of(k)
			spans[j] = (end - prev).Seconds()
			prev = end
		}
	}
	total := (end - start).Seconds()
	if !(total > 0) {
		return math.NaN(), nan
	}
	var a int64
	for _, x := range g.a {
		a += x
	}
	r := float64(a) / total
	B := g.nb
	if B < 2 {
		return r, nan
	}
	var ss float64
	for j := range B {
		d := float64(g.a[j]) - r*spans[j]
		ss += d * d
	}
	bf := float64(B)
	se := math.Sqrt(ss/(bf*(bf-1))) / (total / bf)
	h := tQuantile(bf-1, 0.95) * se
	return r, [2]float64{max(r-h, 0), r + h}
}

// setAnswerRate gives cr, a batched row of open traffic (no Throughput:
// closed-loop clients have their own), its measured answers per second.
func (cr *ClassReport) setAnswerRate(b *batchSummary) {
	if cr.Throughput != nil || math.IsNaN(b.rate) {
		return
	}
	r := b.rate
	cr.AnsweredPerSecond = &r
	if cr.AnsweredPerSecondCI95 = wireCIOpt(b.rateCI); cr.AnsweredPerSecondCI95 != nil {
		cr.AnsweredPerSecondCIMethod = CIMethodAnswerRate
	}
}
