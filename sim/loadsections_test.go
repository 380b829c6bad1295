package sim_test

import (
	"testing"

	"github.com/hedgesim/hedgesim/sim"
)

// utilisationCovers runs cfg on seeds 1 to 40 with no hedging (the run its
// own baseline) and counts the seeds in which the utilisation interval of
// the provider — or, with rep ≥ 0, of that replica of its pool — holds
// rho.
func utilisationCovers(t *testing.T, cfg *sim.Config, rep int, rho float64) (covered int, meanHalf float64) {
	t.Helper()
	for seed := uint64(1); seed <= 40; seed++ {
		c := *cfg
		c.Seed = seed
		h := mustRun(t, &c)
		r := sim.NewReport(&c, h, h)
		u, ci, method := r.Providers[0].Utilisation, r.Providers[0].UtilisationCI95, r.Providers[0].CIMethod
		if rep >= 0 {
			x := r.Pools[0].Replicas[rep]
			u, ci, method = x.Utilisation, x.UtilisationCI95, x.CIMethod
		}
		if u == nil || ci == nil || ci[0] == nil || ci[1] == nil || method != sim.CIMethodLoad {
			t.Fatalf("seed %d: utilisation %v, interval %v, method %q: want an interval by batch means", seed, u, ci, method)
		}
		if !(*ci[0] <= *u && *u <= *ci[1]) {
			t.Fatalf("seed %d: utilisation %v outside its interval [%v, %v]", seed, *u, *ci[0], *ci[1])
		}
		if *ci[0] <= rho && rho <= *ci[1] {
			covered++
		}
		meanHalf += (*ci[1] - *ci[0]) / 2 / 40
	}
	return covered, meanHalf
}

// TestUtilisationIntervalMMc: the utilisation of an M/M/c queue is
// ρ = λ/(cμ) whatever its queue does. A 95 % interval covers ρ in 38 of 40
// seeds on average; 36 is two binomial standard deviations (√(40·0.05·0.95)
// ≈ 1.4) below it. An M/M/2 at ρ = 0.8, 4·10⁴ requests: batches of about
// 1300 requests, long against the queue's memory.
func TestUtilisationIntervalMMc(t *testing.T) {
	t.Parallel()
	covered, half := utilisationCovers(t, queueConfig(40_000, 1.6, 1, 2), -1, 0.8)
	t.Logf("M/M/2 at ρ = 0.8: the utilisation interval covers 0.8 in %d/40 seeds, mean half-width %.4f", covered, half)
	if covered < 36 {
		t.Errorf("utilisation interval covers ρ = 0.8 in %d/40 seeds, want ≥ 36", covered)
	}
}

// TestUtilisationIntervalMM1: an M/M/1 at ρ = 0.9, whose busy periods are
// long (mean 1/(μ − λ) = 10 s), at 10⁵ requests; the bar as above.
func TestUtilisationIntervalMM1(t *testing.T) {
	if testing.Short() {
		t.Skip("40 runs of 10⁵ requests")
	}
	t.Parallel()
	covered, half := utilisationCovers(t, queueConfig(100_000, 0.9, 1, 1), -1, 0.9)
	t.Logf("M/M/1 at ρ = 0.9: the utilisation interval covers 0.9 in %d/40 seeds, mean half-width %.4f", covered, half)
	if covered < 36 {
		t.Errorf("utilisation interval covers ρ = 0.9 in %d/40 seeds, want ≥ 36", covered)
	}
}

// TestReplicaUtilisationInterval: a pool of two single-slot replicas
// behind a random balancer splits Poisson arrivals at 1.6/s into two
// Poisson streams at 0.8/s, each replica an M/M/1 at ρ = 0.8; the bar as
// above.
func TestReplicaUtilisationInterval(t *testing.T) {
	t.Parallel()
	covered, half := utilisationCovers(t, poolConfig(40_000, 1.6, 1, 2, sim.RandomBalancer), 1, 0.8)
	t.Logf("replica of a random pool at ρ = 0.8: the utilisation interval covers 0.8 in %d/40 seeds, mean half-width %.4f", covered, half)
	if covered < 36 {
		t.Errorf("replica utilisation interval covers ρ = 0.8 in %d/40 seeds, want ≥ 36", covered)
	}
}

// TestIndependentRunHasNoUtilisationInterval: a provider without a
// concurrency limit has no utilisation, and an independent run no
// batched interval.
func TestIndependentRunHasNoUtilisationInterval(t *testing.T) {
	cfg := queueConfig(5000, 0.9, 1, 0)
	h := mustRun(t, cfg)
	r := sim.NewReport(cfg, h, h)
	if p := r.Providers[0]; p.UtilisationCI95 != nil || p.CIMethod != "" {
		t.Fatalf("independent run: utilisation interval %v, method %q; want none", p.UtilisationCI95, p.CIMethod)
	}
}
