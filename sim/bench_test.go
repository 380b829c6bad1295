package sim_test

import (
	"context"
	"math"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// BenchmarkGuardCheck simulates the shipped scenarios/guard-check.toml
// exactly as written (field report 1: bimodal latency, copies at 1 s and
// 2 s, 3 s deadline, Poisson arrivals at 20/s, seed 1, 10⁵ requests): the
// hedged run, and its no-hedging baseline. It reports simulated requests
// per second of wall time; run with -benchmem and compare runs with
// benchstat.
func BenchmarkGuardCheck(b *testing.B) {
	s, err := scenario.LoadFS(scenarios.FS, "guard-check.toml")
	if err != nil {
		b.Fatal(err)
	}
	for _, run := range []struct {
		name string
		cfg  *sim.Config
	}{{"hedged", &s.Config}, {"no-hedging", sim.WithoutHedging(&s.Config)}} {
		b.Run(run.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sim.Run(run.cfg); err != nil {
					b.Fatal(err)
				}
			}
			perOp := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(run.cfg.Requests)/perOp, "req/s")
		})
	}
	// The hedged run split over GOMAXPROCS goroutines (RunSplit).
	b.Run("hedged-split", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := sim.RunSplit(context.Background(), &s.Config, runtime.GOMAXPROCS(0)); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(s.Config.Requests)/(b.Elapsed().Seconds()/float64(b.N)), "req/s")
	})
}

// BenchmarkShippedDES runs shipped scenarios whose requests share a
// provider queue or rate limit, so every event goes through the full
// event loop: loaded-provider (a FIFO queue near saturation) and
// rate-limited-slowdown (a token bucket and degraded periods), hedged runs
// of 10⁵ requests each.
func BenchmarkShippedDES(b *testing.B) {
	benchShipped(b, "loaded-provider", "rate-limited-slowdown")
}

// BenchmarkProviders simulates a scenario that exercises every provider
// mechanism at once: a Gaussian copula between attempts, a FIFO queue (16
// slots at about 60 % utilisation), token-bucket rate limits with 429s and
// degraded periods, with one copy to a second provider after 400 ms.
func BenchmarkProviders(b *testing.B) {
	const n = 100_000
	lat := dist.LogNormal{Mu: math.Log(0.3), Sigma: 0.6}
	cfg := &sim.Config{
		Name: "providers", Seed: 1, Requests: n,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 25},
		Models: []sim.Model{
			{Name: "a", Provider: "pa", Latency: lat, PriceInputPerMTok: 1},
			{Name: "b", Provider: "pb", Latency: lat, PriceInputPerMTok: 1},
		},
		Providers: []sim.Provider{
			{Name: "pa", Concurrency: 16, Degraded: &sim.Degraded{MeanNormal: time.Minute, MeanDegraded: 5 * time.Second, Slowdown: 3}},
			{Name: "pb", RateLimit: sim.RateLimit{RequestsPerMinute: 300, Burst: 5 * time.Second, RejectLatency: 20 * time.Millisecond}},
		},
		Correlation: sim.Correlation{SameModel: 0.5, SameProvider: 0.5, CrossProvider: 0.2},
		Classes: []sim.Class{{Name: "c", Share: 1, Deadline: 10 * time.Second,
			InputTokens: dist.Constant{Value: 500}, OutputTokens: dist.Constant{Value: 50},
			Policy: sim.Policy{Targets: []int{1}, Copies: 1, Delays: []time.Duration{400 * time.Millisecond},
				OnError: sim.Ignore, CancelLatency: 50 * time.Millisecond}}},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sim.Run(cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/(b.Elapsed().Seconds()/float64(b.N)), "req/s")
}

// BenchmarkClosedLoop simulates closed-loop clients: the machine-repairman
// queue of TestMachineRepairman (5 clients, one server), and the shipped
// eval-black-hole scenario (48 clients in three classes, hedged, one
// provider with black-hole periods). It reports simulated requests per
// second of wall time.
func BenchmarkClosedLoop(b *testing.B) {
	s, err := scenario.LoadFS(scenarios.FS, "eval-black-hole.toml")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		cfg  *sim.Config
	}{
		{"repairman", closedConfig(100_000, 5, 1, 4, 1)},
		{"eval-black-hole", &s.Config},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sim.Run(c.cfg); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(c.cfg.Requests)/(b.Elapsed().Seconds()/float64(b.N)), "req/s")
		})
	}
}

// BenchmarkManyClasses runs 380 classes of equal share (2·10⁵ requests,
// one uniform model, a copy after 200 ms): the cost of keeping many
// classes' results (the overall result selects from the classes'
// latency buffers; nothing is merged).
func BenchmarkManyClasses(b *testing.B) {
	cfg := oneModel(200_000, dist.Uniform{Min: 0.05, Max: 0.5}, 1, 200*time.Millisecond)
	c := cfg.Classes[0]
	cfg.Classes = nil
	for i := range 380 {
		c.Name, c.Share = "c"+strconv.Itoa(i), 1.0/380
		cfg.Classes = append(cfg.Classes, c)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sim.Run(cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStreamed runs shipped scenarios whose models are streamed (TTFT
// plus output tokens ÷ decode speed) as written: two-model-gateway (four
// classes, the lane) and llmperf-70b (empirical distributions), hedged
// runs of 10⁵ requests each. It reports simulated requests per second.
func BenchmarkStreamed(b *testing.B) {
	benchShipped(b, "two-model-gateway", "llmperf-70b")
}

// BenchmarkRetries runs the shipped stacked-retries scenario (an
// application retry around an SDK retry, around and inside hedging, on a
// provider with outages), hedged, on 10⁵ requests: the cost of the retry
// layers on the event loop.
func BenchmarkRetries(b *testing.B) {
	cfg := shippedConfig(b, "stacked-retries")
	benchRun(b, &cfg)
}

// BenchmarkPool simulates a pool of 100 single-server replicas behind
// the power of two choices at 80 % load (Poisson arrivals, exponential
// service, 10⁵ requests): every event goes through the event loop and
// every attempt through the balancer. "hedged" adds a copy to another
// replica after 2 s. "view" has the balancer read load from a view
// refreshed every 2 s (view.go), "scrape" from per-replica scrapes every
// 2 s with 20 % jitter; "restarts" adds a random restart per replica
// every 100 s on average, out for 5 s (restart.go); "autoscaled" lets the pool scale between 1 and 100
// replicas on Knative's concurrency policy at a target of 1, at 60
// requests/s (it starts at 100 and settles near 91, with 5 s cold starts,
// scaling up or down every few ticks), and "autoscaled-4x" runs it on 4 times
// the requests, so that its bytes per op against autoscaled's give the
// memory that grows with the requests. "replica-pool/<balancer>" is the
// hedged pool of the shipped replica-pool scenario under each balancer.
// It reports simulated requests per second.
func BenchmarkPool(b *testing.B) {
	cfg := &sim.Config{
		Name: "pool", Seed: 1, Requests: 100_000,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 80},
		Models:   []sim.Model{{Name: "m", Provider: "p", Latency: dist.Exponential{Rate: 1}}},
		Providers: []sim.Provider{{Name: "p", Pool: &sim.Pool{
			Replicas: 100, Concurrency: 1, Balancer: sim.PowerOfTwo}}},
		Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}}},
	}
	b.Run("p2c", func(b *testing.B) { benchRun(b, cfg) })
	hedged := *cfg
	hedged.Classes = []sim.Class{cfg.Classes[0]}
	hedged.Classes[0].Policy = sim.Policy{Copies: 1, Delays: []time.Duration{2 * time.Second}}
	b.Run("p2c-hedged", func(b *testing.B) { benchRun(b, &hedged) })
	for _, v := range []struct {
		name string
		set  func(*sim.Pool)
	}{
		{"p2c-view", func(p *sim.Pool) { p.View = &sim.View{Refresh: 2 * time.Second} }},
		{"p2c-scrape", func(p *sim.Pool) { p.View = &sim.View{Refresh: 2 * time.Second, Scrape: true, Jitter: 0.2} }},
		{"p2c-restarts", func(p *sim.Pool) {
			p.Restarts = &sim.Restarts{MeanUp: 100 * time.Second, Down: 5 * time.Second, Window: 10 * time.Second}
		}},
	} {
		c := *cfg
		pl := *cfg.Providers[0].Pool
		v.set(&pl)
		c.Providers = []sim.Provider{{Name: "p", Pool: &pl}}
		b.Run(v.name, func(b *testing.B) { benchRun(b, &c) })
	}
	scaled := *cfg
	scaled.Arrivals.Rate = 60
	pl := *cfg.Providers[0].Pool
	pl.Autoscale = &sim.Autoscale{Min: 1, Initial: 100, Target: 1, Tick: 2 * time.Second,
		StableWindow: time.Minute, PanicWindow: 6 * time.Second, PanicThreshold: 2, ScaleToZeroGrace: 30 * time.Second}
	pl.ColdStart = &sim.ColdStart{Latency: dist.Constant{Value: 5}}
	scaled.Providers = []sim.Provider{{Name: "p", Pool: &pl}}
	b.Run("p2c-autoscaled", func(b *testing.B) { benchRun(b, &scaled) })
	long := scaled
	long.Requests *= 4
	b.Run("p2c-autoscaled-4x", func(b *testing.B) { benchRun(b, &long) })
	// replica-pool's hedged pool under each balancer: 8 replicas of
	// concurrency 4, replica 3 a 5× straggler, lognormal latency (median
	// 1 s, p95 2 s), 4 requests/s, a copy at 2 s to another replica,
	// cancels landing after 50 ms and billed in full (10⁵ requests).
	lat, err := dist.LogNormalFromMedianP95(1, 2)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("replica-pool", func(b *testing.B) {
		for _, bal := range sim.Balancers {
			c := sim.Config{
				Name: "replica-pool", Seed: 1, Requests: 100_000,
				Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 4},
				Models:   []sim.Model{{Name: "m", Provider: "p", Latency: lat, PricePerRequest: 0.0002}},
				Providers: []sim.Provider{{Name: "p", Pool: &sim.Pool{Replicas: 8, Concurrency: 4, Balancer: bal, Decay: 0.9,
					Overrides: []sim.ReplicaOverride{{Replica: 3, Slowdown: 5}}}}},
				Classes: []sim.Class{{Name: "c", Share: 1, Deadline: 30 * time.Second,
					InputTokens: dist.Constant{Value: 300}, OutputTokens: dist.Constant{Value: 60},
					Policy: sim.Policy{Copies: 1, Delays: []time.Duration{2 * time.Second},
						CancelLatency: 50 * time.Millisecond, CancelBilling: sim.BillFull}}},
			}
			b.Run(bal.String(), func(b *testing.B) { benchRun(b, &c) })
		}
	})
}

// shippedConfig is the shipped scenario name (without .toml) with 10⁵
// requests.
func shippedConfig(b *testing.B, name string) sim.Config {
	s, err := scenario.LoadFS(scenarios.FS, name+".toml")
	if err != nil {
		b.Fatal(err)
	}
	cfg := s.Config
	cfg.Requests = 100_000
	return cfg
}

// benchShipped runs a sub-benchmark of the hedged run of each shipped
// scenario named, at 10⁵ requests.
func benchShipped(b *testing.B, names ...string) {
	for _, name := range names {
		cfg := shippedConfig(b, name)
		b.Run(name, func(b *testing.B) { benchRun(b, &cfg) })
	}
}

// benchRun runs cfg b.N times and reports simulated requests per second
// of wall time.
func benchRun(b *testing.B, cfg *sim.Config) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sim.Run(cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cfg.Requests)/(b.Elapsed().Seconds()/float64(b.N)), "req/s")
}

// BenchmarkReport builds the report of guard-check at 10⁶ requests from
// its hedged run and baseline, simulated once: the selection of every
// class's and the overall percentiles, intervals and end-latency figures
// from 10⁶ stored latencies per run.
func BenchmarkReport(b *testing.B) {
	s, err := scenario.LoadFS(scenarios.FS, "guard-check.toml")
	if err != nil {
		b.Fatal(err)
	}
	cfg := s.Config
	cfg.Requests = 1_000_000
	h, err := sim.Run(&cfg)
	if err != nil {
		b.Fatal(err)
	}
	base, err := sim.Run(sim.WithoutHedging(&cfg))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		sim.NewReport(&cfg, h, base)
	}
}

// BenchmarkReportBatched is BenchmarkReport for loaded-provider, whose
// requests share a queue: every row is batched, after a warm-up cut;
// "per-batch" also gives its class row its figures on the fixed grid
// (NewReportPerBatch, what run --json writes).
func BenchmarkReportBatched(b *testing.B) {
	cfg := shippedConfig(b, "loaded-provider")
	cfg.Requests = 1_000_000
	h, err := sim.Run(&cfg)
	if err != nil {
		b.Fatal(err)
	}
	base, err := sim.Run(sim.WithoutHedging(&cfg))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		f    func(*sim.Config, *sim.Result, *sim.Result) *sim.Report
	}{{"plain", sim.NewReport}, {"per-batch", sim.NewReportPerBatch}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bc.f(&cfg, h, base)
			}
		})
	}
}

// BenchmarkRunPolicies sweeps 45 hedge delays (0 to 2.2 s in 50 ms steps)
// of the "short" class of the default scenario, two-model-gateway, alone
// at 2·10⁵ requests: "together" runs them with RunPolicies, sharing each
// request's draws; "apart" runs each with Run. Both report simulated
// requests (policies × requests) per second.
func BenchmarkRunPolicies(b *testing.B) {
	s := shippedConfig(b, "two-model-gateway")
	cfg := s
	cfg.Requests = 200_000
	cfg.Classes = []sim.Class{s.Classes[0]}
	cfg.Classes[0].Share = 1
	pols := make([]sim.Policy, 45)
	for i := range pols {
		pols[i] = cfg.Classes[0].Policy
		pols[i].Delays = []time.Duration{time.Duration(i) * 50 * time.Millisecond}
	}
	report := func(b *testing.B) {
		b.ReportMetric(float64(len(pols)*cfg.Requests)/(b.Elapsed().Seconds()/float64(b.N)), "req/s")
	}
	b.Run("together", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := sim.RunPolicies(context.Background(), &cfg, 0, pols); err != nil {
				b.Fatal(err)
			}
		}
		report(b)
	})
	b.Run("apart", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, p := range pols {
				one := cfg
				one.Classes = []sim.Class{cfg.Classes[0]}
				one.Classes[0].Policy = p
				if _, err := sim.Run(&one); err != nil {
					b.Fatal(err)
				}
			}
		}
		report(b)
	})
}
