package sim_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// TestOfferedLoad: one provider with concurrency 1 and exponential
// service of rate 1/s under Poisson arrivals at λ, no deadline. Its
// offered load ρ = λ/μ is estimated within 5 % of itself below and above
// 1 (20 000 requests: the relative standard error of a rate estimated from
// n arrivals is 1/√n ≈ 0.7 %, and of a mean service time as much); at
// ρ ≥ 1 the report warns, naming the provider and its load, and below it
// does not.
func TestOfferedLoad(t *testing.T) {
	for _, rho := range []float64{0.5, 0.8, 1.2, 2} {
		cfg := queueConfig(20_000, rho, 1, 1)
		res := mustRun(t, cfg)
		p := &res.Providers[0]
		if got := p.OfferedLoad(); math.Abs(got-rho) > 0.05*rho {
			t.Errorf("ρ %v: offered load %.4f; want within 5%%", rho, got)
		}
		rep := sim.NewReport(cfg, res, res)
		w := strings.Join(rep.Warnings, "\n")
		if want := rho >= 1; strings.Contains(w, "provider p is offered") != want {
			t.Errorf("ρ %v: warnings %q; want a warning on provider p: %v", rho, rep.Warnings, want)
		}
	}
}

// TestOfferedLoadOfHedging: ρ = 0.7 without hedging, but a copy sent at
// once to the same provider doubles its work: the hedged run is unstable
// and the report says so, naming hedging as the cause.
func TestOfferedLoadOfHedging(t *testing.T) {
	cfg := queueConfig(20_000, 0.7, 1, 1)
	cfg.Classes[0].Policy = sim.Policy{Copies: 1, Delays: []time.Duration{0}, CancelLatency: time.Hour}
	base := mustRun(t, sim.WithoutHedging(cfg))
	hedged := mustRun(t, cfg)
	rep := sim.NewReport(cfg, hedged, base)
	if w := strings.Join(rep.Warnings, "\n"); !strings.Contains(w, "provider p is offered") || !strings.Contains(w, "with hedging (stable without)") {
		t.Errorf("warnings %q; want provider p unstable with hedging", rep.Warnings)
	}
	if base.Providers[0].Unstable() || !hedged.Providers[0].Unstable() {
		t.Errorf("offered load %.3f without, %.3f with hedging; want stable, then unstable", base.Providers[0].OfferedLoad(), hedged.Providers[0].OfferedLoad())
	}
}

// TestOfferedLoadAbandoned: at ρ = 1.5 with a 2 s deadline whose cancel
// lands at once — freeing queued attempts, and cutting short those in
// service — the queue stays short: the work actually left to the provider
// is below its capacity, its queue does not grow, the run's figures do
// not depend on its length, and it is not unstable.
func TestOfferedLoadAbandoned(t *testing.T) {
	cfg := queueConfig(20_000, 1.5, 1, 1)
	cfg.Classes[0].Deadline = 2 * time.Second
	res := mustRun(t, cfg)
	if p := &res.Providers[0]; p.Unstable() || p.OfferedLoad() >= 1 {
		t.Errorf("offered load %.3f, growing %v; want a queue kept short by the deadline", p.OfferedLoad(), p.Unstable())
	}
}
