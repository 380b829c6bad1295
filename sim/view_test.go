package sim_test

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// staleConfig is poolConfig for 10 one-slot replicas at ρ = 0.9 (λ = 9,
// μ = 1), balancer b, seeing load through v (nil: live).
func staleConfig(n int, b sim.Balancer, v *sim.View) *sim.Config {
	cfg := poolConfig(n, 9, 1, 10, b)
	cfg.Providers[0].Pool.View = v
	return cfg
}

// TestStaleViewHerds checks the qualitative result of Mitzenmacher, "How
// useful is old information?" (IEEE TPDS 11(1), 2000), on 10 one-slot
// replicas at ρ = 0.9 with exponential service of mean 1 s, the load view
// refreshed for all replicas together. Joining the shortest queue (JSQ)
// on an old view herds: refreshed every 2 mean service times it is
// slower than the power of two choices on the same view, although live it
// is faster — but still better than random routing (each replica an M/M/1
// queue at ρ = 0.9, mean time in system 10 s); refreshed every 8 it is
// worse than random. The power of two choices degrades much less: at both
// refresh intervals it stays better than random, and grows by less than a
// third of JSQ's growth.
// Means and tolerances are by batch means (5 standard errors,
// batchMeanTol) after a tenth of the run is dropped as warm-up.
func TestStaleViewHerds(t *testing.T) {
	t.Parallel()
	n := 200_000
	if testing.Short() {
		n = 100_000
	}
	mean := func(b sim.Balancer, v *sim.View) (float64, float64) {
		lat := requestLatencies(t, staleConfig(n, b, v))[n/10:]
		return batchMeanTol(lat)
	}
	rnd, rtol := mean(sim.RandomBalancer, nil)
	jsq, _ := mean(sim.LeastOutstanding, nil)
	p2c, _ := mean(sim.PowerOfTwo, nil)
	for _, refresh := range []time.Duration{2 * time.Second, 8 * time.Second} {
		stale := &sim.View{Refresh: refresh}
		jsqStale, jtol := mean(sim.LeastOutstanding, stale)
		p2cStale, ptol := mean(sim.PowerOfTwo, stale)
		t.Logf("refresh %v: mean time in system random %.3f±%.3f; JSQ live %.3f, stale %.3f±%.3f; p2c live %.3f, stale %.3f±%.3f",
			refresh, rnd, rtol, jsq, jsqStale, jtol, p2c, p2cStale, ptol)
		if refresh == 2*time.Second && !(jsqStale-jtol > p2cStale+ptol) {
			t.Errorf("refresh %v: JSQ mean %.3f ± %.3f, want worse than p2c's %.3f ± %.3f on the same view", refresh, jsqStale, jtol, p2cStale, ptol)
		}
		if refresh == 2*time.Second && !(jsqStale+jtol < rnd-rtol) {
			t.Errorf("refresh %v: JSQ mean %.3f ± %.3f, want still better than random's %.3f ± %.3f", refresh, jsqStale, jtol, rnd, rtol)
		}
		if refresh == 8*time.Second && !(jsqStale-jtol > rnd+rtol) {
			t.Errorf("refresh %v: JSQ mean %.3f ± %.3f, want worse than random's %.3f ± %.3f", refresh, jsqStale, jtol, rnd, rtol)
		}
		if !(p2cStale+ptol < rnd-rtol) {
			t.Errorf("refresh %v: p2c mean %.3f ± %.3f, want better than random's %.3f ± %.3f", refresh, p2cStale, ptol, rnd, rtol)
		}
		if dj, dp := jsqStale-jsq, p2cStale-p2c; !(dp < dj/3) {
			t.Errorf("refresh %v: p2c grew by %.3f s and JSQ by %.3f s: want p2c's growth under a third of JSQ's", refresh, dp, dj)
		}
	}
}

// TestViewRefreshToZeroIsLive: a view refreshed every nanosecond shows,
// at a pick, each replica's load just before the pick's instant — the
// live load, unless another change falls on the very same nanosecond,
// which Poisson arrivals and exponential service times (drawn to the
// nanosecond) make vanishingly rare. So every request's latency under
// JSQ, p2c and latency_ewma is exactly that without a view; the same
// with each replica on its own nanosecond scrape schedule.
func TestViewRefreshToZeroIsLive(t *testing.T) {
	const n = 30_000
	for _, b := range []sim.Balancer{sim.LeastOutstanding, sim.PowerOfTwo, sim.LatencyEWMA} {
		live := requestLatencies(t, staleConfig(n, b, nil))
		for _, v := range []*sim.View{{Refresh: 1}, {Refresh: 1, Scrape: true}} {
			got := requestLatencies(t, staleConfig(n, b, v))
			if !slices.Equal(got, live) {
				for i := range got {
					if got[i] != live[i] {
						t.Errorf("%v, view %+v: request %d took %v s, without a view %v s", b, *v, i, got[i], live[i])
						break
					}
				}
			}
		}
	}
}

// TestStuckSignalAttracts: replica 0's reported load sticks at its first
// refresh (0, the pool being empty at time 0) for the whole run. Under
// p2c it then wins every pair it is drawn into unless the other replica
// also shows 0 — more than a fair share, 1/10 of the attempts, by over 5
// binomial standard deviations — while no other replica does.
func TestStuckSignalAttracts(t *testing.T) {
	const n = 20_000
	cfg := poolConfig(n, 7, 1, 10, sim.PowerOfTwo)
	cfg.Providers[0].Pool.View = &sim.View{Refresh: time.Second, Stuck: []sim.Stuck{{Replica: 0}}}
	res := mustRun(t, cfg)
	var total int64
	for _, r := range res.Pools[0].Replicas {
		total += r.Sent
	}
	sd := math.Sqrt(float64(total) * 0.1 * 0.9)
	t.Logf("stuck replica 0 got %d of %d attempts", res.Pools[0].Replicas[0].Sent, total)
	for _, r := range res.Pools[0].Replicas {
		over := float64(r.Sent) - 0.1*float64(total)
		if r.Replica == 0 && !(over > 5*sd) {
			t.Errorf("stuck replica 0 got %d of %d attempts, want over a tenth by 5 sd (%.0f)", r.Sent, total, 5*sd)
		}
		if r.Replica != 0 && over > 5*sd {
			t.Errorf("replica %d got %d of %d attempts, more than a tenth by 5 sd", r.Replica, r.Sent, total)
		}
	}
}

// TestStuckShorterThanRefreshRefused: a stuck period shorter than the
// view's refresh interval misses at most one refresh, and none unless
// one falls in it: Validate refuses it, and takes one of exactly the
// refresh interval, or one until the end of the run (For 0).
func TestStuckShorterThanRefreshRefused(t *testing.T) {
	for _, tc := range []struct {
		d  time.Duration
		ok bool
	}{{999 * time.Millisecond, false}, {time.Second, true}, {0, true}} {
		cfg := poolConfig(100, 7, 1, 10, sim.PowerOfTwo)
		cfg.Providers[0].Pool.View = &sim.View{Refresh: time.Second, Stuck: []sim.Stuck{{Replica: 0, At: time.Second, For: tc.d}}}
		err := cfg.Validate()
		if tc.ok != (err == nil) || err != nil && !strings.Contains(err.Error(), "less than the view refresh 1s") {
			t.Errorf("stuck for %v: %v; want ok %v", tc.d, err, tc.ok)
		}
	}
}
