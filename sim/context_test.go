package sim_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/scenario"
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
// interval (4096 units of work: arrivals and events) and returns the
// context's error, no result.
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
		// The context is looked at every 4096 arrivals and events; the
		// requests in flight are left as they are.
		if last > cancelAt+every {
			t.Errorf("global %v: requests up to %d ran after a cancel at %d", global, last, cancelAt)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sim.RunContext(ctx, oneModel(10, dist.Constant{Value: 1}, 0)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before the start: %v", err)
	}
}

// cancelAfter is a context whose Err is nil for its first n calls and
// context.Canceled from then on; it counts the calls.
type cancelAfter struct {
	context.Context
	n, calls int
}

func (c *cancelAfter) Err() error {
	c.calls++
	if c.calls > c.n {
		return context.Canceled
	}
	return nil
}

// TestRunContextCancelByWork: the context is looked at by work done, not
// by arrivals, so a run of a few heavy requests stops too. Three requests
// of a pipeline whose step fans out to 4 095 calls: RunContext looks at
// the context before it starts, at the first arrival, and then once per
// 4096 calls (on the pipelines' lane) or events scheduled (on the event
// loop, when traced: the first arrival schedules 4 095 calls), so a
// context that turns cancelled at its third look stops the run there —
// long before its 12 291 calls are done, with no result — and is looked
// at no more.
func TestRunContextCancelByWork(t *testing.T) {
	s, err := scenario.Parse("fan-out.toml", []byte(`seed = 1
requests = 3
[arrivals]
rate = 10.0
[models.m]
latency = { kind = "lognormal", median = 0.5, p95 = 2.0 }
[[classes]]
name = "p"
[[classes.steps]]
name = "a"
fan_out = 4095
[[classes.steps]]
name = "b"
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, traced := range []bool{false, true} {
		ctx := &cancelAfter{Context: context.Background(), n: 2}
		var fn func(*sim.AttemptRecord)
		if traced {
			fn = func(*sim.AttemptRecord) {}
		}
		res, err := sim.RunTraceContext(ctx, &s.Config, fn)
		if !errors.Is(err, context.Canceled) || res != nil {
			t.Fatalf("traced %v: result %v, error %v; want no result and context.Canceled", traced, res != nil, err)
		}
		if ctx.calls != 3 {
			t.Errorf("traced %v: the context was looked at %d times; want 3 (before the run, at the first arrival, after 4096 units of work)", traced, ctx.calls)
		}
	}
}

// TestRunContextCancelByPoolWork: a pick that looks at every replica of
// a pool counts each replica as a unit of work, so a run of a pool of
// 65 535 replicas looks at its context after its first pick — not after
// 4 096 events, hundreds of picks of milliseconds each — under
// least_outstanding (a scan of the replicas' load) and under
// latency_ewma ranking unmeasured replicas by the pool's mean (a scan of
// their averages). The context turns cancelled at its third look (the
// first is before the run, the second at the first arrival): the run
// stops there, before any attempt has ended, with no result.
func TestRunContextCancelByPoolWork(t *testing.T) {
	for _, tc := range []struct {
		balancer, extra string
	}{
		{"least_outstanding", `view_refresh = "1s"`},
		{"latency_ewma", `unmeasured = "pool_mean"`},
	} {
		s, err := scenario.Parse("huge-pool.toml", []byte(`seed = 1
requests = 2000
[arrivals]
rate = 100.0
[providers.p.pool]
replicas = 65535
concurrency = 8
balancer = "`+tc.balancer+`"
`+tc.extra+`
[models.m]
provider = "p"
latency = { kind = "lognormal", median = 0.05, p95 = 0.2 }
[[classes]]
name = "c"
`))
		if err != nil {
			t.Fatal(err)
		}
		ctx := &cancelAfter{Context: context.Background(), n: 2}
		ended := 0
		res, err := sim.RunTraceContext(ctx, &s.Config, func(*sim.AttemptRecord) { ended++ })
		if !errors.Is(err, context.Canceled) || res != nil {
			t.Fatalf("%s: result %v, error %v; want no result and context.Canceled", tc.balancer, res != nil, err)
		}
		if ended != 0 || ctx.calls != 3 {
			t.Errorf("%s: %d attempts ended and %d looks at the context; want 0 and 3 (before the run, at the first arrival, after the first pick)", tc.balancer, ended, ctx.calls)
		}
	}
}
