package sim_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// skippedReport runs a pipeline of the given steps, each in a stage of
// its own, on a model answering every call in 0.1 s, and returns its run
// report's text and its pipeline steps as JSON objects.
func skippedReport(t *testing.T, steps []sim.Step) (string, []map[string]any) {
	t.Helper()
	models := []sim.Model{{Name: "m", Provider: "m", Latency: dist.Constant{Value: 0.1}, PriceInputPerMTok: 1}}
	var stages []sim.Stage
	for s := range steps {
		stages = append(stages, sim.Stage{Steps: []int{s}})
	}
	cfg := pipelineConfig(2000, models, &sim.Pipeline{Steps: steps, Stages: stages})
	rep := sim.NewReport(cfg, mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg)))
	var text, js strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Classes []struct {
			Pipeline struct {
				Steps []map[string]any `json:"steps"`
			} `json:"pipeline"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(js.String()), &back); err != nil {
		t.Fatal(err)
	}
	return text.String(), back.Classes[0].Pipeline.Steps
}

// TestStepNeverCalled: a step whose repeat draws 0 every time (0.4 rounds
// to 0) makes no call, so it has no answered share and no latencies, with
// hedging or without: null in run --json, "-" in the text — not 0 and
// 0 s — while the step after it, called once a request, keeps its
// figures.
func TestStepNeverCalled(t *testing.T) {
	never := sim.Step{Name: "never", Call: call(0, sim.FailClosed), FanOut: 1, Repeat: dist.Constant{Value: 0.4}, MaxRepeat: 3}
	once := sim.Step{Name: "once", Call: call(0, sim.FailClosed), FanOut: 1}
	text, steps := skippedReport(t, []sim.Step{never, once})
	if len(steps) != 2 {
		t.Fatalf("%d steps in JSON; want 2", len(steps))
	}
	for _, k := range []string{"answered_share", "no_hedging_answered_share"} {
		if v, ok := steps[0][k]; !ok || v != nil {
			t.Errorf("never: %s = %v (present %v); want null", k, v, ok)
		}
		if v := steps[1][k]; v != 1.0 {
			t.Errorf("once: %s = %v; want 1", k, v)
		}
	}
	for _, k := range []string{"latency_s", "no_hedging_latency_s"} {
		for _, p := range []string{"mean", "p50", "p95", "p99"} {
			if v := steps[0][k].(map[string]any)[p]; v != nil {
				t.Errorf("never: %s.%s = %v; want null", k, p, v)
			}
			if v := steps[1][k].(map[string]any)[p]; v != 0.1 && !(p == "mean" && v.(float64) > 0.0999 && v.(float64) < 0.1001) {
				t.Errorf("once: %s.%s = %v; want 0.1", k, p, v)
			}
		}
	}
	if !strings.Contains(text, "\n    never       0.00     0.00         -             -      -      -      -               -") {
		t.Errorf("text: want the never-called step's figures as \"-\":\n%s", text)
	}
}

// TestTailOfSkippedPipeline: when every step of a pipeline is skipped,
// no request spent time in any step, so the slowest requests have no step
// to attribute their time to: the tail shares are null in JSON and "-" in
// the text, which says there is nothing to attribute — not 50.0 % each,
// as a tie of two steps at 0 s would count. A pipeline whose slow
// requests spent their time in one step gives it the whole tail.
func TestTailOfSkippedPipeline(t *testing.T) {
	skip := sim.Step{Name: "a", Call: call(0, sim.FailClosed), FanOut: 1, Repeat: dist.Constant{Value: 0}, MaxRepeat: 2}
	skip2 := skip
	skip2.Name = "b"
	text, steps := skippedReport(t, []sim.Step{skip, skip2})
	for i, s := range steps {
		if v, ok := s["tail_share"]; !ok || v != nil {
			t.Errorf("step %d: tail_share = %v (present %v); want null", i, v, ok)
		}
	}
	if strings.Contains(text, "50.0%") || !strings.Contains(text, "nothing to attribute") {
		t.Errorf("text: want no tail share and a line saying there is nothing to attribute:\n%s", text)
	}
	once := sim.Step{Name: "once", Call: call(0, sim.FailClosed), FanOut: 1}
	text, steps = skippedReport(t, []sim.Step{skip, once})
	if a, b := steps[0]["tail_share"], steps[1]["tail_share"]; a != 0.0 || b != 1.0 || strings.Contains(text, "nothing to attribute") {
		t.Errorf("one skipped step, one called: tail shares %v, %v; want 0 and 1, and no word of nothing to attribute", a, b)
	}
}
