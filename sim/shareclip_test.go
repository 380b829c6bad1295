package sim_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// TestShareIntervalsWithinUnit: a share or a utilisation lies in [0, 1],
// and so does every bound of its interval in a run report — a batched
// interval of a share near 1 (batching's quiet class, every request
// answered but in a few batches) or of a utilisation near 1
// (loaded-provider at 1.15 times its rate) is clipped there, not left at
// 1.0002 or 1.015. Every shipped scenario, and loaded-provider overloaded.
func TestShareIntervalsWithinUnit(t *testing.T) {
	t.Parallel()
	cfgs := shippedConfigs(t)
	s, err := scenario.LoadFS(scenarios.FS, "loaded-provider.toml")
	if err != nil {
		t.Fatal(err)
	}
	over := s.Config
	over.Name += " at 1.15× its rate"
	over.Arrivals.Rate *= 1.15
	over.Requests = 20_000
	cfgs = append(cfgs, &over)
	checked := 0
	for _, cfg := range cfgs {
		if tr := cfg.Arrivals.Trace; tr != nil && len(tr.Arrivals) < cfg.Requests {
			cfg.Requests = len(tr.Arrivals)
		}
		var doc any
		if err := json.Unmarshal(runReport(t, cfg), &doc); err != nil {
			t.Fatalf("%s: %v", cfg.Name, err)
		}
		var walk func(path string, v any)
		walk = func(path string, v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, y := range x {
					if ci, ok := y.([]any); ok && len(ci) == 2 && (strings.HasSuffix(k, "share_ci95") || k == "utilisation_ci95") {
						checked++
						for _, b := range ci {
							if f, ok := b.(float64); ok && (f < 0 || f > 1) {
								t.Errorf("%s: %s.%s = %v: a bound outside [0, 1]", cfg.Name, path, k, ci)
							}
						}
						continue
					}
					walk(path+"."+k, y)
				}
			case []any:
				for _, y := range x {
					walk(path+"[]", y)
				}
			}
		}
		walk("", doc)
	}
	if checked == 0 {
		t.Fatal("no share or utilisation interval found")
	}
}
