package htmlreport

import (
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// TestFateMapObjectiveAxis: under objective answered the candidate map
// places each candidate at the share not answered within the target, the
// objective's figure, not at its p95; under p95 at its p95. The two
// candidates are built so that the figures rank them the other way round:
// the faster p95 answers fewer within the target. The cost axis's ends
// keep the sign of a change that rounds to zero at one decimal (-0.04%,
// not -0.0%).
func TestFateMapObjectiveAxis(t *testing.T) {
	cands := []optimize.Candidate{
		{Label: "none", Requests: 1000, AddedCostPct: -0.04, Latency: sim.Latency{P95: 3}, AnsweredShare: 1,
			AnsweredWithinShare: 0.9, Status: optimize.StatusEligible},
		{Label: "1s", Hedging: true, Requests: 1000, AddedCostPct: 10, Latency: sim.Latency{P95: 2}, AnsweredShare: 1,
			AnsweredWithinShare: 0.8, Status: optimize.StatusRejected,
			Reasons: []optimize.Reason{{Code: optimize.ReasonCostCap, Text: "over the cap"}}},
	}
	for _, c := range []struct {
		name     string
		o        optimize.Objective
		label    string
		low, row string // the candidate lower on the map, the rejected row's figure
	}{
		{"p95", optimize.Objective{Goal: optimize.LowestLatency, Percentile: 0.95, MaxAddedCostPct: math.Inf(1)}, "p95 (s)", "1s", "2.00s"},
		{"answered", optimize.Objective{Goal: optimize.MostAnswered, Target: 2500 * time.Millisecond, MaxAddedCostPct: math.Inf(1)},
			"not answered within 2.50s (% of requests)", "none", "20.0%"},
	} {
		cr := &optimize.ClassReport{Class: "c", Objective: c.o, Candidates: cands, Frontier: []int{0, 1}}
		m, rows := fatesOf(cr)
		if m.YLabel != c.label {
			t.Errorf("%s: y axis %q, want %q", c.name, m.YLabel, c.label)
		}
		// SVG y grows downwards: the lower point has the larger Y.
		low := map[bool]string{true: "none", false: "1s"}[m.Points[0].Y > m.Points[1].Y]
		if low != c.low {
			t.Errorf("%s: %s is lower on the map (y %.1f, %.1f), want %s", c.name, low, m.Points[0].Y, m.Points[1].Y, c.low)
		}
		if len(rows) != 1 || rows[0].Figure != c.row {
			t.Errorf("%s: rejected rows %+v, want one with %s", c.name, rows, c.row)
		}
		if m.XMin != "-0.04%" || m.XMax != "+10.0%" {
			t.Errorf("%s: cost axis %s to %s, want -0.04%% to +10.0%%", c.name, m.XMin, m.XMax)
		}
	}
}
