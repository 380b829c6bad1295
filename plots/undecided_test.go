package plots_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/plots"
)

// TestUndecidedFiguresSayWhatRollsOut pins the figures of an undecided
// class contradicting what rolls out, its configured policy: the survival
// title read "don't hedge", the cost legend "no hedging (the pick)", and
// the delay figure's pick "fails the verdict rule". Now, when the sweep
// simulated the configured hedge, that candidate is drawn as the pick and
// named the configured policy; when it did not, no candidate is drawn as
// the pick and the legend and titles say the configured policy rolls out.
func TestUndecidedFiguresSayWhatRollsOut(t *testing.T) {
	// 30 requests: too few for a p95 interval, so the verdict is
	// undecided whatever the figures.
	const requests = 30
	for _, tc := range []struct {
		name      string
		delays    []time.Duration
		simulated bool
	}{
		{"configured 1s simulated", []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}, true},
		{"configured 1s not simulated", []time.Duration{500 * time.Millisecond, 2 * time.Second}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := lognormal()
			cfg.Classes[0].Policy.Copies = 1
			cfg.Classes[0].Policy.Delays = []time.Duration{time.Second}
			cfg.Classes[0].Policy.Targets = []int{0}
			_, cr := reportOf(t, cfg, requests, tc.delays, []int{1}, 1e9)
			if !cr.Verdict.Undecided || cr.RollsOut != optimize.RollsOutConfigured || cr.Unpicked() == tc.simulated {
				t.Fatalf("verdict %+v, rolls out %q, unpicked %v: the test needs an undecided class whose configured policy the sweep simulated: %v",
					cr.Verdict, cr.RollsOut, cr.Unpicked(), tc.simulated)
			}
			sv, cd, dd := plots.SurvivalData(cr), plots.CostData(cr), plots.DelayData(cr, 0.95)
			for _, title := range []string{sv.Title, cd.Title, dd.Title} {
				if strings.Contains(title, "don't hedge") || !strings.Contains(title, "undecided: configured policy rolls out") {
					t.Errorf("title %q: want it to say the configured policy rolls out, not \"don't hedge\"", title)
				}
			}
			if strings.Contains(cd.BaselineName, "the pick") != strings.Contains(cd.BaselineName, "no candidate is the pick") {
				t.Errorf("cost legend %q names no hedging the pick", cd.BaselineName)
			}
			pickAt := -1
			for _, s := range dd.Series {
				if s.PickAt >= 0 {
					pickAt = s.PickAt
				}
			}
			if !tc.simulated {
				if cd.PickName != "" || !strings.Contains(cd.BaselineName, "no candidate is the pick (the configured policy rolls out: not simulated by the sweep)") {
					t.Errorf("cost legend: no hedging %q, pick %q; want no pick and the configured policy named", cd.BaselineName, cd.PickName)
				}
				if strings.HasPrefix(sv.OtherName, "pick") {
					t.Errorf("survival: %q drawn as the pick, and no candidate is", sv.OtherName)
				}
				if pickAt >= 0 {
					t.Errorf("delay figure marks a pick, and no candidate is")
				}
				return
			}
			const want = "pick: 1s, "
			const rolls = "(the configured policy, which rolls out: undecided)"
			if !strings.HasPrefix(cd.PickName, want) || !strings.Contains(cd.PickName, rolls) {
				t.Errorf("cost legend pick %q; want %q… %q", cd.PickName, want, rolls)
			}
			if !strings.HasPrefix(sv.OtherName, want) || !strings.Contains(sv.OtherName, rolls) || sv.Delay != 1 {
				t.Errorf("survival curve %q (first copy at %vs); want the configured 1s as the pick", sv.OtherName, sv.Delay)
			}
			if !strings.Contains(dd.PickName, rolls) || strings.Contains(dd.PickName, "fails the verdict rule") || pickAt < 0 {
				t.Errorf("delay figure pick %q at %d; want the configured policy marked", dd.PickName, pickAt)
			}
		})
	}
}
