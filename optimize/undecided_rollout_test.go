package optimize_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// TestRolloutUndecidedRunsConfigured: at 1000 requests breaker-outage's
// classes are too few for a p95 interval, so their verdicts are undecided
// and what is rolled out is each class's configured policy (the sweep's
// "configured" candidate: it hedges with a fallback copy, which the grid
// does not try), which is therefore the pick. The rollout check runs that policy — RolloutConfig keeps
// it as the scenario configures it — names it "configured", compares it
// with the configured candidate's sweep result, and says why.
func TestRolloutUndecidedRunsConfigured(t *testing.T) {
	sc, err := scenario.LoadFS(scenarios.FS, "breaker-outage.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 1000, 2000
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
	if rep.Rollout == nil || len(rep.Rollout.Classes) != len(rep.Classes) {
		t.Fatalf("rollout check %+v; want one per class", rep.Rollout)
	}
	rc := optimize.RolloutConfig(&sc.Config, rep, 2000)
	for i := range rep.Classes {
		cr := &rep.Classes[i]
		if !cr.Verdict.Undecided {
			t.Fatalf("class %s: verdict %+v; want undecided at 1000 requests", cr.Class, cr.Verdict)
		}
		var conf *optimize.Candidate
		for k := range cr.Candidates {
			if cr.Candidates[k].Configured {
				conf = &cr.Candidates[k]
			}
		}
		if conf == nil || cr.Picked() != conf {
			t.Fatalf("class %s: pick %s; want the configured candidate, what rolls out", cr.Class, cr.Picked().Label)
		}
		for j := range sc.Config.Classes {
			if cl := &sc.Config.Classes[j]; cl.Name == cr.Class && !reflect.DeepEqual(rc.Classes[j].Policy, cl.Policy) {
				t.Errorf("class %s: the rollout check runs %+v; want the configured %+v", cr.Class, rc.Classes[j].Policy, cl.Policy)
			}
		}
		got := rep.Rollout.Classes[i]
		if got.Class != cr.Class || got.Pick != "configured" || got.Unswept ||
			!cmp.Equal(got.Predicted, conf.Latency, cmpopts.EquateNaNs()) || got.PredictedAnswered != conf.AnsweredShare ||
			got.PredictedAddedCostPct != conf.AddedCostPct {
			t.Errorf("class %s: rollout class %+v; want the configured candidate's prediction %+v", cr.Class, got, conf.Latency)
		}
		if !strings.Contains(got.Note, "the verdict is undecided, so the check runs the class's configured policy") || strings.Contains(got.Note, "did not simulate") {
			t.Errorf("class %s: note %q; want it to say the configured policy runs", cr.Class, got.Note)
		}
	}
}
