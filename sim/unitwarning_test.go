package sim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestMillisecondsWarning: a TTFT written in milliseconds (p50 = 600 where
// 0.6 was meant) against a 3 s deadline makes every request miss; the
// report says the values are seconds and what was likely meant. The same
// model in seconds, and a latency truly longer than a deadline that no
// reading in milliseconds would meet, get no such warning.
func TestMillisecondsWarning(t *testing.T) {
	ttft, err := dist.NewQuantileTable([]float64{0.5, 0.99}, []float64{600, 2400})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &sim.Config{
		Name: "ms", Seed: 1, Requests: 200,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 10},
		Models:   []sim.Model{{Name: "chat", TTFT: ttft, TokensPerSecond: dist.Constant{Value: 50}}},
		Classes: []sim.Class{{Name: "c", Share: 1, Deadline: 3 * time.Second,
			InputTokens: dist.Constant{Value: 10}, OutputTokens: dist.Constant{Value: 10},
			Policy: sim.Policy{Winner: sim.FirstToken}}},
	}
	c := report(t, cfg).Classes[0]
	want := "model chat's ttft has a median of 600 s, at or past the class's 3s deadline, so nearly every request misses it: values are seconds; did you mean 0.6 (600 ms)?"
	if c.AnsweredShare != 0 || !hasWarning(&c, want) {
		t.Errorf("answered %v, warnings %q; want %q", c.AnsweredShare, c.Warnings, want)
	}
	cfg.Models[0].TTFT = dist.Constant{Value: 0.6}
	if c := report(t, cfg).Classes[0]; hasWarning(&c, "values are seconds") {
		t.Errorf("TTFT 0.6 s: %q", c.Warnings)
	}
	// 3.2 h against a 3 s deadline: 11.5 s even in milliseconds, so not a unit slip.
	cfg.Models[0].TTFT, cfg.Models[0].TokensPerSecond = nil, nil
	cfg.Models[0].Latency = dist.Constant{Value: 11_500}
	cfg.Classes[0].Policy.Winner = sim.FirstValid
	if c := report(t, cfg).Classes[0]; hasWarning(&c, "values are seconds") || c.AnsweredShare != 0 {
		t.Errorf("latency 11 500 s: answered %v, %q", c.AnsweredShare, c.Warnings)
	}
	cfg.Models[0].Latency = dist.Constant{Value: 900}
	if c := report(t, cfg).Classes[0]; !hasWarning(&c, "model chat's latency has a median of 900 s") || !strings.Contains(strings.Join(c.Warnings, "\n"), "did you mean 0.9 (900 ms)?") {
		t.Errorf("latency 900 s: %q", c.Warnings)
	}
}
