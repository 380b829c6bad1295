package scenario

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// TestParseAutoscale: every key of an autoscale table reaches sim.Autoscale,
// and the defaults are Knative's.
func TestParseAutoscale(t *testing.T) {
	s, err := Parse("p.toml", []byte(poolHead+`[providers.gpu.pool]
concurrency = 4
[providers.gpu.pool.autoscale]
min_replicas = 1
max_replicas = 10
initial_replicas = 3
target_utilisation = 0.7
tick = "5s"
stable_window = "2m"
scale_down_delay = "5m"
scale_to_zero_grace = "1m"
no_capacity = "fail"
price_per_replica_hour = 1.5
[providers.gpu.pool.cold_start]
latency = { kind = "constant", value = 40 }
`))
	if err != nil {
		t.Fatal(err)
	}
	p := s.Config.Providers[0].Pool
	want := sim.Autoscale{Min: 1, Initial: 3, Policy: sim.ScaleUtilisation, Target: 0.7, Tick: 5 * time.Second,
		StableWindow: 2 * time.Minute, PanicWindow: 6 * time.Second, PanicThreshold: 2, ScaleDownDelay: 5 * time.Minute,
		ScaleToZeroGrace: time.Minute, NoCapacity: sim.FailFast, PricePerReplicaHour: 1.5}
	if p.Replicas != 10 || p.Autoscale == nil || *p.Autoscale != want || p.ColdStart == nil || p.ColdStart.Latency.Mean() != 40 {
		t.Errorf("pool %+v, autoscale %+v; want 10 replicas and %+v", p, p.Autoscale, want)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings %v", s.Warnings)
	}
	s, err = Parse("p.toml", []byte(poolHead+"[providers.gpu.pool.autoscale]\nmax_replicas = 4\ntarget_concurrency = 10\n"))
	if err != nil {
		t.Fatal(err)
	}
	want = sim.Autoscale{Min: 0, Initial: 1, Policy: sim.ScaleConcurrency, Target: 10, Tick: 2 * time.Second,
		StableWindow: time.Minute, PanicWindow: 6 * time.Second, PanicThreshold: 2, ScaleToZeroGrace: 30 * time.Second}
	if a := s.Config.Providers[0].Pool.Autoscale; a == nil || *a != want {
		t.Errorf("defaults %+v, want %+v", a, want)
	}
	// Without a cold start, new replicas are up at once: a warning at the
	// autoscale table's line.
	if len(s.Warnings) != 1 || s.Warnings[0].Line != 9 || s.Warnings[0].Key != "providers.gpu.pool.autoscale" ||
		!strings.Contains(s.Warnings[0].Msg, "without a cold_start: its new replicas are up at once") {
		t.Errorf("warnings %v; want one at line 9 about the missing cold start", s.Warnings)
	}
}

func TestParseAutoscaleBad(t *testing.T) {
	const as = "[providers.gpu.pool.autoscale]\n"
	for _, tt := range []struct {
		name, pool string
		line       int
		key, msg   string
	}{
		{"min above max", as + "min_replicas = 5\nmax_replicas = 2\ntarget_concurrency = 1\n", 10, "providers.gpu.pool.autoscale.min_replicas", "5 is more than max_replicas = 2; want min_replicas ≤ max_replicas"},
		{"no max", as + "target_concurrency = 1\n", 9, "providers.gpu.pool.autoscale", "missing max_replicas"},
		{"no target", as + "max_replicas = 2\n", 9, "providers.gpu.pool.autoscale", "missing a target"},
		{"two targets", as + "max_replicas = 2\ntarget_concurrency = 1\ntarget_utilisation = 0.5\n", 12, "providers.gpu.pool.autoscale.target_utilisation", "give one target"},
		{"utilisation without concurrency", as + "max_replicas = 2\ntarget_utilisation = 0.5\n", 11, "providers.gpu.pool.autoscale.target_utilisation", "needs a concurrency limit"},
		{"utilisation above 1", "[providers.gpu.pool]\nconcurrency = 2\n" + as + "max_replicas = 2\ntarget_utilisation = 1.5\n", 13, "providers.gpu.pool.autoscale.target_utilisation", "1.5 is out of range; want a value in (0, 1]"},
		{"initial above max", as + "max_replicas = 2\ninitial_replicas = 3\ntarget_concurrency = 1\n", 11, "providers.gpu.pool.autoscale.initial_replicas", "want an integer in [0, 2]"},
		{"replicas beside", "[providers.gpu.pool]\nreplicas = 4\n" + as + "max_replicas = 2\ntarget_concurrency = 1\n", 10, "providers.gpu.pool.replicas", "set max_replicas"},
		{"keep_warm beside", as + "max_replicas = 2\ntarget_concurrency = 1\n[providers.gpu.pool.cold_start]\nkeep_warm = \"1m\"\nlatency = { kind = \"constant\", value = 5 }\n", 13, "providers.gpu.pool.cold_start.keep_warm", "do not go cold on their own"},
		{"give_up beside", as + "max_replicas = 2\ntarget_concurrency = 1\n[providers.gpu.pool.cold_start]\nlatency = { kind = \"constant\", value = 5 }\ngive_up = \"never\"\n", 14, "providers.gpu.pool.cold_start.give_up", "remove give_up"},
		{"panic window above stable", as + "max_replicas = 2\ntarget_concurrency = 1\npanic_window = \"2m\"\n", 12, "providers.gpu.pool.autoscale.panic_window", "want a window from the tick"},
		{"stable window below tick", as + "max_replicas = 2\ntarget_concurrency = 1\ntick = \"10s\"\nstable_window = \"5s\"\n", 13, "providers.gpu.pool.autoscale.stable_window", "want a window of 1 to 4096 ticks"},
		{"panic threshold 1", as + "max_replicas = 2\ntarget_concurrency = 1\npanic_threshold = 1.0\n", 12, "providers.gpu.pool.autoscale.panic_threshold", "1 is out of range; want a value in (1, 1000]"},
		{"panic with utilisation", "[providers.gpu.pool]\nconcurrency = 2\n" + as + "max_replicas = 2\ntarget_utilisation = 0.5\npanic_window = \"6s\"\n", 14, "providers.gpu.pool.autoscale.panic_window", "only target_concurrency has a panic mode"},
		{"unknown no_capacity", as + "max_replicas = 2\ntarget_concurrency = 1\nno_capacity = \"wiat\"\n", 12, "providers.gpu.pool.autoscale.no_capacity", `(did you mean "wait"?); allowed: "wait", "fail"`},
		// A value out of range is one error at its line, not repeated by
		// the simulator's own check without one.
		{"min negative", as + "min_replicas = -1\nmax_replicas = 2\ntarget_concurrency = 2\n", 10, "providers.gpu.pool.autoscale.min_replicas", "-1 is out of range; want a value in [0, 65535] replicas"},
		{"max 0", as + "max_replicas = 0\ntarget_concurrency = 2\n", 10, "providers.gpu.pool.autoscale.max_replicas", "0 is out of range; want a value in [1, 65535] replicas"},
		// A window left at its default is not blamed for a tick that
		// does not fit it.
		{"tick past the default stable window", as + "max_replicas = 2\ntarget_concurrency = 1\ntick = \"1000h\"\n", 12, "providers.gpu.pool.autoscale.tick", "1000h0m0s does not fit the default stable window of 1m0s; want a tick of 1/4096 to 1 stable window, or set stable_window"},
		{"tick past the default panic window", as + "max_replicas = 2\ntarget_concurrency = 1\ntick = \"10s\"\n", 12, "providers.gpu.pool.autoscale.tick", "leaves no room for the default panic window of 6s"},
		{"target above its range", as + "max_replicas = 2\ntarget_concurrency = 3e9\n", 11, "providers.gpu.pool.autoscale.target_concurrency", "3e+09 is out of range; want a value in (0, 2147483647] attempts per replica"},
		{"restarts beside", as + "max_replicas = 2\ntarget_concurrency = 1\n[[providers.gpu.pool.restart]]\nreplica = 0\nat = \"1s\"\nfor = \"1s\"\n", 12, "providers.gpu.pool.restart[0]", "restarts in an autoscaled pool are not modelled"},
		{"random restarts beside", as + "max_replicas = 2\ntarget_concurrency = 1\n[providers.gpu.pool.random_restarts]\nmean_up = \"1m\"\ndown = \"5s\"\n", 12, "providers.gpu.pool.random_restarts", "restarts in an autoscaled pool are not modelled"},
		{"batching beside", as + "max_replicas = 2\ntarget_concurrency = 1\n[providers.gpu.pool.batching]\nbase_tokens_per_second = 50.0\ncontention = 1.0\n", 12, "providers.gpu.pool.batching", "batching in an autoscaled pool is not modelled"},
		{"negative price", as + "max_replicas = 2\ntarget_concurrency = 1\nprice_per_replica_hour = -1.0\n", 12, "providers.gpu.pool.autoscale.price_per_replica_hour", "-1 is out of range; want a value in [0, 1e6] USD"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("bad.toml", []byte(poolHead+tt.pool))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T); want a *scenario.Error", err, err)
			}
			if e.Line != tt.line || e.Key != tt.key || !strings.Contains(e.Msg, tt.msg) || strings.Count(err.Error(), "\n") > 0 {
				t.Errorf("got  %v\nwant bad.toml:%d: %s: …%s…", err, tt.line, tt.key, tt.msg)
			}
		})
	}
}

// TestParseAutoscaleTick: a tick below sim.MinScaleTick is out of range.
func TestParseAutoscaleTick(t *testing.T) {
	_, err := Parse("bad.toml", []byte(poolHead+"[providers.gpu.pool.autoscale]\nmax_replicas = 2\ntarget_concurrency = 1\ntick = \"1ms\"\n"))
	var e *Error
	if !errors.As(err, &e) || e.Line != 12 || e.Key != "providers.gpu.pool.autoscale.tick" || !strings.Contains(e.Msg, "1ms is out of range; want a value in [10ms, ") {
		t.Errorf("got %v; want bad.toml:12: providers.gpu.pool.autoscale.tick: 1ms is out of range …", err)
	}
}
