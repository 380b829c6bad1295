package compare

import (
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestAnsweredUnpairedUnderLoad: two run reports of one M/M/1 queue at
// ρ = 0.9 with a 20 s deadline, on different seeds — so batch j holds
// other requests in each and the reports are not paired — have the same
// true answered share (1 − e⁻², the sojourn being exponential at 0.1/s).
// The two-proportion z test assumes independent requests; under the
// queue's correlation it calls the two seeds' shares different far more
// often than 5 % of the time. compare judges them instead by the overlap
// of the reports' batched intervals (answered_share_ci95), as retune does,
// and says so (test "interval_overlap"): over 20 pairs of seeds at 2·10⁴
// requests it marks at most 2 significant (two disjoint 95 % intervals of
// one share happen well under 5 % of the time, so 2 of 20 is already
// generous), where the z test on the same pairs marks at least 5.
func TestAnsweredUnpairedUnderLoad(t *testing.T) {
	pairs := 20
	if testing.Short() {
		pairs = 10
	}
	queue := func(seed uint64) *Report {
		c := mm1(20_000, seed, 0.9, 1, "c")
		c.Classes[0].Deadline = 20 * time.Second
		return runJSONOf(t, c)
	}
	overlap, z := 0, 0
	for i := range pairs {
		a, b := queue(uint64(2*i+1)), queue(uint64(2*i+2))
		c := Compare(a, b)
		d := delta(t, c, "answered")
		if d.Paired || d.Test != TestOverlap || c.Unpaired == "" {
			t.Fatalf("pair %d: answered share paired %v, test %q, unpaired %q; want the overlap of the batched intervals", i, d.Paired, d.Test, c.Unpaired)
		}
		ca, cb := a.Classes[0].answeredCI, b.Classes[0].answeredCI
		if ca == nil || cb == nil || d.CIA != *ca || d.CIB != *cb {
			t.Fatalf("pair %d: tested intervals %v and %v; want the reports' %v and %v", i, d.CIA, d.CIB, ca, cb)
		}
		if d.Mark == Significant {
			overlap++
		}
		if proportion("answered", d.A, d.B, a.Classes[0].Requests-a.Classes[0].WarmUpCut, b.Classes[0].Requests-b.Classes[0].WarmUpCut).Mark == Significant {
			z++
		}
		if i == 0 {
			_, js := texts(t, c)
			if !strings.Contains(js, `"test": "interval_overlap"`) {
				t.Errorf("JSON does not name the answered share's test:\n%s", js)
			}
		}
	}
	t.Logf("identical queues on other seeds: answered share significant by interval overlap in %d of %d pairs, by the z test in %d", overlap, pairs, z)
	if overlap > pairs/10 {
		t.Errorf("the overlap test marks %d of %d pairs of identical queues significant; want at most %d", overlap, pairs, pairs/10)
	}
	if z < pairs/4 {
		t.Errorf("the z test marks only %d of %d pairs significant: the queue should make it overconfident", z, pairs)
	}
}

// TestAnsweredZTestNamed: for independent requests the answered share
// keeps its two-proportion z test, and the JSON names it.
func TestAnsweredZTestNamed(t *testing.T) {
	free := func(seed uint64) *Report {
		c := mm1(5000, seed, 0.9, 1, "c")
		c.Providers[0].Concurrency = 0
		c.Classes[0].Deadline = 2 * time.Second
		return runJSONOf(t, c)
	}
	c := Compare(free(1), free(2))
	if d := delta(t, c, "answered"); d.Test != TestZ || d.Paired {
		t.Errorf("independent requests: answered share tested by %q (paired %v); want the z test", d.Test, d.Paired)
	}
	if _, js := texts(t, c); !strings.Contains(js, `"test": "two_proportion_z"`) {
		t.Errorf("JSON does not name the z test:\n%s", js)
	}
}

// guardQueue is a pipeline on an M/M/1 queue at ρ = 0.8 whose provider
// ignores cancels: a guard step, fail-open at a 10 s step deadline, then
// a chat step of its own; a turn is checked when the guard's sojourn,
// exponential at 0.2/s, is within 10 s (1 − e⁻²), degraded otherwise.
func guardQueue(n int, seed uint64) *sim.Config {
	step := func(deadline time.Duration, rule sim.TimeoutRule, model int) sim.Class {
		return sim.Class{
			InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Constant{Value: 10},
			Deadline: deadline, OnTimeout: rule,
			Policy: sim.Policy{Primary: model, OnInvalid: sim.NonFatal, CancelBilling: sim.BillInput},
		}
	}
	pl := &sim.Pipeline{
		Steps: []sim.Step{
			{Name: "guard", Call: step(10*time.Second, sim.FailOpen, 0), FanOut: 1},
			{Name: "chat", Call: step(0, sim.FailClosed, 1), FanOut: 1, InputFrom: []sim.TokenRef{{Step: 0}}},
		},
		Stages: []sim.Stage{{Steps: []int{0}}, {Steps: []int{1}}},
	}
	return &sim.Config{
		Name: "guard-queue", Seed: seed, Requests: n,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 0.8},
		Models: []sim.Model{
			{Name: "guard", Provider: "q", Latency: dist.Exponential{Rate: 1}, PricePerRequest: 1},
			{Name: "chat", Provider: "chat", Latency: dist.Constant{Value: 0.5}, PricePerRequest: 1},
		},
		Providers: []sim.Provider{{Name: "q", Concurrency: 1, IgnoresCancel: true}},
		Classes:   []sim.Class{{Name: "p", Share: 1, Pipeline: pl}},
	}
}

// TestPipelineSharesUnderLoad: the checked and degraded shares of a
// pipeline whose requests interact are judged on the reports' batches —
// by their paired difference (per_batch's checked_share and
// degraded_share) when the two runs drew the same requests, by the
// overlap of the reports' batched intervals (checked_share_ci95,
// degraded_share_ci95) when they did not — never by the z test, which
// assumes independent requests. The same queue served at 1/s and at
// 1.25/s (the guard's sojourn at 0.2/s and 0.45/s: checked 0.865 and
// 0.989) on one seed pairs and finds the change significant.
func TestPipelineSharesUnderLoad(t *testing.T) {
	a := runJSONOf(t, guardQueue(20_000, 1))
	if pb := a.Classes[0].perBatch; pb == nil || len(pb.CheckedShare) != pb.Count || len(pb.DegradedShare) != pb.Count {
		t.Fatalf("a queued pipeline's per_batch lacks its checked and degraded shares: %+v", pb)
	}
	fast := guardQueue(20_000, 1)
	fast.Models[0].Latency = dist.Exponential{Rate: 1.25}
	c := Compare(a, runJSONOf(t, fast))
	for _, m := range []string{"checked", "degraded"} {
		if d := delta(t, c, m); !d.Paired || d.Mark != Significant || d.Test != "" {
			t.Errorf("same requests: %s share %.4f → %.4f paired %v, marked %v, test %q; want a significant paired difference", m, d.A, d.B, d.Paired, d.Mark, d.Test)
		}
	}
	other := guardQueue(20_000, 2)
	other.Models[0].Latency = dist.Exponential{Rate: 1.25}
	b := runJSONOf(t, other)
	c = Compare(a, b)
	for _, m := range []string{"checked", "degraded"} {
		d := delta(t, c, m)
		want := a.Classes[0].Pipeline.CheckedCI
		if m == "degraded" {
			want = a.Classes[0].Pipeline.DegradedCI
		}
		if d.Paired || d.Test != TestOverlap || want == nil || d.CIA != *want || d.Mark != Significant {
			t.Errorf("other seeds: %s share paired %v, test %q, A's interval %v (report's %v), marked %v; want the overlap of the batched intervals, significant", m, d.Paired, d.Test, d.CIA, want, d.Mark)
		}
	}
}

// TestOverlapTextShowsShares: a share marked by the overlap of the
// reports' intervals shows them, as shares, in the text table.
func TestOverlapTextShowsShares(t *testing.T) {
	queue := func(seed uint64) *Report {
		c := mm1(5000, seed, 0.9, 1, "c")
		c.Classes[0].Deadline = 20 * time.Second
		return runJSONOf(t, c)
	}
	c := Compare(queue(1), queue(2))
	d := delta(t, c, "answered")
	txt, _ := texts(t, c)
	want := ci(d, d.CIA)
	if d.Test != TestOverlap || !strings.HasSuffix(want, "%]") || !strings.Contains(txt, want) {
		t.Errorf("test %q; the text should show A's interval %q:\n%s", d.Test, want, txt)
	}
}
