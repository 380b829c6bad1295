package optimize_test

import (
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
)

// TestClosedLoopCandidateIntervals: a closed-loop class's candidates —
// swept in its group of one and alone — each carry the answered share's
// and the added cost's intervals, made from the batches of the whole run
// (closed-loop clients make requests interact), with the methods named,
// and each interval holds its estimate.
func TestClosedLoopCandidateIntervals(t *testing.T) {
	for _, alone := range []bool{false, true} {
		cfg, s := closedLoopSweep()
		s.Alone = alone
		rep := mustRun(t, cfg, s, optimize.Options{})
		for _, c := range rep.Classes[0].Candidates {
			a, k := c.AnsweredShareCI95, c.AddedCostPctCI95
			if a == nil || k == nil || a[0] == nil || a[1] == nil || k[0] == nil || k[1] == nil {
				t.Fatalf("alone %v, candidate %s: answered_share_ci95 %v, added_cost_pct_ci95 %v; want both", alone, c.Label, a, k)
			}
			if c.CIMethod != optimize.CIMethodGrid || c.AddedCostPctCIMethod != optimize.CIMethodAddedCostGrid {
				t.Errorf("alone %v, candidate %s: methods %q and %q; want the batched ones", alone, c.Label, c.CIMethod, c.AddedCostPctCIMethod)
			}
			if !(*a[0] <= c.AnsweredShare && c.AnsweredShare <= *a[1]) || !(*k[0] <= c.AddedCostPct+1e-9 && c.AddedCostPct <= *k[1]+1e-9) {
				t.Errorf("alone %v, candidate %s: answered %v in %v, added cost %v in %v", alone, c.Label, c.AnsweredShare, []float64{*a[0], *a[1]}, c.AddedCostPct, []float64{*k[0], *k[1]})
			}
		}
	}
}
