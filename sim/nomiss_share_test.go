package sim_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestRunNoMissSharesWilsonBound: an M/M/1 queue at ρ = 0.5 with no
// deadline answers every request, so every batch's answered share is 1
// and the t interval of the batch shares has no width. The run's row,
// text and JSON, reports the interval optimize's candidates get from the
// same batch shares (sim.BatchShareInterval): [B/(B+z²), 1] over its B
// batches, not [1, 1].
func TestRunNoMissSharesWilsonBound(t *testing.T) {
	cfg := queueConfig(20_000, 0.5, 1, 1)
	h := mustRun(t, cfg)
	rep := sim.NewReport(cfg, h, h)
	c := rep.Classes[0]
	if c.AnsweredShare != 1 || c.Batches == nil || c.Batches.Count < 2 {
		t.Fatalf("answered share %v, batches %+v: want every request answered, in batches", c.AnsweredShare, c.Batches)
	}
	ones := make([]float64, c.Batches.Count)
	for j := range ones {
		ones[j] = 1
	}
	want := sim.BatchShareInterval(1, ones, 0.95)
	const z = 1.959963984540054
	b := float64(c.Batches.Count)
	if want[0] != b/(b+z*z) || want[1] != 1 || !(want[0] < 1) {
		t.Fatalf("BatchShareInterval of %d ones: %v, want [%v, 1]", c.Batches.Count, want, b/(b+z*z))
	}
	ci := c.AnsweredShareCI95
	if ci == nil || ci[0] == nil || ci[1] == nil {
		t.Fatalf("answered share interval %v, want %v", ci, want)
	}
	if got := [2]float64{*ci[0], *ci[1]}; got != want {
		t.Fatalf("answered share interval %v, want %v", got, want)
	}
	js, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var w struct {
		CI [2]float64 `json:"answered_share_ci95"`
	}
	if err := json.Unmarshal(js, &w); err != nil {
		t.Fatal(err)
	}
	if w.CI != want {
		t.Errorf("JSON answered_share_ci95 %v, want %v", w.CI, want)
	}
	var txt bytes.Buffer
	if err := rep.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf("answered 100.0%% [%.1f%%, 100.0%%]", 100*want[0])
	if !strings.Contains(txt.String(), line) {
		t.Errorf("text lacks %q:\n%s", line, txt.String())
	}
}

// TestPipelineNoMissSharesWilsonBound: a guard step with no deadline on
// an M/M/1 queue at ρ = 0.5, then a chat step: every turn is checked and
// none degraded, so every batch's checked share is 1 and its degraded
// share 0, in the pipeline row and in the step rows (the guard step's
// answered share is 1 in every batch too). Each gets
// sim.BatchShareInterval's width at its bound — [B/(B+z²), 1] at 1,
// [0, z²/(B+z²)] at 0 — not a zero-width interval.
func TestPipelineNoMissSharesWilsonBound(t *testing.T) {
	models := []sim.Model{
		{Name: "guard", Provider: "q", Latency: dist.Exponential{Rate: 1}},
		{Name: "chat", Provider: "chat", Latency: dist.Constant{Value: 0.5}},
	}
	guard := call(0, sim.FailOpen)
	chat := call(0, sim.FailClosed)
	chat.Policy.Primary = 1
	pl := &sim.Pipeline{
		Steps:  []sim.Step{{Name: "guard", Call: guard, FanOut: 1}, {Name: "chat", Call: chat, FanOut: 1, InputFrom: []sim.TokenRef{{Step: 0}}}},
		Stages: []sim.Stage{{Steps: []int{0}}, {Steps: []int{1}}},
	}
	cfg := pipelineConfig(20_000, models, pl)
	cfg.Arrivals.Rate = 0.5
	cfg.Providers = []sim.Provider{{Name: "q", Concurrency: 1, IgnoresCancel: true}}
	h := mustRun(t, cfg)
	c := sim.NewReport(cfg, h, h).Classes[0]
	p := c.Pipeline
	if c.Batches == nil || p == nil || p.CheckedShare != 1 || p.DegradedShare != 0 || len(p.Steps) != 2 {
		t.Fatalf("batches %+v, pipeline %+v: want every turn checked, in batches", c.Batches, p)
	}
	const z = 1.959963984540054
	b := float64(c.Batches.Count)
	one, zero := [2]float64{b / (b + z*z), 1}, [2]float64{0, z * z / (b + z*z)}
	for _, x := range []struct {
		what string
		ci   *[2]*float64
		want [2]float64
	}{{"checked share", p.CheckedShareCI95, one}, {"degraded share", p.DegradedShareCI95, zero},
		{"guard step's answered share", p.Steps[0].AnsweredShareCI95, one},
		{"guard step's degraded share", p.Steps[0].DegradedShareCI95, zero},
		{"chat step's degraded share", p.Steps[1].DegradedShareCI95, zero}} {
		if x.ci == nil || x.ci[0] == nil || x.ci[1] == nil {
			t.Errorf("%s: no interval, want %v", x.what, x.want)
			continue
		}
		if got := [2]float64{*x.ci[0], *x.ci[1]}; math.Abs(got[0]-x.want[0]) > 1e-12 || math.Abs(got[1]-x.want[1]) > 1e-12 {
			t.Errorf("%s: %v, want %v", x.what, got, x.want)
		}
	}
}
