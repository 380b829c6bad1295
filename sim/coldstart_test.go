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

// TestColdStartGiveUp pins what becomes of a cold start whose attempts
// all leave before its end, under each GiveUp rule: one replica without a
// concurrency limit, 100 ms of work, requests with a deadline and their
// cancels landing at once. Each case's numbers follow by hand:
//
// Three requests at 0, 12 and 24 s, kept warm 8 s, cold starts of 10 s, a
// 5 s deadline (issue 32's reproduction). Request 0 finds the replica warm
// and is answered. Request 1 finds it idle 11.9 s, starts a cold start
// ending at 22 s, and times out at 17 s. Finished (never) or not yet given
// up (scale_to_zero: nothing has waited for it since 17 s, 8 s are not up
// by 22 s), the start leaves the replica warm and request 2 is answered at
// 24.1 s: 1 cold start, 2/3 answered. Stopped by the cancel at 17 s, the
// replica is cold at 24 s and request 2 pays a cold start of its own and
// times out: 2 cold starts, 1/3 answered. At a provider that ignores
// cancels request 1 holds its slot until its end at 22.1 s, so even the
// cancel rule finishes the start: 1 cold start, 2/3 answered.
//
// kserve#1247: requests every 4 minutes from 240 s, kept warm 2 min,
// starts of 3 min, a 30 s client timeout. Under scale_to_zero the start of
// 240 s is given up at 390 s (2 min after its request left at 270 s), 30 s
// before its end at 420 s; the replica never becomes ready and every
// request starts a new cold start: 4 cold starts, none answered — as under
// cancel. Finished regardless, the start of 240 s leaves the replica warm
// from 420 s, so request 480 s is answered; request 720 s finds it idle
// 4 min and starts again, which serves request 960 s: every other request
// answered, 2 cold starts.
//
// Given up is given up: requests at 240 and 400 s, the same settings.
// Under scale_to_zero the request of 400 s comes 10 s after the start of
// 240 s was given up (at 390 s) and 20 s before it would have ended: it
// starts a new one and times out: 2 cold starts, none answered (as under
// cancel). Finished regardless, the start ends at 420 s and the request
// of 400 s, waiting for it, is answered at 420.1 s: 1 cold start.
//
// A request waiting keeps a start going: requests at 240, 360 and 480 s,
// the same settings. Under scale_to_zero the request of 360 s finds the
// start of 240 s under way (nothing has waited for it for only 90 s) and
// waits for it until its own timeout at 390 s; the start ends at 420 s
// and the request of 480 s, 90 s after the last one left, is answered: 1
// cold start, 1/3 answered, as when the start is finished regardless.
// Under cancel each request's start stops at its timeout: 3 cold starts,
// none answered.
//
// The starts given up are counted (gaveUp): every start that began and
// did not end in the cases above where none is answered — the last one
// too, given up after the run's last event (kserve#1247 under
// scale_to_zero: the start of 960 s at 1110 s) — and the start of 24 s
// under cancel in issue 32's case, stopped at 29 s.
func TestColdStartGiveUp(t *testing.T) {
	s := time.Second
	kserve := []time.Duration{240 * s, 480 * s, 720 * s, 960 * s}
	for _, tc := range []struct {
		name                  string
		arrivals              []time.Duration // nil: constant arrivals 12 s apart from 0
		keep, start, deadline time.Duration
		giveUp                sim.GiveUp
		ignoresCancel         bool
		cold, gaveUp          int64
		answered              []bool
	}{
		{"issue 32", nil, 8 * s, 10 * s, 5 * s, sim.GiveUpAtScaleToZero, false, 1, 0, []bool{true, false, true}},
		{"issue 32", nil, 8 * s, 10 * s, 5 * s, sim.GiveUpNever, false, 1, 0, []bool{true, false, true}},
		{"issue 32", nil, 8 * s, 10 * s, 5 * s, sim.GiveUpOnCancel, false, 2, 2, []bool{true, false, false}},
		{"issue 32, cancels ignored", nil, 8 * s, 10 * s, 5 * s, sim.GiveUpOnCancel, true, 1, 0, []bool{true, false, true}},
		{"kserve#1247", kserve, 120 * s, 180 * s, 30 * s, sim.GiveUpAtScaleToZero, false, 4, 4, []bool{false, false, false, false}},
		{"kserve#1247", kserve, 120 * s, 180 * s, 30 * s, sim.GiveUpNever, false, 2, 0, []bool{false, true, false, true}},
		{"kserve#1247", kserve, 120 * s, 180 * s, 30 * s, sim.GiveUpOnCancel, false, 4, 4, []bool{false, false, false, false}},
		{"given up", []time.Duration{240 * s, 400 * s}, 120 * s, 180 * s, 30 * s, sim.GiveUpAtScaleToZero, false, 2, 2, []bool{false, false}},
		{"given up", []time.Duration{240 * s, 400 * s}, 120 * s, 180 * s, 30 * s, sim.GiveUpNever, false, 1, 0, []bool{false, true}},
		{"given up", []time.Duration{240 * s, 400 * s}, 120 * s, 180 * s, 30 * s, sim.GiveUpOnCancel, false, 2, 2, []bool{false, false}},
		{"waiting", []time.Duration{240 * s, 360 * s, 480 * s}, 120 * s, 180 * s, 30 * s, sim.GiveUpAtScaleToZero, false, 1, 0, []bool{false, false, true}},
		{"waiting", []time.Duration{240 * s, 360 * s, 480 * s}, 120 * s, 180 * s, 30 * s, sim.GiveUpNever, false, 1, 0, []bool{false, false, true}},
		{"waiting", []time.Duration{240 * s, 360 * s, 480 * s}, 120 * s, 180 * s, 30 * s, sim.GiveUpOnCancel, false, 3, 3, []bool{false, false, false}},
	} {
		cfg := coldPool(len(tc.answered), 1.0/12, 1, 100*time.Millisecond, tc.start, tc.keep)
		cfg.Arrivals.Process = sim.Constant
		if tc.arrivals != nil {
			cfg.Arrivals = sim.Arrivals{Process: sim.Replay, Trace: &sim.Trace{Arrivals: tc.arrivals}}
		}
		cfg.Providers[0].Pool.ColdStart.GiveUp = tc.giveUp
		cfg.Providers[0].IgnoresCancel = tc.ignoresCancel
		cfg.Classes[0].Deadline = tc.deadline
		name := tc.name + ", give up " + tc.giveUp.String()
		ends := answeredAt(t, cfg)
		var n int64
		for i, want := range tc.answered {
			if got := ends[i] >= 0; got != want {
				t.Errorf("%s: request %d answered %v, want %v (answered at %v)", name, i, got, want, ends)
			}
			if want {
				n++
			}
		}
		res := mustRun(t, cfg)
		if res.Overall.Answered != n {
			t.Errorf("%s: %d answered, want %d", name, res.Overall.Answered, n)
		}
		if cs := res.Pools[0].ColdStarts; cs != tc.cold {
			t.Errorf("%s: %d cold starts, want %d", name, cs, tc.cold)
		}
		if g := res.Pools[0].ColdStartsGivenUp; g != tc.gaveUp {
			t.Errorf("%s: %d cold starts given up, want %d", name, g, tc.gaveUp)
		}
	}
}

// TestColdStartQueuedAttemptKeepsStart: an attempt queued at a one-slot
// replica waits for the cold start under way as much as the attempt in
// the slot does. Requests at 0, 12, 14 and 24 s, kept warm 8 s, cold starts
// of 10 s, a 5 s deadline: request 1 begins a cold start (ready at 22 s),
// request 2 queues behind it; request 1 times out at 17 s and hands its
// slot to request 2, which waits for the same start and times out at 19 s.
// Under cancel the start stops then, so request 3 pays one of its own: 2
// cold starts, not 3 (a start given up at the hand-over at 17 s would make
// request 2 begin another). Under scale_to_zero the start ends at 22 s and
// request 3, 5 s after request 2 left, finds the replica warm: 1 cold
// start, requests 0 and 3 answered.
func TestColdStartQueuedAttemptKeepsStart(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		giveUp   sim.GiveUp
		cold     int64
		answered []bool
	}{
		{sim.GiveUpOnCancel, 2, []bool{true, false, false, false}},
		{sim.GiveUpAtScaleToZero, 1, []bool{true, false, false, true}},
	} {
		cfg := coldPool(4, 1, 1, 100*time.Millisecond, 10*s, 8*s)
		cfg.Arrivals = sim.Arrivals{Process: sim.Replay, Trace: &sim.Trace{Arrivals: []time.Duration{0, 12 * s, 14 * s, 24 * s}}}
		cfg.Providers[0].Pool.Concurrency = 1
		cfg.Providers[0].Pool.ColdStart.GiveUp = tc.giveUp
		cfg.Classes[0].Deadline = 5 * s
		ends := answeredAt(t, cfg)
		for i, want := range tc.answered {
			if got := ends[i] >= 0; got != want {
				t.Errorf("give up %v: request %d answered %v, want %v (answered at %v)", tc.giveUp, i, got, want, ends)
			}
		}
		if cs := mustRun(t, cfg).Pools[0].ColdStarts; cs != tc.cold {
			t.Errorf("give up %v: %d cold starts, want %d", tc.giveUp, cs, tc.cold)
		}
	}
}
