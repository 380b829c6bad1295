package optimize

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hedgesim/hedgesim/sim"
)

// SurvivalPoint is one point of an empirical survival curve: a share S of
// requests took longer than T seconds.
type SurvivalPoint struct {
	T, S float64
}

// survivalPerDecade is how many points of the survival curve are kept per
// decade of S (survivalRanks).
const survivalPerDecade = 60

// survivalRanks returns the 0-based ranks, ascending, of the points
// survival keeps for n latencies of which the smallest finite are finite
// (the rest are misses).
func survivalRanks(n, finite int) []int {
	if finite == 0 {
		return nil
	}
	var idx []int
	decades := math.Log10(float64(n))
	for j := 0; float64(j) <= decades*survivalPerDecade; j++ {
		s := math.Pow(10, -float64(j)/survivalPerDecade)
		// the largest i with (n−1−i)/n ≥ s, i.e. i ≤ n−1−s·n
		i := int(math.Floor(float64(n) - 1 - s*float64(n) + 1e-9))
		i = min(max(i, 0), n-1)
		if len(idx) == 0 || i > idx[len(idx)-1] {
			idx = append(idx, i)
		}
	}
	for len(idx) > 0 && idx[len(idx)-1] >= finite {
		idx = idx[:len(idx)-1]
	}
	if len(idx) == 0 || idx[len(idx)-1] != finite-1 {
		idx = append(idx, finite-1)
	}
	return idx
}

// survivalPoints returns the survival points of n latencies whose ranks idx
// (from survivalRanks) have the values v.
func survivalPoints(n int, idx []int, v []float64) []SurvivalPoint {
	if len(idx) == 0 {
		return nil
	}
	out := make([]SurvivalPoint, len(idx))
	for k, i := range idx {
		out[k] = SurvivalPoint{T: v[k], S: float64(n-1-i) / float64(n)}
	}
	return out
}

// unknownLatency is the latency of a class without requests: every figure
// NaN (printed "-", JSON null).
func unknownLatency() sim.Latency {
	nan := math.NaN()
	return sim.Latency{Mean: nan, P50: nan, P90: nan, P95: nan, P99: nan, P999: nan,
		P95CI95: [2]float64{nan, nan}, P99CI95: [2]float64{nan, nan}}
}

// summarize turns one run of one class into a candidate's measurements
// (everything but the cost comparison with the baseline, see compare).
// Percentiles, their intervals and the survival curve's points come from
// one selection over the run's latencies (sim's ClassResult.Ranks; for a
// batched run, with its batched figures: ClassResult.BatchFigures).
// target, when > 0, is the objective's latency target for
// AnsweredWithinShare.
func summarize(c *Candidate, r *sim.ClassResult, level float64, target time.Duration) {
	n := r.NumLatencies()
	c.Requests = r.Requests
	if n == 0 {
		// No request fell in the class (a tiny share of a shared run):
		// its latencies are unknown, not 0 s.
		c.Latency = unknownLatency()
		return
	}
	l := &c.Latency
	l.Mean = r.Mean() // NaN when nothing was answered
	ks := []int{sim.NearestRank(n, 0.50), sim.NearestRank(n, 0.90), sim.NearestRank(n, 0.95), sim.NearestRank(n, 0.99), sim.NearestRank(n, 0.999)}
	l95, u95, ok95 := sim.QuantileCIRanks(n, 0.95, level)
	l99, u99, ok99 := sim.QuantileCIRanks(n, 0.99, level)
	ks = append(ks, l95-1, u95-1, l99-1, u99-1)
	surv := survivalRanks(n, int(r.Answered))
	f, batched := r.BatchFigures(batchPs, []float64{0.95, 0.99}, []float64{0.95, 0.99}, target.Seconds(), append(ks, surv...))
	v := f.Ranks
	if !batched {
		v = r.Ranks(append(ks, surv...))
	}
	l.P50, l.P90, l.P95, l.P99, l.P999 = v[0], v[1], v[2], v[3], v[4]
	l.P95CI95 = [2]float64{v[5], v[6]}
	l.P99CI95 = [2]float64{v[7], v[8]}
	c.P95CIOK, c.P99CIOK = ok95, ok99
	l.P95CIOK, l.P99CIOK = ok95, ok99
	nf := float64(r.Requests)
	c.AnsweredShare = float64(r.Answered) / nf
	c.HedgedShare = float64(r.Hedged) / nf
	c.AttemptsPerRequest = float64(r.Attempts.Sent) / nf
	c.CostPer1kUSD = (r.CostCompletedUSD + r.CostCancelledUSD) * 1000 / nf
	if r.Throughput != nil {
		c.perSecond = r.Throughput.PerSecond
	}
	c.Survival = survivalPoints(n, surv, v[len(ks):])
	if batched {
		summarizeBatched(c, &f, level)
	} else {
		// Too few independent requests for a two-sided interval may still
		// bound the percentile from above (Candidate.upperBound).
		for i, ok := range []bool{ok95, ok99} {
			if k, has := sim.UpperBoundRank(n, []float64{0.95, 0.99}[i], level); !ok && has {
				c.upper[i], c.upperRank[i], c.upperN[i] = r.Ranks([]int{k - 1})[0], k, n
			}
		}
	}
	c.secCost = r.SectionCosts()
	if target > 0 {
		c.AnsweredWithinShare = float64(r.AnsweredWithin(target.Seconds())) / nf
	}
}

// summarizeFor is summarize under objective o: for objective "checked"
// (Objective.Checked, a pipeline class) AnsweredWithinShare is the share of
// turns that went through checked within o.Target
// (sim.PipelineResult.CheckedWithin). For a pipeline class it keeps the
// turns whose answer step was let go of (Candidate.answerCut).
func summarizeFor(c *Candidate, r *sim.ClassResult, level float64, o Objective) {
	summarize(c, r, level, o.Target)
	if r.Pipeline != nil {
		c.answerCut = r.Pipeline.AnswerCut
	}
	if o.Checked && o.Target > 0 && r.Pipeline != nil && r.Requests > 0 {
		c.AnsweredWithinShare = float64(r.Pipeline.CheckedWithin(o.Target.Seconds())) / float64(r.Requests)
		c.batchS[1] = nil // the batches' shares are of answers, not of checked turns
	}
}

// fewerAnswers reports whether c answers significantly fewer requests than
// the baseline b at normal score z (sim.AnswersFall).
func fewerAnswers(b, c *Candidate, z float64) bool {
	return sim.AnswersFall(b.AnsweredShare, b.Requests, c.AnsweredShare, c.Requests, z)
}

// MinRequestsForCI returns the smallest number of requests n for which the
// order-statistic interval of the p-quantile at the given confidence level
// fits inside the sample, as sim's ClassResult.QuantileCI forms it: ranks
// l = ⌊np − z·√(np(1−p))⌋ ≥ 1 and u = ⌈np + z·√(np(1−p))⌉ + 1 ≤ n, with z
// the standard-normal (1+level)/2 quantile. At 95 % that is 110 requests for
// p95 and 563 for p99 (and the interval fits for every larger n). p must be
// in (0, 1) and level in (0, 1).
func MinRequestsForCI(p, level float64) int {
	if !(p > 0 && p < 1 && level > 0 && level < 1) {
		panic(fmt.Sprintf("optimize: MinRequestsForCI(%v, %v): p and level must be in (0, 1)", p, level))
	}
	z := distuv.UnitNormal.Quantile((1 + level) / 2)
	fits := func(n int) bool {
		np := float64(n) * p
		h := z * math.Sqrt(np*(1-p))
		return int(math.Floor(np-h)) >= 1 && int(math.Ceil(np+h))+1 <= n
	}
	// Both conditions hold from some n on; the ceiling and floor can make
	// them flicker just before, so take the last n that fails below a
	// bound comfortably past the threshold, plus one.
	hi := 1
	for !fits(hi) || !fits(hi+1) {
		hi *= 2
	}
	hi *= 4
	for n := hi; n >= 1; n-- {
		if !fits(n) {
			return n + 1
		}
	}
	return 1
}

// compare fills the added cost of c relative to the baseline b (the
// no-hedging candidate) on the class's cost basis.
func compare(c *Candidate, b *Candidate, basis string) {
	if b.AttemptsPerRequest > 0 {
		c.AddedCallsPct = 100 * (c.AttemptsPerRequest - b.AttemptsPerRequest) / b.AttemptsPerRequest
	}
	if basis == CostUSD {
		c.AddedCostPct = 100 * (c.CostPer1kUSD - b.CostPer1kUSD) / b.CostPer1kUSD
	} else {
		c.AddedCostPct = c.AddedCallsPct
	}
}

// wilson returns the Wilson score interval for a proportion k/n at the
// normal score z (Wilson 1927; Agresti & Coull 1998).
func wilson(share float64, n int64, z float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	nf := float64(n)
	d := 1 + z*z/nf
	mid := (share + z*z/(2*nf)) / d
	h := z * math.Sqrt(share*(1-share)/nf+z*z/(4*nf*nf)) / d
	return max(0, mid-h), min(1, mid+h)
}

// fpct formats a change in percent with its sign and one decimal, or the
// digits that keep its sign (sim.SignedChange): -0.03%, not +0.0%.
func fpct(x float64) string { return sim.SignedChange(x, 1) + "%" }

// fpctCost formats an added cost in percent with two decimals, enough to
// tell +10.04% from a cap of +10%, or the digits that keep its sign
// (sim.SignedChange): -0.004%, not +0.00%.
func fpctCost(x float64) string { return sim.SignedChange(x, 2) + "%" }

// fpt formats a change in percentage points with its sign and two
// decimals, or the digits that keep its sign (sim.SignedChange): "+0.35
// pt", "+0.004 pt", not "+0.00 pt".
func fpt(x float64) string { return sim.SignedChange(x, 2) + " pt" }

// fshares formats two shares in [0, 1] as percentages with one decimal,
// or up to three when one would make two different shares look equal.
func fshares(a, b float64) (string, string) {
	d := 1
	for ; d < 3; d++ {
		if math.Round(100*a*math.Pow10(d)) != math.Round(100*b*math.Pow10(d)) || a == b {
			break
		}
	}
	return strconv.FormatFloat(100*a, 'f', d, 64) + "%", strconv.FormatFloat(100*b, 'f', d, 64) + "%"
}

// fsec formats seconds as the simulator's reports do.
func fsec(s float64) string { return sim.FormatSeconds(s) }

// fdelay formats a delay exactly enough to tell grid points apart: 0s,
// 650ms, 1.25s, 12.5s.
func fdelay(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d < time.Millisecond:
		return d.String()
	case d < time.Second:
		return trimFloat(float64(d)/1e6, 3) + "ms"
	default:
		return trimFloat(d.Seconds(), 4) + "s"
	}
}

// trimFloat formats x with at most prec decimals, without trailing zeros.
func trimFloat(x float64, prec int) string {
	return strconv.FormatFloat(math.Round(x*math.Pow10(prec))/math.Pow10(prec), 'f', -1, 64)
}

// fnum formats a setting such as a percentage: 10, 2.5, 0.25.
func fnum(x float64) string {
	if math.IsInf(x, 1) {
		return "∞"
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// pname names the percentile p: "p95", "p99", "p99.9".
func pname(p float64) string {
	return "p" + strconv.FormatFloat(math.Round(100*p*1e6)/1e6, 'f', -1, 64)
}
