package retune

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// withinScenario hedges a model that answers in 0.1 s (80 %) or 1 s with
// a copy on another after 0.3 s that answers in 0.1 s or 1 s (half each):
// within 0.5 s it answers 0.8 + 0.2·0.5 = 90 % of requests, 80 % without
// hedging. Providers are unlimited: requests are independent.
const withinScenario = `
seed = 3
requests = 4000
[arrivals]
process = "poisson"
rate = 5.0
[models.a]
provider = "pa"
price_per_request = 0.001
latency = { kind = "mixture", weights = [0.8, 0.2], components = [{ kind = "constant", value = 0.1 }, { kind = "constant", value = 1.0 }] }
[models.b]
provider = "pb"
price_per_request = 0.001
latency = { kind = "mixture", weights = [0.5, 0.5], components = [{ kind = "constant", value = 0.1 }, { kind = "constant", value = 1.0 }] }
[[classes]]
name = "c"
share = 1.0
deadline = "5s"
[classes.hedge]
primary = "a"
targets = ["b"]
delay = "0.3s"
max_copies = 1
`

// TestRecheckPredictsWithin: under objective answered with a target, the
// check of the current policy gives the share within the target that the
// scenario's models predict (RolloutWithin.Predicted, with its interval),
// not 0 and null. The live models are the scenario's and both runs are
// on the scenario's seed (RecheckPolicy), so the prediction is the
// check's own run: the shares are equal, both about 90 %.
func TestRecheckPredictsWithin(t *testing.T) {
	sc, err := scenario.Parse("within.toml", []byte(withinScenario))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 4000, 4000
	s.Each(func(se *optimize.Search) {
		se.Copies = []int{1}
		se.Objective.SetName("answered")
		se.Objective.Target = 500 * time.Millisecond
		se.Objective.MaxAddedCostPct = math.Inf(1)
	})
	cfg := &sc.Config
	rc, err := RecheckPolicy(context.Background(), cfg, cfg, RecheckOptions{Settings: s, NoAdaptive: true})
	if err != nil {
		t.Fatal(err)
	}
	w := rc.Check.Classes[0].Within
	if w == nil {
		t.Fatal("the check has no share within the target")
	}
	// 4 sd of a share of 0.9 from 4000 independent requests: 0.019.
	tol := 4 * math.Sqrt(0.9*0.1/4000)
	if math.Abs(w.Share-0.9) > tol {
		t.Errorf("premise: the check's share within 0.5 s %.4f, want 0.9 ± %.3f", w.Share, tol)
	}
	if w.Predicted == nil {
		t.Fatal("predicted share within 0.5 s null, want the check's run's")
	}
	if *w.Predicted != w.Share {
		t.Errorf("predicted share within 0.5 s %.4f, want the check's %.4f (the same models and seed)", *w.Predicted, w.Share)
	}
	ci := w.PredictedCI
	if ci == nil || ci[0] == nil || ci[1] == nil || !(*ci[0] < *w.Predicted && *w.Predicted < *ci[1]) {
		t.Errorf("predicted share %.4f has interval %v; want one around it", *w.Predicted, ci)
	}
}

// TestDecideInObjectiveTerms: under objective checked within 1.3 s, the
// decision compares the shares checked within the target, the objective,
// not p95, and its reason leads with them. On pipelineScenario the check
// of the current policy (its first guard hedged at 150 ms) gives each
// share from 2000 independent requests; the new pick hedges sooner and
// checks a share whose interval lies wholly above: change.
func TestDecideInObjectiveTerms(t *testing.T) {
	rc := recheckChecked(t)
	a, p := rc.Classes[0], rc.New.Classes[0].Picked()
	w := a.Now.Within
	if w == nil || a.Undecided {
		t.Fatalf("premise: no share checked within the target in the check (%v), or undecided (%v)", w, a.Undecided)
	}
	t.Logf("%s → %s: %s", a.CurrentLabel, a.New, a.Why)
	figures := fmt.Sprintf("checked within 1.30s %.1f%% → %.1f%%, p95 ", 100*w.Share, 100*p.AnsweredWithinShare)
	if !strings.Contains(a.Why, figures) {
		t.Errorf("reason %q does not lead its figures with %q", a.Why, figures)
	}
	z := distuv.UnitNormal.Quantile(0.975)
	pl, _ := wilson(p.AnsweredWithinShare, p.Requests, z)
	_, nh := wilson(w.Share, a.NowRequests, z)
	if !(pl > nh) {
		t.Fatalf("premise: the new pick's share %.4f (from %.4f) is not significantly above the check's %.4f (to %.4f)", p.AnsweredWithinShare, pl, w.Share, nh)
	}
	if a.Decision != Change || !strings.HasPrefix(a.Why, "the new pick does significantly better: ") {
		t.Errorf("decision %s (%s); want change, the new pick significantly better", a.Decision, a.Why)
	}
}
