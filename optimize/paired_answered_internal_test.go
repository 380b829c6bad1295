package optimize

import (
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/sim"
)

// TestUnansweredPairedWhenBatched: when a class's requests interact, the
// verdict's test of the unanswered share pairs the answered shares of the
// two candidates over their batches, as JudgeWithin does for the share
// within a target, not Wilson's intervals, which assume independent
// requests. Here 10 000 requests a candidate leave 2 % unanswered without
// hedging and 1 % with it, all of them in two batches: Wilson's intervals
// at 95 %, about [1.74, 2.30] % and [0.83, 1.21] %, are disjoint, but the
// batches' differences (+40 and −10 points, 0 elsewhere) vary so much that
// their paired interval holds 0. The verdict says so, with the requests a rerun
// needs. Wilson's test stays too: a rare miss whose batches' t interval
// clears 0 is still not significant when Wilson's intervals overlap.
// Without batches (independent requests) Wilson's test stands and the cut
// is significant.
func TestUnansweredPairedWhenBatched(t *testing.T) {
	const nb = 30
	mk := func(label string, hedging bool, answered float64) Candidate {
		return Candidate{Label: label, Hedging: hedging, Requests: 10_000, AnsweredShare: answered,
			Latency: sim.Latency{P95: 2, P95CI95: [2]float64{1.9, 2.1}}, P95CIOK: true}
	}
	base, pick := mk("none", false, 0.98), mk("1s", true, 0.99)
	pick.AddedCostPct = 1
	// Batches 0 and 1 hold every unanswered request (a provider's
	// black-hole periods): without hedging 40 % and 20 % of theirs, with
	// it 0 % and 30 % — a fall of 1 point over the run, from one batch.
	bb, pb := make([]float64, nb), make([]float64, nb)
	for b := range nb {
		bb[b], pb[b] = 1, 1
	}
	bb[0], bb[1] = 0.6, 0.8
	pb[0], pb[1] = 1, 0.7
	base.batchS[0], pick.batchS[0] = bb, pb
	rule := DefaultSettings().Rule
	rule.MinGainPerCost = 1e6 // the percentile cannot decide
	v := Judge(&base, &pick, 0.95, 0.95, rule, CostCalls)
	if v.UnansweredSignificant || v.Hedge {
		t.Errorf("batched: verdict %+v; want the unanswered cut not significant", v)
	}
	if !strings.Contains(v.Reason, "the paired difference of the answered shares over the batches") || !strings.Contains(v.Reason, "rerun with --requests ≥ ") {
		t.Errorf("batched: reason %q; want the paired interval and the rerun advice", v.Reason)
	}
	// A rare miss: 6 of 200 000 unanswered, one in each of six batches,
	// none with hedging. The batches' t interval alone would call the
	// cut significant; Wilson's intervals overlap, so it is not.
	rb, rp := make([]float64, nb), make([]float64, nb)
	for b := range nb {
		rb[b], rp[b] = 1, 1
		if b%5 == 0 {
			rb[b] = 1 - 1.0/6667
		}
	}
	rare, rarePick := mk("none", false, 1-6.0/200_000), mk("1s", true, 1)
	rare.Requests, rarePick.Requests, rarePick.AddedCostPct = 200_000, 200_000, 1
	rare.batchS[0], rarePick.batchS[0] = rb, rp
	if d, ok := pairedAnswered(&rare, &rarePick, 0.95); !ok || !(d.CI[0] > 0) {
		t.Fatalf("rare miss: the batches' interval %v; the case needs it to clear 0", d.CI)
	}
	if v := Judge(&rare, &rarePick, 0.95, 0.95, rule, CostCalls); v.UnansweredSignificant || v.Hedge {
		t.Errorf("rare miss: verdict %+v; want 6 of 200 000 → 0 not significant (Wilson's intervals overlap)", v)
	}
	base.batchS[0], pick.batchS[0] = nil, nil
	if v := Judge(&base, &pick, 0.95, 0.95, rule, CostCalls); !v.UnansweredSignificant || !v.Hedge {
		t.Errorf("independent: verdict %+v; want the cut significant by Wilson's intervals, and hedge", v)
	}
}
