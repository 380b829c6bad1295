package sim_test

import (
	"math"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// TestImbalanceOverReplicasUp: an autoscaled pool of at most 3 replicas
// whose load (0.25 in service on average against a target of 3) keeps its
// one minimum replica up the whole run is perfectly even — imbalance 1,
// not 3 — and the provider's utilisation is that replica's, not a third
// of it: both are over the replicas up (time-weighted), not every replica
// the pool could start. The provider averages over its own span (to its
// last attempt's end), the replica over the run's; the two differ by the
// last request's tail, well under 1 % of a run of 5000 arrivals at 1/s.
func TestImbalanceOverReplicasUp(t *testing.T) {
	t.Parallel()
	cfg := poolConfig(5000, 1, 4, 3, sim.PowerOfTwo)
	cfg.Providers[0].Pool.Concurrency = 4
	cfg.Providers[0].Pool.Autoscale = &sim.Autoscale{Min: 1, Initial: 1, Target: 3,
		Tick: 2 * time.Second, StableWindow: 60 * time.Second, PanicWindow: 6 * time.Second,
		PanicThreshold: 2, ScaleToZeroGrace: 30 * time.Second}
	res := mustRun(t, cfg)
	val := func(p *float64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	pl := res.Pools[0]
	if a := pl.Autoscale; a == nil || a.PeakReplicas != 1 {
		t.Fatalf("want one replica up the whole run, got %+v", a)
	}
	if pl.Imbalance == nil || math.Abs(*pl.Imbalance-1) > 1e-9 {
		t.Errorf("imbalance %v, want 1 with one replica up", val(pl.Imbalance))
	}
	rep, prov := pl.Replicas[0].Utilisation, res.Providers[0].Utilisation
	if rep == nil || prov == nil || !(*rep > 0) || math.Abs(*prov / *rep - 1) > 0.01 {
		t.Errorf("provider utilisation %v, replica 0's %v: want the same within 1%%", val(prov), val(rep))
	}
}

// TestImbalanceScaleToZeroAtLeastOne: a pool that scales to zero between
// arrivals 50 s apart (grace 30 s) is up a fraction of the run; its
// imbalance, the largest load while up over the mean per replica up, is
// at least 1 (a largest ratio is at least the ratio of the sums), where
// dividing loads over the whole run by the mean replicas up read below 1.
func TestImbalanceScaleToZeroAtLeastOne(t *testing.T) {
	t.Parallel()
	cfg := scaledPool(400, 0.02, 1, 2, 1)
	res := mustRun(t, cfg)
	pl := res.Pools[0]
	if a := pl.Autoscale; a == nil || !(a.MeanReplicas < 0.9) {
		t.Fatalf("want a pool up part of the run, got %+v", a)
	}
	if pl.Imbalance == nil {
		t.Fatal("imbalance null, want ≥ 1")
	}
	if *pl.Imbalance < 1-1e-12 {
		t.Errorf("imbalance %v, want ≥ 1", *pl.Imbalance)
	}
}

// TestReplicaUtilisationWhileUp: an autoscaled replica's utilisation is
// over its own time up or starting, as the provider row's is over the
// pool's, so a pool of one replica reads the same figure twice. A user's
// scenario (cs.toml): one replica from zero, 10 s cold starts, a request
// every 1000 s with 1 s of work, 200 requests. Each request waits 10 s for
// a start (starting 0–10 s after it arrives), is served 10–11 s, and the
// replica goes back to zero at 102 s: the stable window (60 s) holds
// concurrency until 71 s, the tick at 72 s wants none, and the grace (30
// s) ends at 102 s. The run ends as the last request is answered, 11 s
// after it: up or starting 199 × 102 + 11 = 20 309 s, busy 200 × 1 s, so
// utilisation 200/20 309 ≈ 0.98 % for the provider and the replica alike
// (a share of the whole run, 199 011 s, would read 0.10 %: that is the
// replica's mean in service). With a second replica allowed, which the
// scaler never starts (it wants one), that one reads 0 and the figures
// stay. Deterministic: the tolerance is rounding.
func TestReplicaUtilisationWhileUp(t *testing.T) {
	t.Parallel()
	const doc = `name = "cs"
seed = 1
requests = 200
[arrivals]
process = "constant"
rate = 0.001
[providers.p.pool]
concurrency = 1
[providers.p.pool.autoscale]
min_replicas = 0
initial_replicas = 0
max_replicas = 1
target_concurrency = 1
price_per_replica_hour = 3.6
[providers.p.pool.cold_start]
latency = { kind = "constant", value = 10.0 }
[models.m]
provider = "p"
latency = { kind = "constant", value = 1.0 }
[[classes]]
name = "c"
deadline = "60s"
[classes.hedge]
primary = "m"
max_copies = 0
`
	s, err := scenario.LoadFS(fstest.MapFS{"cs.toml": {Data: []byte(doc)}}, "cs.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, replicas := range []int{1, 2} {
		cfg := s.Config
		pool := *cfg.Providers[0].Pool
		pool.Replicas = replicas
		cfg.Providers = []sim.Provider{cfg.Providers[0]}
		cfg.Providers[0].Pool = &pool
		checkUtilisationWhileUp(t, &cfg, replicas)
	}
}

// checkUtilisationWhileUp checks TestReplicaUtilisationWhileUp's figures
// of cfg's run, whose pool has the given number of replicas.
func checkUtilisationWhileUp(t *testing.T, cfg *sim.Config, replicas int) {
	t.Helper()
	res := mustRun(t, cfg)
	pl := res.Pools[0]
	if len(pl.Replicas) != replicas {
		t.Fatalf("%d replicas in the report, want %d", len(pl.Replicas), replicas)
	}
	const up, busy, run = 199*102 + 11, 200.0, 199011.0
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*want }
	if a := pl.Autoscale; a == nil || !near(a.ReplicaHours*3600, up) || !near(res.Seconds, run) {
		t.Fatalf("%d replicas: autoscale %+v over %v s: want %v replica-seconds over %v s", len(pl.Replicas), a, res.Seconds, up, run)
	}
	val := func(p *float64) any {
		if p == nil {
			return nil
		}
		return *p
	}
	r, p := pl.Replicas[0], res.Providers[0]
	if r.Utilisation == nil || !near(*r.Utilisation, busy/up) {
		t.Errorf("replica 0: utilisation %v, want busy ÷ its time up = %v", val(r.Utilisation), busy/up)
	}
	if p.Utilisation == nil || !near(*p.Utilisation, busy/up) {
		t.Errorf("provider: utilisation %v, want busy ÷ the pool's time up = %v", val(p.Utilisation), busy/up)
	}
	if !near(r.MeanInService, busy/run) {
		t.Errorf("replica 0: mean in service %v, want busy ÷ the run = %v", r.MeanInService, busy/run)
	}
	for _, r := range pl.Replicas[1:] {
		if r.Utilisation == nil || *r.Utilisation != 0 || r.Sent != 0 {
			t.Errorf("replica %d, never started: utilisation %v after %d sent, want 0", r.Replica, val(r.Utilisation), r.Sent)
		}
	}
}
