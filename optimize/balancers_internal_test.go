package optimize

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// fourPools is replica-pool in small: pools of 8 replicas (one 5× slower)
// behind random routing, the power of two choices, latency_ewma and
// least_outstanding, and a plain provider. Classes random and ewma each
// call a pool of their own; p2c and p2c-too share theirs (so they are
// searched together); plain calls the plain provider; plain-to-lo too,
// but its search also tries the least_outstanding pool's model as a copy
// target.
func fourPools() (*sim.Config, Settings) {
	lat := dist.LogNormal{Mu: 0, Sigma: math.Log(2) / 1.6449} // median 1 s, p95 2 s
	pool := func(b sim.Balancer) *sim.Pool {
		return &sim.Pool{Replicas: 8, Concurrency: 4, Balancer: b, Decay: 0.9,
			Overrides: []sim.ReplicaOverride{{Replica: 3, Slowdown: 5}}}
	}
	cfg := &sim.Config{
		Name: "four-pools", Seed: 3, Requests: 1000,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 24},
	}
	for _, p := range []struct {
		name string
		pool *sim.Pool
	}{
		{"random", pool(sim.RandomBalancer)}, {"p2c", pool(sim.PowerOfTwo)}, {"ewma", pool(sim.LatencyEWMA)},
		{"lo", pool(sim.LeastOutstanding)}, {"plain", nil},
	} {
		cfg.Providers = append(cfg.Providers, sim.Provider{Name: p.name, Pool: p.pool})
		cfg.Models = append(cfg.Models, sim.Model{Name: "m-" + p.name, Provider: p.name, Latency: lat, PriceInputPerMTok: 1})
	}
	for _, c := range []struct {
		name  string
		model int
	}{{"random", 0}, {"p2c", 1}, {"p2c-too", 1}, {"ewma", 2}, {"plain", 4}, {"plain-to-lo", 4}} {
		cfg.Classes = append(cfg.Classes, sim.Class{
			Name: c.name, Share: 1.0 / 6, Deadline: 30 * time.Second,
			InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Constant{Value: 0},
			Policy: sim.Policy{Primary: c.model, Copies: 1, Delays: []time.Duration{2 * time.Second}, CancelBilling: sim.BillInput},
		})
	}
	s := DefaultSettings()
	lo := s.Search
	lo.Targets = []string{"m-plain", "m-lo"}
	s.PerClass = map[string]Search{"plain-to-lo": lo}
	return cfg, s
}

// TestChangedUnder: under a balancer, the classes swept again are those
// searched together (p2c and p2c-too, whatever the balancer) and those
// searched alone that can call a pool it re-balances, a copy target their
// search tries included — not those whose pools already use it or that
// call no pool.
func TestChangedUnder(t *testing.T) {
	cfg, s := fourPools()
	for _, c := range []struct {
		b    sim.Balancer
		want []string
	}{
		{sim.PowerOfTwo, []string{"random", "p2c", "p2c-too", "ewma", "plain-to-lo"}},
		{sim.LatencyEWMA, []string{"random", "p2c", "p2c-too", "plain-to-lo"}},
		{sim.LeastOutstanding, []string{"random", "p2c", "p2c-too", "ewma"}},
		{sim.RandomBalancer, []string{"p2c", "p2c-too", "ewma", "plain-to-lo"}},
		{sim.RoundRobin, []string{"random", "p2c", "p2c-too", "ewma", "plain-to-lo"}},
	} {
		if got := changedUnder(withBalancer(cfg, c.b), cfg, &s); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q swept again, want %q", c.b, got, c.want)
		}
	}
	s.Only = []string{"ewma", "plain"}
	if got := changedUnder(withBalancer(cfg, sim.LatencyEWMA), cfg, &s); len(got) != 0 {
		t.Errorf("latency_ewma with only ewma and plain optimized: %q swept again, want none", got)
	}
}

// TestBalancerSweepsSkipOnlyWhatRoutingIgnores: the report of a sweep
// under several balancers, which sweeps again only the classes a balancer
// can change (changedUnder), is byte for byte the report of sweeping every
// class under every balancer.
func TestBalancerSweepsSkipOnlyWhatRoutingIgnores(t *testing.T) {
	cfg, s := fourPools()
	s.Requests, s.CheckRequests = 3000, 0
	if testing.Short() {
		s.Requests = 400 // byte identity, not a statistic: any size checks it
	}
	s.Balancers = []sim.Balancer{sim.PowerOfTwo, sim.LatencyEWMA, sim.LeastOutstanding}
	report := func(every bool) []byte {
		sweepEveryClass = every
		defer func() { sweepEveryClass = false }()
		rep, err := Run(cfg, s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Routing == nil || len(rep.Routing.Classes) != 4 {
			t.Fatalf("routing %+v: want the four classes whose policies call a pool", rep.Routing)
		}
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if skipped, every := report(false), report(true); !bytes.Equal(skipped, every) {
		t.Errorf("the report differs when every class is swept under every balancer:\n%s\n%s", skipped, every)
	}
}

// TestFormOfFindsSameClasses: two classes searched alone are one
// simulation under two names when their pools, traffic and searches match
// once balancers are equal — random's and ewma's under least_outstanding
// or p2c, though their pools are the first and third and their models
// other — and not when their balancers differ, their shares differ, a
// class is searched with another (p2c), or a pool has cold starts (whose
// draws the provider's index keys).
func TestFormOfFindsSameClasses(t *testing.T) {
	cfg, s := fourPools()
	form := func(c *sim.Config, i int) *classForm {
		t.Helper()
		f, ok := formOf(c, i, &s)
		if !ok {
			t.Fatalf("class %s: no form", c.Classes[i].Name)
		}
		return f
	}
	for _, b := range []sim.Balancer{sim.LeastOutstanding, sim.PowerOfTwo} {
		bc := withBalancer(cfg, b)
		if !form(bc, 0).same(form(bc, 3)) {
			t.Errorf("%s: random and ewma are not the same class", b)
		}
		if !form(bc, 0).same(form(withBalancer(cfg, b), 3)) {
			t.Errorf("%s: random and ewma of two copies of the scenario are not the same class", b)
		}
	}
	if form(cfg, 0).same(form(cfg, 3)) {
		t.Error("random and latency_ewma routing found the same")
	}
	if !form(cfg, 3).same(form(withBalancer(cfg, sim.LatencyEWMA), 0)) {
		t.Error("ewma as configured and random under latency_ewma are not the same class")
	}
	other := *cfg
	other.Classes = slices.Clone(cfg.Classes)
	other.Classes[3].Share *= 1.01
	if form(cfg, 3).same(form(&other, 3)) {
		t.Error("ewma with another share found the same")
	}
	if alone := aloneClasses(cfg, &s); alone[1] || alone[2] || !alone[0] || !alone[3] {
		t.Errorf("searched alone %v: want random and ewma, not p2c and p2c-too", alone)
	}
	// Features whose draws a provider's index keys, or whose results
	// formOf does not rename, on a pool or provider random does not call.
	for name, set := range map[string]func(c *sim.Config){
		"slow periods":      func(c *sim.Config) { c.Providers[4].Degraded = &sim.Degraded{} },
		"a breaker":         func(c *sim.Config) { c.Providers[4].Breaker = &sim.Breaker{} },
		"a model breaker":   func(c *sim.Config) { c.Models[4].Breaker = &sim.Breaker{} },
		"pool slow periods": func(c *sim.Config) { c.Providers[2].Pool.Degraded = &sim.Degraded{} },
		"down periods":      func(c *sim.Config) { c.Providers[2].Pool.Down = &sim.Down{} },
		"cold starts":       func(c *sim.Config) { c.Providers[2].Pool.ColdStart = &sim.ColdStart{Latency: dist.Constant{Value: 1}} },
		"autoscaling":       func(c *sim.Config) { c.Providers[2].Pool.Autoscale = &sim.Autoscale{} },
		"a view":            func(c *sim.Config) { c.Providers[2].Pool.View = &sim.View{} },
		"restarts":          func(c *sim.Config) { c.Providers[2].Pool.Restarts = &sim.Restarts{} },
		"a replica down": func(c *sim.Config) {
			c.Providers[2].Pool.Overrides = []sim.ReplicaOverride{{Replica: 1, Down: &sim.Down{}}}
		},
	} {
		c := withBalancer(cfg, sim.LeastOutstanding) // its pools are copies
		c.Models = slices.Clone(c.Models)
		set(c)
		if _, ok := formOf(c, 0, &s); ok {
			t.Errorf("%s: want no form", name)
		}
	}
}

// TestBalancerSweepsShareSameClasses: the report of a sweep under several
// balancers, whose sweeps take the measurements of a class that is
// another under other names (formOf) rather than simulating it again, is
// byte for byte the report of simulating every class changedUnder names.
func TestBalancerSweepsShareSameClasses(t *testing.T) {
	cfg, s := fourPools()
	s.Requests, s.CheckRequests = 3000, 0
	if testing.Short() {
		s.Requests = 400 // byte identity, not a statistic: any size checks it
	}
	s.Balancers = []sim.Balancer{sim.PowerOfTwo, sim.LatencyEWMA, sim.LeastOutstanding, sim.RoundRobin}
	report := func(share bool) []byte {
		shareNoClasses = !share
		defer func() { shareNoClasses = false }()
		rep, err := Run(cfg, s, Options{Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if shared, apart := report(true), report(false); !bytes.Equal(shared, apart) {
		t.Errorf("the report differs when no class takes another's measurements:\n%s\n%s", shared, apart)
	}
}
