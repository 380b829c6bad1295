package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// answeredAt returns, per request of cfg, when it was answered (its
// winning attempt's end), or −1 when it was not.
func answeredAt(t *testing.T, cfg *sim.Config) []float64 {
	t.Helper()
	ends := make([]float64, cfg.Requests)
	for i := range ends {
		ends[i] = -1
	}
	if _, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) {
		if r.Won && r.Outcome == "completed" {
			ends[r.Request] = r.End.Seconds()
		}
	}); err != nil {
		t.Fatal(err)
	}
	return ends
}

// TestColdStartQueuedAttemptFindsReplicaWarm pins the defect of a queued
// attempt paying a cold start on a replica that was never idle: one
// replica kept warm 500 ms, cold starts of 5 s, constant service S,
// requests 1 s apart from 0. With one slot and S = 0.2 s, request 0 finds
// the replica warm (replicas start warm, idle since 0) and ends at 0.2 s;
// request 1, at 1 s, finds it idle 800 ms, so cold, and is served from
// 6 s; requests 2–4 arrive during that cold start, queue, and are each
// handed the slot as the one before leaves — the replica is never idle,
// so they are served back to back with no further cold start, ending at
// 6.4, 6.6 and 6.8 s. With S = 2 s the slot is never free from 0 to 10 s:
// each request is handed it by the one before and none pays a cold start.
// Two slots give the same cold starts (the second slot lets request 2
// join the cold start under way).
func TestColdStartQueuedAttemptFindsReplicaWarm(t *testing.T) {
	for _, tc := range []struct {
		service float64
		conc    int
		want    []float64
		cold    int64
	}{
		{0.2, 1, []float64{0.2, 6.2, 6.4, 6.6, 6.8}, 1},
		{0.2, 2, []float64{0.2, 6.2, 6.2, 6.4, 6.4}, 1},
		{2, 1, []float64{2, 4, 6, 8, 10}, 0},
		{2, 2, []float64{2, 3, 4, 5, 6}, 0},
	} {
		cfg := coldPool(5, 1, 1, time.Duration(tc.service*float64(time.Second)), 5*time.Second, 500*time.Millisecond)
		cfg.Arrivals.Process = sim.Constant
		cfg.Providers[0].Pool.Concurrency = tc.conc
		got := answeredAt(t, cfg)
		for i := range tc.want {
			if math.Abs(got[i]-tc.want[i]) > 1e-9 {
				t.Errorf("service %v s, concurrency %d: request %d ended at %v s, want %v s (all: %v)", tc.service, tc.conc, i, got[i], tc.want[i], got)
				break
			}
		}
		if cs := mustRun(t, cfg).Pools[0].ColdStarts; cs != tc.cold {
			t.Errorf("service %v s, concurrency %d: %d cold starts, want %d", tc.service, tc.conc, cs, tc.cold)
		}
	}
}
