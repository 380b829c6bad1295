package sim_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestRunContextSameResult: an uncancelled RunContext gives exactly Run's
// result, in isolated and in global event order (a concurrency limit makes
// requests interact).
func TestRunContextSameResult(t *testing.T) {
	iso := oneModel(20000, dist.Exponential{Rate: 2}, 1, 300*time.Millisecond)
	glob := oneModel(20000, dist.Exponential{Rate: 2}, 1, 300*time.Millisecond)
	glob.Providers = []sim.Provider{{Name: "p", Concurrency: 200}}
	for name, cfg := range map[string]*sim.Config{"isolated": iso, "global": glob} {
		want := mustRun(t, cfg)
		got, err := sim.RunContext(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(sim.Canonical(got), sim.Canonical(want)) {
			t.Errorf("%s: RunContext differs from Run", name)
		}
	}
}

// TestRunContextCancel: a run cancelled part-way stops within the check
// interval (4096 requests) and returns the context's error, no result.
func TestRunContextCancel(t *testing.T) {
	const n, cancelAt, every = 1_000_000, 10_000, 4096
	for _, global := range []bool{false, true} {
		cfg := oneModel(n, dist.Exponential{Rate: 2}, 1, 300*time.Millisecond)
		if global {
			cfg.Providers = []sim.Provider{{Name: "p", Concurrency: 200}}
		}
		ctx, cancel := context.WithCancel(context.Background())
		var last int64
		res, err := sim.RunTraceContext(ctx, cfg, func(a *sim.AttemptRecord) {
			if a.Request == cancelAt {
				cancel()
			}
			last = max(last, a.Request)
		})
		cancel()
		if !errors.Is(err, context.Canceled) || res != nil {
			t.Fatalf("global %v: got %v, %v; want no result and context.Canceled", global, res, err)
		}
		// Requests are checked at multiples of 4096; the in-flight ones
		// (at most a few hundred at 50/s and second-long latencies) end.
		if last > cancelAt+2*every {
			t.Errorf("global %v: requests up to %d ran after a cancel at %d", global, last, cancelAt)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sim.RunContext(ctx, oneModel(10, dist.Constant{Value: 1}, 0)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before the start: %v", err)
	}
}
