package optimize_test

import (
	"bytes"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// TestShardedSpendSaysTheSame: tinyShareScenario couples its classes
// through a provider's concurrency limit, and its rare class gets no
// request, so the group's runs measure it with none (requests 0, every
// latency NaN). Split over two shards, that measurement was refused when
// its part was read back ("requests is 0; want ≥ 1"), and no merged
// report could be made. Now the assembled report is Run's, byte for
// byte, and says the same about costs: rare's spend has no cost
// (NoCost, its dollar figures null), and big, undecided with a configured
// policy the sweep did not simulate, has no pick cost (NoPickCost).
func TestShardedSpendSaysTheSame(t *testing.T) {
	sc, err := scenario.Parse("tiny.toml", []byte(tinyShareScenario))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 2000, 2000
	want := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
	if len(want.Joint) == 0 || want.Classes[1].Requests != 0 || !want.Classes[1].Spend.NoCost || !want.Classes[0].Spend.NoPickCost {
		t.Fatalf("joint groups %d, rare's requests %d, spends %+v and %+v: the test needs coupled classes, rare without requests (no cost) and big without a pick cost",
			len(want.Joint), want.Classes[1].Requests, want.Classes[0].Spend, want.Classes[1].Spend)
	}
	got, stages, _ := shardedSweep(t, &sc.Config, s, 2)
	t.Logf("2 shards: %d stages", stages)
	for i := range want.Classes {
		w, g := want.Classes[i].Spend, got.Classes[i].Spend
		if w != g {
			t.Errorf("class %s: sharded spend %+v, unsharded %+v", want.Classes[i].Class, g, w)
		}
	}
	if g, w := reportBytes(t, got), reportBytes(t, want); !bytes.Equal(g, w) {
		t.Errorf("the assembled report differs from Run's:\n%s", firstDiff(g, w))
	}
}
