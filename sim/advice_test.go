package sim_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestUnstableAdviceNamesRealKeys: the warning of a queue that grows
// without bound advises bounding it by a scenario key; that key must be
// one the scenario reference lists (it named reject_when_full, which no
// scenario accepts, before queue_limit).
func TestUnstableAdviceNamesRealKeys(t *testing.T) {
	ref, err := os.ReadFile("../scenarios/README.md")
	if err != nil {
		t.Fatal(err)
	}
	// An M/M/1 queue offered 1.3 times what it serves.
	models := []sim.Model{{Name: "m", Provider: "p", Latency: dist.Exponential{Rate: 1}}}
	one := &sim.Config{
		Name: "mm1", Seed: 1, Requests: 20_000,
		Arrivals:  sim.Arrivals{Process: sim.Poisson, Rate: 1.3},
		Models:    models,
		Providers: []sim.Provider{{Name: "p", Concurrency: 1}},
		Classes:   []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{Value: 1}, OutputTokens: dist.Constant{Value: 1}}},
	}
	h := mustRun(t, one)
	rep := sim.NewReport(one, h, mustRun(t, sim.WithoutHedging(one)))
	key := regexp.MustCompile(`bound its queues? \(([a-z_]+)\)`)
	found := 0
	for _, w := range rep.Warnings {
		for _, m := range key.FindAllStringSubmatch(w, -1) {
			found++
			if !strings.Contains(string(ref), "| `"+m[1]+"` |") {
				t.Errorf("the warning advises %q, which scenarios/README.md does not list: %s", m[1], w)
			}
		}
	}
	if found == 0 {
		t.Fatalf("no unstable-queue advice at ρ = 1.3: %q", rep.Warnings)
	}
}
