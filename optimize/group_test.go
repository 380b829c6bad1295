package optimize_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// TestGroupObjectiveSharedRateLimit: on shared-rate-limit's default grids
// (45 candidates a class, over 2000 combinations), the weighted group
// objective searches a coarse grid, then descends. Each class for itself
// ("each") stalls where batch takes model b's quota and interactive gets
// none; the weighted objective shares it: the group's weighted p95 is
// lower, and interactive's own p95 falls. With all the weight on
// interactive, interactive does at least as well as with traffic weights.
// The text names the group objective and what each class's own objective
// would pick.
func TestGroupObjectiveSharedRateLimit(t *testing.T) {
	sc, err := scenario.LoadFS(scenarios.FS, "shared-rate-limit.toml")
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		t.Skip("three joint sweeps of shared-rate-limit: a long test")
	}
	s := sc.Optimize
	s.Requests = 10_000
	s.CheckRequests = 0
	weighted := func(rep *optimize.Report) float64 {
		var sum, sw float64
		for _, cr := range rep.Classes {
			sum += float64(cr.Requests) * cr.Picked().Q(0.95)
			sw += float64(cr.Requests)
		}
		return sum / sw
	}
	s.GroupObjective = optimize.GroupEach
	each := mustRun(t, &sc.Config, s, optimize.Options{})
	s.GroupObjective = optimize.GroupWeighted
	group := mustRun(t, &sc.Config, s, optimize.Options{})
	if j := group.Joint[0]; j.Objective != optimize.GroupWeighted || !strings.Contains(j.Search, "coarse grid") {
		t.Errorf("joint %+v; want the weighted objective from a coarse grid", j)
	}
	if w, e := weighted(group), weighted(each); !(w < e) {
		t.Errorf("weighted p95 %.3fs with the group objective, %.3fs with each class's own", w, e)
	}
	gi, ei := group.Classes[0].Picked().Q(0.95), each.Classes[0].Picked().Q(0.95)
	if group.Classes[0].Class != "interactive" || !(gi < ei) {
		t.Errorf("interactive's p95: %.3fs with the group objective, %.3fs alone; want it lower", gi, ei)
	}
	for _, cr := range group.Classes {
		if cr.Group == nil || cr.Group.Objective != optimize.GroupWeighted || len(cr.Group.Weights) != 2 {
			t.Errorf("%s: group choice %+v", cr.Class, cr.Group)
		}
		// decided_by is "group" exactly when the group objective chose
		// another hedge than the class's own objective would.
		own := cr.Group != nil && cr.Group.Alone == cr.Pick
		if byGroup := cr.Verdict.DecidedBy == optimize.DecidedByGroup; cr.Verdict.Hedge && byGroup == own {
			t.Errorf("%s: pick %d, its own %d, decided by %q", cr.Class, cr.Pick, cr.Group.Alone, cr.Verdict.DecidedBy)
		}
	}
	var b bytes.Buffer
	if err := group.WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "group objective weighted: ") || !strings.Contains(b.String(), "  group: the weighted percentile of interactive (50%) and batch (50%) is ") ||
		!strings.Contains(b.String(), "the class's own objective, the others at their group picks, would pick ") {
		t.Errorf("the text does not show the group objective:\n%s", b.String())
	}

	s.GroupWeights = map[string]float64{"interactive": 1}
	favoured := mustRun(t, &sc.Config, s, optimize.Options{})
	if fi := favoured.Classes[0].Picked().Q(0.95); !(fi <= gi) {
		t.Errorf("interactive's p95 with all the weight on it %.3fs; with traffic weights %.3fs", fi, gi)
	}
}
