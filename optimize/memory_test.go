package optimize_test

import (
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// TestEstimateMemoryCountsBatches: a sweep's estimate counts a batch of
// runs per worker for a class whose grid candidates take the lane — also
// when its configured policy does not (an adaptive delay, which the grid
// candidates drop) — and one run per worker for a closed-loop class.
func TestEstimateMemoryCountsBatches(t *testing.T) {
	src, err := scenarios.FS.ReadFile("guard-check.toml")
	if err != nil {
		t.Fatal(err)
	}
	load := func(text string) *scenario.Scenario {
		sc, err := scenario.Parse("gc.toml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	plain := load(string(src))
	adaptive := load(strings.Replace(string(src), `delay = "1s" `, `adaptive = { percentile = 0.9, window = 100, warm_up = 10, source = "requests" }
delay = "1s" `, 1))
	if adaptive.Config.Classes[0].Policy.Adaptive == nil {
		t.Fatal("the adaptive variant has no adaptive delay")
	}
	s := optimize.DefaultSettings()
	s.Requests, s.CheckRequests = 1_000_000, 0
	const workers = 2
	one := optimize.EstimateMemory(&plain.Config, optimize.Settings{Requests: 1, CheckRequests: 0, Level: s.Level, Rule: s.Rule}, workers)
	got, gotAdaptive := optimize.EstimateMemory(&plain.Config, s, workers), optimize.EstimateMemory(&adaptive.Config, s, workers)
	if got != gotAdaptive {
		t.Errorf("adaptive configured policy: estimate %d; want the plain class's %d (the grid candidates take the lane)", gotAdaptive, got)
	}
	// One run of 10⁶ requests per worker would be about 2·(5·10⁶) bytes
	// more than a run of 1 request; a batch of them is several times that.
	if perRun := int64(10_000_000); got-one < 4*workers*perRun {
		t.Errorf("estimate %d bytes over %d for one request: under 4 runs of 10⁶ requests per worker", got, one)
	}
	closed, err := scenario.LoadFS(scenarios.FS, "eval-black-hole.toml")
	if err != nil {
		t.Fatal(err)
	}
	s.Requests = 20_000
	est := optimize.EstimateMemory(&closed.Config, s, workers)
	if est > 1<<30 {
		t.Errorf("closed-loop sweep estimated at %d bytes: its runs, off the lane, are made one at a time", est)
	}
}
