package retune

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// pipelineScenario is a turn of two guard steps in a group, fail-open at
// 0.3 s, then the answer; the first guard hedges on itself. Under
// objective checked within 1.3 s its new pick hedges a guard step.
const pipelineScenario = `
seed = 1
requests = 2000
[arrivals]
process = "poisson"
rate = 10.0
[models.ga]
provider = "pa"
price_per_request = 0.001
latency = { kind = "mixture", weights = [0.8, 0.2], components = [{ kind = "constant", value = 0.1 }, { kind = "constant", value = 0.5 }] }
[models.gb]
provider = "pb"
price_per_request = 0.002
latency = { kind = "uniform", min = 0.0, max = 0.4 }
[models.chat]
provider = "pc"
price_per_request = 0.01
latency = { kind = "constant", value = 1.0 }
[[classes]]
name = "turn"
share = 1.0
deadline = "10s"
[[classes.steps]]
name = "ga"
group = "g"
deadline = "0.3s"
on_timeout = "fail_open"
[classes.steps.hedge]
primary = "ga"
targets = ["ga"]
delay = "0.15s"
max_copies = 1
[[classes.steps]]
name = "gb"
group = "g"
deadline = "0.3s"
on_timeout = "fail_open"
[classes.steps.hedge]
primary = "gb"
[[classes.steps]]
name = "answer"
[classes.steps.hedge]
primary = "chat"
`

// TestNewPickPipelineNoDelay: a pipeline's new pick has a delay and
// copies per hedged step, not one of each: new_delay_s and new_copies are
// null in the JSON, as a pipeline candidate's won_by_* are in optimize's,
// while new_pick names each step's. A one-call class's pick gives both.
func TestNewPickPipelineNoDelay(t *testing.T) {
	rc := recheckChecked(t)
	a := rc.Classes[0]
	if p := rc.New.Classes[0].Picked(); a.Undecided || p.Steps == nil || !p.Hedging || a.New != p.Label {
		t.Fatalf("premise: the new pick %q is not a pipeline's decided pick that hedges", a.New)
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{`"new_delay_s":null`, `"new_copies":null`} {
		if !strings.Contains(string(b), f) {
			t.Errorf("pipeline pick %q: the JSON lacks %s: %.300s", a.New, f, b[strings.Index(string(b), `"new_pick"`):])
		}
	}

	// A one-call class's pick: 0.25 s, 2 copies.
	var one ClassAdvice
	one.setNew(&optimize.Candidate{Label: "250ms ×2", Hedging: true, DelaySeconds: 0.25, Copies: 2})
	if one.NewDelay == nil || *one.NewDelay != 0.25 || one.NewCopies == nil || *one.NewCopies != 2 {
		t.Errorf("one-call pick 250ms ×2: delay %v s, %v copies; want 0.25 s, 2", one.NewDelay, one.NewCopies)
	}
}

// recheckChecked re-checks pipelineScenario's current policy on its own
// models under objective checked within 1.3 s, 2000 requests a candidate
// and in the check, without the adaptive comparison.
func recheckChecked(t *testing.T) *Recheck {
	t.Helper()
	sc, err := scenario.Parse("pipe.toml", []byte(pipelineScenario))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 2000, 2000
	s.Each(func(se *optimize.Search) {
		se.Objective.SetName("checked")
		se.Objective.Target = 1300 * time.Millisecond
	})
	cfg := &sc.Config
	rc, err := RecheckPolicy(context.Background(), cfg, cfg, RecheckOptions{Settings: s, NoAdaptive: true})
	if err != nil {
		t.Fatal(err)
	}
	return rc
}
