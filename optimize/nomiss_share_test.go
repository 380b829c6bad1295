package optimize_test

import (
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// TestRolloutNoMissShareInterval: the pool with a slow replica answers
// every request within its 15 s deadline, in the sweep and in the rollout
// check, so every batch's answered share is 1 in both. The check's report
// gives its answered share the interval the pick's candidate has from the
// same batch shares (sim.BatchShareInterval, [B/(B+z²), 1]), not the
// zero-width [1, 1] it gave before.
func TestRolloutNoMissShareInterval(t *testing.T) {
	sc, err := scenario.Parse("pool.toml", []byte(slowReplicaPoolScenario))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 8000, 8000
	s.Search.Delays = []time.Duration{1500 * time.Millisecond}
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
	pick := rep.Classes[0].Picked()
	got := rep.Rollout.Report.Classes[0]
	if pick.AnsweredShare != 1 || got.AnsweredShare != 1 || got.Batches == nil {
		t.Fatalf("pick answers %v, the check %v in batches %+v: want every request answered, in batches", pick.AnsweredShare, got.AnsweredShare, got.Batches)
	}
	p, c := pick.AnsweredShareCI95, got.AnsweredShareCI95
	if p == nil || c == nil || p[0] == nil || p[1] == nil || c[0] == nil || c[1] == nil {
		t.Fatalf("pick's interval %v, the check's %v: want both", p, c)
	}
	t.Logf("check [%v, %v] in %d batches, pick [%v, %v]", *c[0], *c[1], got.Batches.Count, *p[0], *p[1])
	if *c[0] != *p[0] || *c[1] != *p[1] || !(*c[0] < 1) {
		t.Errorf("the check's answered share interval [%v, %v], the pick's [%v, %v]: want the same, with a width", *c[0], *c[1], *p[0], *p[1])
	}
}
