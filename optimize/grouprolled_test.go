package optimize_test

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// TestGroupFigureOfWhatRollsOut is a user's report: `hedgesim optimize
// --requests 5000 --check-requests 5000 shared-rate-limit` ends both
// classes at no hedging after the rollout check (interactive's configured
// policy and batch's group pick, 3.36 s, answer significantly fewer
// requests than no hedging there), yet each class said "the weighted
// percentile … is 5.16s at this pick": the group search's figure, with
// batch hedging at 3.36 s. Now the group figure says which picks it is of
// (GroupChoice.Picks: interactive none, batch 3.36s), that they are not
// what rolls out, and gives the group objective at what rolls out
// (interactive none, batch none) in the rollout check's run: the
// traffic-weighted p95 of its two classes, each class's p95 and requests
// as the check's report gives them. Without a rollout check the value at
// what rolls out (interactive's configured policy, as its verdict is
// undecided) is unknown, and the text says no check measured it.
func TestGroupFigureOfWhatRollsOut(t *testing.T) {
	sc := loadScenario(t, "shared-rate-limit.toml")
	s := sc.Optimize
	s.Requests, s.CheckRequests = 5000, 5000
	rep := mustRun(t, &sc.Config, s, optimize.Options{})
	names := []string{"interactive", "batch"}
	for _, cr := range rep.Classes {
		if cr.Picked().Hedging || cr.Verdict.Undecided {
			t.Fatalf("not the case: %s rolls out %s (undecided %v), want no hedging", cr.Class, cr.Picked().Label, cr.Verdict.Undecided)
		}
	}
	// The oracle: the weighted p95 of the check's report.
	var sum, n float64
	for _, c := range rep.Rollout.Report.Classes {
		if slices.Contains(names, c.Class) {
			sum += float64(c.Requests) * c.Latency.P95
			n += float64(c.Requests)
		}
	}
	want := sum / n
	var text bytes.Buffer
	if err := rep.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	for _, cr := range rep.Classes {
		g := cr.Group
		if g == nil {
			t.Fatalf("%s: no group choice", cr.Class)
		}
		if !slices.Equal(g.Classes, names) || len(g.Picks) != 2 || g.Picks[0] != "none" || g.Picks[1] == "none" {
			t.Fatalf("not the case: %s's group value %v is at picks %v of %v, want batch hedging", cr.Class, g.Value, g.Picks, g.Classes)
		}
		ro := g.RolledOut
		if ro == nil {
			t.Errorf("%s: group value %v at picks %v, none rolled out, but no rolled_out figure", cr.Class, g.Value, g.Picks)
			continue
		}
		if !slices.Equal(ro.Picks, []string{"none", "none"}) || ro.Requests != rep.Rollout.Requests ||
			!(math.Abs(ro.Value-want) <= 1e-9*want) {
			t.Errorf("%s: rolled out %+v, want picks none, none and the check's weighted p95 %v over %d requests", cr.Class, *ro, want, rep.Rollout.Requests)
		}
		if ro.Value == g.Value {
			t.Errorf("%s: the group value at what rolls out is the search's, %v", cr.Class, g.Value)
		}
		line := fmt.Sprintf("is %s at the group search's picks (interactive none, batch %s), not what rolls out (interactive none, batch none), which the rollout check of %d requests puts at %s;",
			sim.FormatSeconds(g.Value), g.Picks[1], rep.Rollout.Requests, sim.FormatSeconds(want))
		if got := cr.GroupText(); !strings.Contains(got, line) {
			t.Errorf("%s: group text %q, want %q", cr.Class, got, line)
		}
	}
	if got := strings.Count(strings.Join(strings.Fields(text.String()), " "), "group: "+rep.Classes[0].GroupText()); got != 1 {
		t.Errorf("the text report has interactive's group line %d times, want once", got)
	}
	t.Logf("group p95 %.3f s at the search's picks, %.3f s at what rolls out in the check", rep.Classes[0].Group.Value, want)

	// Without a rollout check: interactive, undecided, rolls out its
	// configured policy, which the search did not pick for it.
	s.CheckRequests = 0
	rep = mustRun(t, &sc.Config, s, optimize.Options{})
	for _, cr := range rep.Classes {
		ro := cr.Group.RolledOut
		if ro == nil || ro.Picks[0] != "configured" || ro.Requests != 0 || !math.IsNaN(ro.Value) ||
			!strings.Contains(cr.GroupText(), "(interactive configured, batch "+ro.Picks[1]+"), which no rollout check measured;") {
			t.Errorf("%s without a check: rolled out %+v, %q; want interactive configured, no value", cr.Class, ro, cr.GroupText())
		}
	}
}

// TestGroupFigureOfWhatRollsOutHedging: coupledTOML's two classes at
// 4000 requests each, checked on 12 000: the group search picks a copy
// after 2.17 s for a and no hedging for b, but b's verdict is undecided,
// so b rolls out its configured policy, a copy after 2 s. The group
// figure at what rolls out is the check's run with both hedging, the
// weighted p95 of its two classes; not the figure of the check's run
// without hedging.
func TestGroupFigureOfWhatRollsOutHedging(t *testing.T) {
	sc, err := scenario.Parse("coupled.toml", []byte(coupledTOML))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 4000, 12000
	rep := mustRun(t, &sc.Config, s, optimize.Options{})
	var sum, n, base float64
	for _, c := range rep.Rollout.Report.Classes {
		sum += float64(c.Requests) * c.Latency.P95
		base += float64(c.Requests) * c.NoHedging.Latency.P95
		n += float64(c.Requests)
	}
	want := sum / n
	for _, cr := range rep.Classes {
		g := cr.Group
		if g == nil || !slices.Equal(g.Picks, []string{"2.17s", "none"}) {
			t.Fatalf("not the case: %s's group choice %+v, want picks 2.17s, none", cr.Class, g)
		}
		ro := g.RolledOut
		if ro == nil || !slices.Equal(ro.Picks, []string{"2.17s", "configured"}) || ro.Requests != 12000 || !(math.Abs(ro.Value-want) <= 1e-9*want) {
			t.Errorf("%s: rolled out %+v, want picks 2.17s, configured and the check's weighted p95 %v (without hedging %v)", cr.Class, ro, want, base/n)
		}
	}
}

// TestGroupFigureAtThisPick: when what rolls out is the group search's
// picks, the group figure is theirs ("at this pick", no rolled_out), and
// the rollout check runs those picks. coupledTOML's two classes share a
// rate limit; at 7522 requests each with a check of 15000, the check
// keeps the picks.
func TestGroupFigureAtThisPick(t *testing.T) {
	sc, err := scenario.Parse("coupled.toml", []byte(coupledTOML))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 7522, 15000
	rep := mustRun(t, &sc.Config, s, optimize.Options{})
	for _, cr := range rep.Classes {
		g := cr.Group
		if g == nil {
			t.Fatalf("%s: no group choice", cr.Class)
		}
		var checked []string
		for _, name := range g.Classes {
			k := slices.IndexFunc(rep.Rollout.Classes, func(c optimize.RolloutClass) bool { return c.Class == name })
			checked = append(checked, rep.Rollout.Classes[k].Pick)
		}
		if !slices.Equal(checked, g.Picks) {
			t.Fatalf("not the case: the check runs %v, the search picked %v", checked, g.Picks)
		}
		if g.RolledOut != nil || !strings.Contains(cr.GroupText(), " at this pick;") {
			t.Errorf("%s: picks %v roll out, yet rolled out %+v: %q", cr.Class, g.Picks, g.RolledOut, cr.GroupText())
		}
	}
}
