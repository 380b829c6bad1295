package optimize

import (
	"math"
	"strings"
	"testing"
)

// TestPickWithoutIntervalIsNoise: a hedging pick with no interval on the
// objective's percentile (too few requests; the verdict standing on the
// unanswered share) was presented as a measured trade-off: the summary
// printed "1.97s → 1.26s (-36.1%)" and the pick note "where the
// trade-off ends" alone (the break7 report, s1.toml at --requests 6000).
// The summary's change now reads "(no interval)", and the pick note says
// the delay is noise, with the requests needed and the rerun advice.
func TestPickWithoutIntervalIsNoise(t *testing.T) {
	nan := [2]float64{math.NaN(), math.NaN()}
	base := Candidate{Label: "none", Requests: 4797, AnsweredShare: 0.996}
	base.Latency.P95, base.Latency.P99, base.Latency.P95CI95 = 1.97, 3.54, nan
	pick := Candidate{Label: "762ms", Hedging: true, Copies: 1, Requests: 4797, AnsweredShare: 1, AddedCostPct: 14.7}
	pick.Latency.P95, pick.Latency.P99, pick.Latency.P95CI95 = 1.26, 1.67, nan
	zero, zero2 := 0.0, 0.0
	pick.RescuedShare, pick.HarmedShare = &zero, &zero2
	cr := ClassReport{Class: "chat", Candidates: []Candidate{base, pick}, Pick: 1,
		Objective: Objective{Percentile: 0.95}, PickNote: "where the trade-off ends"}
	finishPick(&cr, 0.95)
	for _, s := range []string{"its delay is noise: too few requests for a 95% interval on p95 (4797 simulated, at least", "rerun with --requests ≥"} {
		if !strings.Contains(cr.PickNote, s) {
			t.Errorf("pick note %q lacks %q", cr.PickNote, s)
		}
	}
	if got := measuredChange(&cr.Candidates[0], &cr.Candidates[1], 0.95); got != "(no interval)" {
		t.Errorf("summary change %q; want (no interval)", got)
	}
	// With an interval, the change is the measured one.
	cr.Candidates[1].P95CIOK = true
	if got := measuredChange(&cr.Candidates[0], &cr.Candidates[1], 0.95); got != "(-36.0%)" {
		t.Errorf("summary change with an interval %q; want (-36.0%%)", got)
	}
}
