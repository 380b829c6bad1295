package optimize_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// overloadedGroup is a coupled group whose requests interact: classes big
// (share 1) and rare (share 1e-9, so it gets no requests) share provider
// p, 50 attempts at once, at 45 requests/s of lognormal calls (median 1 s,
// p95 3 s): offered about 104 % of p's capacity, so p's queue grows and
// the class's percentiles must come from batches. Both hedge at once to
// model n on provider q.
func overloadedGroup(requests int) *sim.Config {
	lat := dist.LogNormal{Mu: 0, Sigma: math.Log(3) / 1.6448536269514722}
	class := func(name string, share float64) sim.Class {
		return sim.Class{Name: name, Share: share, Deadline: 30 * time.Second, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
			Policy: sim.Policy{Primary: 0, Targets: []int{1}, Copies: 1, Delays: []time.Duration{2 * time.Second}}}
	}
	return &sim.Config{
		Name: "overloaded-group", Seed: 1, Requests: requests,
		Arrivals:  sim.Arrivals{Process: sim.Poisson, Rate: 45},
		Providers: []sim.Provider{{Name: "p", Concurrency: 50}, {Name: "q"}},
		Models: []sim.Model{
			{Name: "m", Provider: "p", Latency: lat, PricePerRequest: 0.01},
			{Name: "n", Provider: "q", Latency: lat, PricePerRequest: 0.01},
		},
		Classes: []sim.Class{class("big", 1), class("rare", 1e-9)},
	}
}

// TestGroupVerdictUsesBatchedIntervals: a jointly optimized class whose
// requests interact is judged on batched intervals, as a class optimized
// alone is. At 4000 requests (2000 after the warm-up cut, 67 a batch,
// fewer than the 200 a batch's p95 needs: sim.MinBatchRequests) there is
// no interval, so the verdict is undecided, with the advice to rerun, and
// nothing is significant; order statistics, which assume independent
// requests, had called the hedge significant. Rerun at the advised 6001
// requests, the class is decided.
func TestGroupVerdictUsesBatchedIntervals(t *testing.T) {
	s := optimize.DefaultSettings()
	s.Requests, s.CheckRequests = 2000, 0
	rep := mustRun(t, overloadedGroup(2000), s, optimize.Options{})
	if len(rep.Joint) != 1 {
		t.Fatalf("joint groups %d; want big and rare optimized jointly", len(rep.Joint))
	}
	big := rep.Classes[0]
	if v := big.Verdict; v.Hedge || v.Significant || !v.Undecided {
		t.Errorf("big at 4000 requests: verdict %+v; want undecided, nothing significant", v)
	}
	if r := big.Verdict.Reason; !strings.Contains(r, "too few for a 95% interval on p95") || !strings.Contains(r, "rerun with --requests ≥ 6001") {
		t.Errorf("big's reason %q; want the batched interval's need and the rerun advice", r)
	}
	s.Requests = 6001
	rep = mustRun(t, overloadedGroup(6001), s, optimize.Options{})
	if v := rep.Classes[0].Verdict; v.Undecided || !v.Hedge || !v.Significant {
		t.Errorf("big at the advised 6001 requests: verdict %+v; want a significant hedge", v)
	}
}

// TestGroupObjectiveAnswered: coupled classes whose objective is the share
// answered within a target are held to that objective when the group
// chooses. On shared-rate-limit at 20 000 requests with objective
// answered within 5 s, each class hedges when swept for itself ("each");
// under the weighted group objective both classes must hedge too, not
// fall back to no hedging because the group's runs carried no share
// answered within the target (the verdict then saw 0 % before and after).
func TestGroupObjectiveAnswered(t *testing.T) {
	if testing.Short() {
		t.Skip("two joint sweeps of shared-rate-limit: a long test")
	}
	sc, err := scenario.LoadFS(scenarios.FS, "shared-rate-limit.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 10_000, 0
	s.Each(func(o *optimize.Search) {
		o.Objective.Goal, o.Objective.Target = optimize.MostAnswered, 5*time.Second
	})
	for _, mode := range []string{optimize.GroupEach, optimize.GroupWeighted} {
		s.GroupObjective = mode
		rep := mustRun(t, &sc.Config, s, optimize.Options{})
		for _, cr := range rep.Classes {
			if !cr.Verdict.Hedge {
				t.Errorf("%s: class %s: verdict %q; want hedge", mode, cr.Class, cr.Verdict.Reason)
			}
		}
	}
}

// s3TOML is a gateway whose two classes hedge from gpt (2 % errors, a
// nonfatal error sends the copy at once) to a rate-limited claude: the
// batch class's copies after 22.7 s and after 38.3 s are sent by errors
// alone, so those candidates' runs are alike in every figure.
const s3TOML = `
name = "rl-gw"
seed = 11
[arrivals]
rate = 15
[models.gpt]
provider = "oai"
ttft = { kind = "lognormal", median = 0.4, p95 = 2.5 }
tokens_per_s = { kind = "uniform", min = 40.0, max = 90.0 }
price_input_per_mtok = 2.5
price_output_per_mtok = 10.0
error_rate = 0.02
[models.claude]
provider = "ant"
ttft = { kind = "lognormal", median = 0.6, p95 = 1.2 }
tokens_per_s = { kind = "uniform", min = 50.0, max = 80.0 }
price_input_per_mtok = 3.0
price_output_per_mtok = 15.0
[models.claude.rate_limit]
requests_per_minute = 300
burst = "10s"
[[classes]]
name = "interactive"
share = 0.7
input_tokens = { kind = "uniform", min = 200.0, max = 2000.0 }
output_tokens = { kind = "uniform", min = 50.0, max = 400.0 }
deadline = "20s"
[classes.hedge]
primary = "gpt"
targets = ["claude"]
delay = "800ms"
winner = "first_token"
on_error = "nonfatal"
[[classes]]
name = "batch"
share = 0.3
input_tokens = { kind = "uniform", min = 1000.0, max = 4000.0 }
output_tokens = { kind = "uniform", min = 100.0, max = 800.0 }
deadline = "60s"
[classes.hedge]
primary = "gpt"
targets = ["claude"]
delay = "3s"
on_error = "nonfatal"
`

// TestGroupKeepsOwnPickOnTie: when the group's figures cannot tell the
// class's own pick from the group's choice, the class keeps its own pick,
// so the report never says the group "picks" one candidate while the
// class's own objective "would pick" another alike in every figure.
func TestGroupKeepsOwnPickOnTie(t *testing.T) {
	sc, err := scenario.Parse("s3.toml", []byte(s3TOML))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 3000, 0
	rep := mustRun(t, &sc.Config, s, optimize.Options{})
	for _, cr := range rep.Classes {
		g := cr.Group
		if g == nil || g.Alone == cr.Pick {
			continue
		}
		a, p := &cr.Candidates[g.Alone], cr.Picked()
		if g.AloneValue == g.Value && a.Q(0.95) == p.Q(0.95) && a.AddedCostPct == p.AddedCostPct && a.AnsweredShare == p.AnsweredShare {
			t.Errorf("%s: the group picks %s, its own objective %s, alike in every figure (group %v)", cr.Class, p.Label, a.Label, g.Value)
		}
	}
}
