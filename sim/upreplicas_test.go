package sim_test

import (
	"math"
	"testing"
	"time"

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
