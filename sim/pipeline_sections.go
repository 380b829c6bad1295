package sim

import (
	"math"
	"time"
)

// Batched pipeline shares. When a pipeline class's requests interact
// (batchmeans.go) the run counts, per arrival section, its requests that
// ended, went through checked, went through degraded and were ended by the
// end-to-end deadline — four int64 per section, nothing per request. The
// pipeline report then gives its checked, degraded, failed and timed-out
// shares (and no hedging's checked and degraded shares) over the sections
// kept after the end-to-end figures' warm-up cut, and the checked and
// degraded shares intervals from the same numBatches batches as the
// end-to-end figures: share ± t₀.₉₇₅,B−1 · s/√B, s the standard deviation
// of the batch shares (batch means: Law & Kelton, Simulation Modeling and
// Analysis, §9.5.3).

// CIMethodPipelineBatch names how a batched pipeline's shares' intervals
// were made (PipelineReport.SharesCIMethod).
const CIMethodPipelineBatch = "batch means over arrival-ordered requests after the end-to-end warm-up cut (t interval)"

// pipeSections are a pipeline class's per-section counts: ended, checked,
// degraded and timed out end to end at [4k], [4k+1], [4k+2], [4k+3].
type pipeSections []int64

// pipeSection counts a pipeline request of pc, which went through
// checked, degraded or neither and was or was not ended by the end-to-end
// deadline, in its arrival section k.
func (pc *pipeClass) pipeSection(k uint16, checked, degraded, e2e bool) {
	if pc.sec == nil {
		pc.sec = make(pipeSections, 4*numSections)
	}
	s := pc.sec[4*int(k):]
	s[0]++
	if checked {
		s[1]++
	}
	if degraded {
		s[2]++
	}
	if e2e {
		s[3]++
	}
}

// keptShares returns, over the sections of s from cut on, the requests and
// the shares checked, degraded, timed out and failed (the rest, counted:
// shares[3] is exactly 0 when none failed, not 1 less the three shares'
// rounding), and the batch shares checked
// and degraded in nb batches grouped as groupBatches groups them.
func (s pipeSections) keptShares(cut int) (n int64, shares [4]float64, batches [2][]float64) {
	kept := numSections - cut
	nb := min(numBatches, kept)
	if nb <= 0 {
		return 0, shares, batches
	}
	bn := make([]int64, nb)
	bc, bd := make([]int64, nb), make([]int64, nb)
	var c, d, to int64
	for k := cut; k < numSections; k++ {
		j := (k - cut) * nb / kept
		bn[j] += s[4*k]
		bc[j] += s[4*k+1]
		bd[j] += s[4*k+2]
		n += s[4*k]
		c += s[4*k+1]
		d += s[4*k+2]
		to += s[4*k+3]
	}
	if n == 0 {
		return 0, shares, batches
	}
	nf := float64(n)
	shares = [4]float64{float64(c) / nf, float64(d) / nf, float64(to) / nf, float64(max(n-c-d-to, 0)) / nf}
	batches = [2][]float64{make([]float64, nb), make([]float64, nb)}
	for j := range nb {
		batches[0][j], batches[1][j] = math.NaN(), math.NaN()
		if bn[j] > 0 {
			batches[0][j] = float64(bc[j]) / float64(bn[j])
			batches[1][j] = float64(bd[j]) / float64(bn[j])
		}
	}
	return n, shares, batches
}

// setBatchedShares gives pr, the pipeline report of a class whose requests
// interact, its shares over the sections from cut on (the end-to-end
// figures' warm-up cut) and the intervals of its checked and degraded
// shares; hp and bp are the hedged and no-hedging runs' pipeline results.
func (pr *PipelineReport) setBatchedShares(hp, bp *PipelineResult, cut int) {
	if hp.sec == nil {
		return
	}
	n, sh, per := hp.sec.keptShares(cut)
	if n == 0 {
		return
	}
	pr.CheckedShare, pr.DegradedShare, pr.TimedOutShare = sh[0], sh[1], sh[2]
	pr.FailedShare = sh[3]
	if bp.sec != nil {
		if m, bs, _ := bp.sec.keptShares(cut); m > 0 {
			pr.NoHedgingCheckedShare, pr.NoHedgingDegradedShare = bs[0], bs[1]
		}
	}
	pr.CheckedShareCI95 = wireCIOpt(BatchShareInterval(sh[0], per[0], 0.95))
	pr.DegradedShareCI95 = wireCIOpt(BatchShareInterval(sh[1], per[1], 0.95))
	if pr.CheckedShareCI95 != nil || pr.DegradedShareCI95 != nil {
		pr.SharesCIMethod = CIMethodPipelineBatch
	}
}

// gridShares returns the checked and degraded shares of each batch of the
// fixed grid of nb batches (perbatch.go: section k in batch ⌊k·nb/
// numSections⌋, whatever the warm-up cut), NaN for an empty batch.
func (s pipeSections) gridShares(nb int) (checked, degraded []float64) {
	n, c, d := make([]int64, nb), make([]int64, nb), make([]int64, nb)
	for k := range numSections {
		j := k * nb / numSections
		n[j] += s[4*k]
		c[j] += s[4*k+1]
		d[j] += s[4*k+2]
	}
	checked, degraded = make([]float64, nb), make([]float64, nb)
	for j := range nb {
		checked[j], degraded[j] = math.NaN(), math.NaN()
		if n[j] > 0 {
			checked[j] = float64(c[j]) / float64(n[j])
			degraded[j] = float64(d[j]) / float64(n[j])
		}
	}
	return checked, degraded
}

// Batched step rows. In a run whose requests interact a pipeline's step
// calls queue with the rest, so the calls of consecutive requests are
// correlated as the requests are. Each call's latency is then stored with
// its pipeline request's arrival section (a uint16, as the class's own),
// and a step's row — its latency figures, their intervals and its answered
// share — is taken over the calls of the requests kept after the
// end-to-end figures' warm-up cut, from the same numBatches batches of
// arrival sections (batchmeans.go): the batches group whole pipeline
// requests, a request's calls all in its batch.

// stepSectioned gives t, a pipeline step's call latencies in a run whose
// requests interact, per-call sections (their pipeline requests'), and no
// section bills: a step's bills are its pipeline class's
// (engine.billSection). nc is endTimes.noCut.
func (t *endTimes) stepSectioned(nc noCut) {
	t.sec = make([]uint16, len(t.buf))
	t.secLast = make([]time.Duration, numSections)
	t.noCut = nc
}

// batchedStep returns the batched analyses of step h's calls and of its
// no-hedging run b, keeping the arrival sections from cut on (the
// end-to-end figures' cut); ok is false, and the step row keeps its
// order-statistic figures, unless both are sectioned and kept calls.
func batchedStep(h, b *StepResult, cut int) (hb, bb *batchSummary, ok bool) {
	if !h.lat.sectioned() || !b.lat.sectioned() || h.NumLatencies() == 0 || b.NumLatencies() == 0 {
		return nil, nil, false
	}
	hb = newSectionSums(&h.lat).summarize(&h.lat, cut)
	bb = newSectionSums(&b.lat).summarize(&b.lat, cut)
	if hb.kept == 0 || bb.kept == 0 {
		return nil, nil, false
	}
	return hb, bb, true
}

// setBatched gives sr, the row of a step whose requests interact, its
// figures over the calls kept: latency and answered share with their
// batched intervals (hb, bb from batchedStep).
func (sr *StepReport) setBatched(hb, bb *batchSummary) {
	sr.Latency, sr.NoHedgingLatency = hb.lat, bb.lat
	sr.AnsweredShare, sr.NoHedgingAnsweredShare = &hb.answered, &bb.answered
	sr.AnsweredShareCI95 = wireCIOpt(hb.shareCI)
	sr.KeptCalls = hb.kept
}

// stepDegradedSection counts a pipeline request of pc, which went through
// degraded by the steps whose bits are set in mask, in each such step's
// arrival section: the request's, sec.
func (pc *pipeClass) stepDegradedSection(sec uint16, mask uint64) {
	if pc.stepDeg == nil {
		pc.stepDeg = make([]int64, len(pc.pl.Steps)*numSections)
	}
	k := int(sec)
	for s := range pc.pl.Steps {
		if mask&(1<<s) != 0 {
			pc.stepDeg[s*numSections+k]++
		}
	}
}

// stepDegraded returns step s's degraded share of the pipeline requests
// of p kept from section cut on, and its 95 % interval from batch means
// over the same batches as keptShares (NaN bounds when it cannot be
// formed); ok is false without sections.
func (p *PipelineResult) stepDegraded(s, cut int) (share float64, ci [2]float64, ok bool) {
	if p.sec == nil {
		return 0, ci, false
	}
	kept := numSections - cut
	nb := min(numBatches, kept)
	if nb <= 0 {
		return 0, ci, false
	}
	var deg []int64
	if p.stepDeg != nil {
		deg = p.stepDeg[s*numSections : (s+1)*numSections]
	}
	bn, bd := make([]int64, nb), make([]int64, nb)
	var n, d int64
	for k := cut; k < numSections; k++ {
		j := (k - cut) * nb / kept
		bn[j] += p.sec[4*k]
		n += p.sec[4*k]
		if deg != nil {
			bd[j] += deg[k]
			d += deg[k]
		}
	}
	if n == 0 {
		return 0, ci, false
	}
	xs := make([]float64, nb)
	for j := range nb {
		xs[j] = math.NaN()
		if bn[j] > 0 {
			xs[j] = float64(bd[j]) / float64(bn[j])
		}
	}
	share = float64(d) / float64(n)
	return share, BatchShareInterval(share, xs, 0.95), true
}
