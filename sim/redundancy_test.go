package sim_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// redundantServers: n single-slot servers with exponential service of rate
// 1, each its own provider, that ignore cancels; requests arrive as a
// Poisson stream at n·rho, so each server has load rho. One class per
// ordered pair (i, j), i ≠ j, with equal shares sends the primary to server
// i and, when hedged, a copy to server j at once — a random pair of distinct
// servers per request. Without hedging each server is an M/M/1 queue at
// load rho; with it, at load 2·rho.
func redundantServers(n, requests int, rho float64) *sim.Config {
	cfg := &sim.Config{
		Name: "redundancy", Seed: 21, Requests: requests,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: float64(n) * rho},
	}
	for i := range n {
		name := fmt.Sprintf("s%02d", i)
		cfg.Models = append(cfg.Models, sim.Model{Name: name, Provider: name, Latency: dist.Exponential{Rate: 1}})
		cfg.Providers = append(cfg.Providers, sim.Provider{Name: name, Concurrency: 1, IgnoresCancel: true})
	}
	share := 1 / float64(n*(n-1))
	for i := range n {
		for j := range n {
			if i == j {
				continue
			}
			cfg.Classes = append(cfg.Classes, sim.Class{
				Name: fmt.Sprintf("%d-%d", i, j), Share: share,
				InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
				Policy: sim.Policy{Primary: i, Targets: []int{j}, Copies: 1, Delays: []time.Duration{0}},
			})
		}
	}
	return cfg
}

// TestRedundancyWithoutCancellation reproduces Vulimiri et al., "Low
// Latency via Redundancy" (CoNEXT 2013), §2: with many servers, exponential
// service and every request sent to 2 servers at once with no cancellation,
// each server runs at twice the load, a copy's time in system is
// exponential with rate 1 − 2ρ (M/M/1), and a request's, the minimum of two
// independent ones, has mean 1/(2(1 − 2ρ)) against 1/(1 − ρ) without
// copies: redundancy helps if and only if ρ < 1/3.
//
// Each server's arrivals are exactly Poisson, so a copy's marginal is
// exact for any number of servers; the two copies of one request are
// independent only in the large-server limit (two servers share a 1/(n−1)
// share of each one's traffic), so 20 servers are used. Tolerance: 5
// standard errors by batch means over requests in arrival order, after a
// warm-up of 10 %.
func TestRedundancyWithoutCancellation(t *testing.T) {
	t.Parallel()
	const servers = 20
	requests := 200_000
	if testing.Short() {
		requests = 100_000
	}
	for _, rho := range []float64{0.2, 0.3, 0.37, 0.42} {
		t.Run(fmt.Sprintf("ρ=%v", rho), func(t *testing.T) {
			cfg := redundantServers(servers, requests, rho)
			hedged, tolH := batchMeanTol(requestLatencies(t, cfg)[requests/10:])
			single, tolS := batchMeanTol(requestLatencies(t, sim.WithoutHedging(cfg))[requests/10:])
			wantH, wantS := 1/(2*(1-2*rho)), 1/(1-rho)
			t.Logf("mean time in system: redundant %.4f (formula %.4f ± %.4f), single %.4f (formula %.4f ± %.4f)",
				hedged, wantH, tolH, single, wantS, tolS)
			if math.Abs(hedged-wantH) > tolH {
				t.Errorf("redundant: mean %.4f, want 1/(2(1−2ρ)) = %.4f ± %.4f", hedged, wantH, tolH)
			}
			if math.Abs(single-wantS) > tolS {
				t.Errorf("single: mean %.4f, want 1/(1−ρ) = %.4f ± %.4f", single, wantS, tolS)
			}
			if helps := hedged < single; helps != (rho < 1.0/3) {
				t.Errorf("ρ = %v: redundant %.4f vs single %.4f; want redundancy to help iff ρ < 1/3", rho, hedged, single)
			}
		})
	}
}
