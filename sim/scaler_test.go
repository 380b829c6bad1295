package sim_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// scaledPool is poolConfig's pool of max replicas, without a concurrency
// limit, autoscaled by Knative's defaults (tick 2 s, stable window 60 s,
// panic window 6 s at 200 %, scale-to-zero grace 30 s) on concurrency
// target c from one replica up.
func scaledPool(n int, lambda, mu float64, max int, c float64) *sim.Config {
	cfg := poolConfig(n, lambda, mu, max, sim.PowerOfTwo)
	cfg.Providers[0].Pool.Concurrency = 0
	cfg.Providers[0].Pool.Autoscale = &sim.Autoscale{Min: 0, Initial: 1, Target: c,
		Tick: 2 * time.Second, StableWindow: 60 * time.Second, PanicWindow: 6 * time.Second,
		PanicThreshold: 2, ScaleToZeroGrace: 30 * time.Second}
	return cfg
}

// settledShare returns the share of time from t0 to the end of the
// series during which want replicas were up and none starting.
func settledShare(a *sim.AutoscaleResult, t0, end float64, want int) float64 {
	in := 0.0
	for i, p := range a.Series {
		lo, hi := math.Max(p.T, t0), end
		if i+1 < len(a.Series) {
			hi = math.Min(hi, a.Series[i+1].T)
		}
		if hi > lo && p.Ready == want && p.Starting == 0 {
			in += hi - lo
		}
	}
	return in / (end - t0)
}

// TestScalerSettlesOnLoad is the KPA's oracle: Poisson arrivals at λ,
// exponential service of mean S, no concurrency limit, so the pool's
// concurrency is the M/M/∞ number in system, of mean λS (Little) whatever
// the replicas; the scaler wants ⌈λS ÷ c⌉ replicas for target c. With λ =
// 100/s, S = 1 s and c = 100/6.5, λS ÷ c = 6.5: 7 replicas. The stable
// window's mean of an M/M/∞ count over W = 60 s has variance ≈ 2λS·S/W
// (its autocovariance is λS·e^(−t/S)): a standard deviation of 1.83
// attempts, 0.12 replicas, so the 0.5 replicas to either boundary are 4.2
// standard deviations and the scaler should want 7 at nearly every tick
// (P(outside) ≈ 3·10⁻⁵ per tick). The test asks for 7 replicas, none
// starting, over at least 99 % of the time after the first two windows
// (the panic mode of the start from one replica has ended by then), over
// 10 minutes (6·10⁴ requests, seed 1). The same at the utilisation policy,
// where the attempts in service are the M/M/c count, ≈ M/M/∞ with far
// more slots than load: 20 slots per replica and a target of 50 % want
// ⌈λS ÷ 10⌉ = 7 at λS = 65 (a standard deviation of 0.15 replicas, 3.4
// to either boundary, P(outside) ≈ 7·10⁻⁴ per tick). Without panic mode
// the utilisation policy climbs from one replica slowly (the stable
// window dilutes each step): it starts from 4.
func TestScalerSettlesOnLoad(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy sim.ScalePolicy
		lambda float64
		target float64
		conc   int
		want   int
	}{
		{"concurrency", sim.ScaleConcurrency, 100, 100 / 6.5, 0, 7},
		{"utilisation", sim.ScaleUtilisation, 65, 0.5, 20, 7},
	} {
		cfg := scaledPool(int(tc.lambda*600), tc.lambda, 1, 80, tc.target)
		cfg.Providers[0].Pool.Concurrency = tc.conc
		cfg.Providers[0].Pool.Autoscale.Policy = tc.policy
		if tc.policy == sim.ScaleUtilisation {
			cfg.Providers[0].Pool.Autoscale.Initial = 4
		}
		res := mustRun(t, cfg)
		a := res.Pools[0].Autoscale
		if a == nil {
			t.Fatalf("%s: no autoscale result", tc.name)
		}
		// The arrivals span about 600 s; the end of the run is left out.
		if share := settledShare(a, 120, 590, tc.want); share < 0.99 {
			t.Errorf("%s: %d replicas for %.1f%% of the time after 120 s, want ≥ 99%% (series %v)", tc.name, tc.want, 100*share, a.Series)
		}
		if res.Overall.Answered != int64(cfg.Requests) {
			t.Errorf("%s: %d of %d answered", tc.name, res.Overall.Answered, cfg.Requests)
		}
	}
}

// TestScaleToZeroEveryRequestCold: with min_replicas = 0, requests 120 s
// apart — sparser than the stable window (6 s here) plus the grace (30
// s) plus a tick — find the pool scaled to zero: each waits at the
// activator for a start of 5 s and is answered 5.2 s after it arrives
// (0.2 s of work), and every request pays a cold start. Requests 20 s
// apart keep the replica up: only the first pays one.
func TestScaleToZeroEveryRequestCold(t *testing.T) {
	for _, tc := range []struct {
		gap    float64
		starts int64
	}{
		{120, 10},
		{20, 1},
	} {
		cfg := scaledPool(10, 1/tc.gap, 1, 4, 1)
		cfg.Arrivals.Process = sim.Constant
		cfg.Models[0].Latency = dist.Constant{Value: 0.2}
		pl := cfg.Providers[0].Pool
		pl.Autoscale.Initial = 0
		pl.Autoscale.StableWindow, pl.Autoscale.PanicWindow = 6*time.Second, 6*time.Second
		pl.ColdStart = &sim.ColdStart{Latency: dist.Constant{Value: 5}}
		ends := answeredAt(t, cfg)
		for i, end := range ends {
			want := float64(i)*tc.gap + 0.2
			if i == 0 || tc.gap > 36 {
				want += 5
			}
			if math.Abs(end-want) > 1e-9 {
				t.Errorf("gap %v s: request %d answered at %v s, want %v s", tc.gap, i, end, want)
			}
		}
		a := mustRun(t, cfg).Pools[0].Autoscale
		if a.Starts != tc.starts || a.WaitedForCapacity != tc.starts {
			t.Errorf("gap %v s: %d starts, %d waited for capacity, want %d", tc.gap, a.Starts, a.WaitedForCapacity, tc.starts)
		}
		if want := 5.0; math.Abs(a.MeanCapacityWait-want) > 1e-9 {
			t.Errorf("gap %v s: mean wait for capacity %v s, want %v s", tc.gap, a.MeanCapacityWait, want)
		}
	}
}

// TestCapacityWaitCountsEveryWaiter: as TestScaleToZeroEveryRequestCold's
// sparse case (requests 120 s apart, each finding the pool at zero and a
// cold start of 5 s), with a deadline of 3 s: every request waits at the
// activator and its deadline cuts it there, 3 s after it arrived, before
// the replica is up. Each waited, 3 s: the report counted only the
// attempts passed to a replica (none here), so a pool whose attempts all
// timed out at the activator showed no wait at all. With a deadline of
// 8 s each is passed to the replica after 5 s, and none left waiting.
func TestCapacityWaitCountsEveryWaiter(t *testing.T) {
	for _, tc := range []struct {
		deadline time.Duration
		wait     float64
		left     int64
	}{
		{3 * time.Second, 3, 10},
		{8 * time.Second, 5, 0},
	} {
		cfg := scaledPool(10, 1.0/120, 1, 4, 1)
		cfg.Arrivals.Process = sim.Constant
		cfg.Models[0].Latency = dist.Constant{Value: 0.2}
		cfg.Classes[0].Deadline = tc.deadline
		pl := cfg.Providers[0].Pool
		pl.Autoscale.Initial = 0
		pl.Autoscale.StableWindow, pl.Autoscale.PanicWindow = 6*time.Second, 6*time.Second
		pl.ColdStart = &sim.ColdStart{Latency: dist.Constant{Value: 5}}
		res := mustRun(t, cfg)
		a := res.Pools[0].Autoscale
		if a.WaitedForCapacity != 10 || a.LeftWaiting != tc.left {
			t.Errorf("deadline %v: %d waited for capacity, %d of them let go of, want 10 and %d", tc.deadline, a.WaitedForCapacity, a.LeftWaiting, tc.left)
		}
		if math.Abs(a.MeanCapacityWait-tc.wait) > 1e-9 || math.Abs(a.CapacityWait-10*tc.wait) > 1e-9 {
			t.Errorf("deadline %v: mean wait for capacity %v s (total %v s), want %v s (total %v s)", tc.deadline, a.MeanCapacityWait, a.CapacityWait, tc.wait, 10*tc.wait)
		}
		if want := int64(10 - tc.left); res.Overall.Answered != want {
			t.Errorf("deadline %v: %d answered, want %d", tc.deadline, res.Overall.Answered, want)
		}
	}
}

// TestScaleToZeroFailFast: as TestScaleToZeroEveryRequestCold's sparse
// case, with no activator: every request fails at once for want of a
// replica, and still starts one.
func TestScaleToZeroFailFast(t *testing.T) {
	cfg := scaledPool(10, 1.0/120, 1, 4, 1)
	cfg.Arrivals.Process = sim.Constant
	pl := cfg.Providers[0].Pool
	pl.Autoscale.Initial, pl.Autoscale.NoCapacity = 0, sim.FailFast
	pl.Autoscale.StableWindow, pl.Autoscale.PanicWindow = 6*time.Second, 6*time.Second
	pl.ColdStart = &sim.ColdStart{Latency: dist.Constant{Value: 5}}
	res := mustRun(t, cfg)
	a := res.Pools[0].Autoscale
	if res.Overall.Answered != 0 || a.FailedForCapacity != 10 || a.Starts != 10 {
		t.Errorf("%d answered, %d failed for capacity, %d starts; want 0, 10, 10", res.Overall.Answered, a.FailedForCapacity, a.Starts)
	}
}

// TestScalerGivesUpStart is kserve#1247 under an autoscaler: starts of 3
// minutes, a 30 s client timeout, a request every 4 minutes, the stable
// window 60 s and the grace 30 s. The request waits at the activator until
// it times out at 30 s; the stable window has no concurrency from about
// 90 s, the grace ends about 120 s: the start is given up a minute before
// it would end. No replica ever comes up, none is answered, and each
// request starts (and gives up) its own.
func TestScalerGivesUpStart(t *testing.T) {
	cfg := scaledPool(4, 1.0/240, 1, 4, 1)
	cfg.Arrivals.Process = sim.Constant
	cfg.Classes[0].Deadline = 30 * time.Second
	pl := cfg.Providers[0].Pool
	pl.Autoscale.Initial = 0
	pl.ColdStart = &sim.ColdStart{Latency: dist.Constant{Value: 180}}
	res := mustRun(t, cfg)
	a := res.Pools[0].Autoscale
	if res.Overall.Answered != 0 || a.Starts != 4 || a.GivenUp != 4 || a.PeakReplicas != 1 {
		t.Errorf("%d answered, %d starts, %d given up, peak %d; want 0, 4, 4, 1 (series %v)", res.Overall.Answered, a.Starts, a.GivenUp, a.PeakReplicas, a.Series)
	}
	for _, p := range a.Series {
		if p.Ready != 0 {
			t.Errorf("a replica came up: %v", a.Series)
			break
		}
	}
}

// TestScalerReplicaHours: one replica kept up (min 1) for a run whose
// last event is at a known time is billed that long, and its idle time is
// that minus the time in service: constant arrivals 10 s apart from 0, 1
// s of work each, 10 requests: the run ends at 91 s, 10 s in service.
func TestScalerReplicaHours(t *testing.T) {
	cfg := scaledPool(10, 0.1, 1, 4, 1)
	cfg.Arrivals.Process = sim.Constant
	cfg.Models[0].Latency = dist.Constant{Value: 1}
	pl := cfg.Providers[0].Pool
	pl.Concurrency = 1
	pl.Autoscale.Min, pl.Autoscale.PricePerReplicaHour = 1, 3.6
	a := mustRun(t, cfg).Pools[0].Autoscale
	if math.Abs(a.ReplicaHours*3600-91) > 1e-6 || math.Abs(a.CostUSD-0.091) > 1e-9 {
		t.Errorf("%v replica-hours for $%v, want 91 s for $0.091", a.ReplicaHours, a.CostUSD)
	}
	if a.IdleReplicaHours == nil || math.Abs(*a.IdleReplicaHours*3600-81) > 1e-6 {
		t.Errorf("idle replica-hours %v, want 81 s", a.IdleReplicaHours)
	}
	if a.MeanReplicas != 1 || a.PeakReplicas != 1 || a.Starts != 0 {
		t.Errorf("mean %v, peak %d, %d starts; want 1, 1, 0", a.MeanReplicas, a.PeakReplicas, a.Starts)
	}
}

// TestAutoscaleValidate: bad autoscaling settings are errors.
func TestAutoscaleValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(a *sim.Autoscale, p *sim.Pool)
	}{
		{"min above max", func(a *sim.Autoscale, p *sim.Pool) { a.Min = 5 }},
		{"initial below min", func(a *sim.Autoscale, p *sim.Pool) { a.Min, a.Initial = 2, 1 }},
		{"no target", func(a *sim.Autoscale, p *sim.Pool) { a.Target = 0 }},
		{"utilisation above 1", func(a *sim.Autoscale, p *sim.Pool) {
			a.Policy, a.Target, p.Concurrency = sim.ScaleUtilisation, 1.5, 1
		}},
		{"utilisation unlimited", func(a *sim.Autoscale, p *sim.Pool) { a.Policy, a.Target = sim.ScaleUtilisation, 0.5 }},
		{"window below tick", func(a *sim.Autoscale, p *sim.Pool) { a.StableWindow = time.Second }},
		{"panic above stable", func(a *sim.Autoscale, p *sim.Pool) { a.PanicWindow = 2 * time.Minute }},
		{"threshold 1", func(a *sim.Autoscale, p *sim.Pool) { a.PanicThreshold = 1 }},
		{"negative price", func(a *sim.Autoscale, p *sim.Pool) { a.PricePerReplicaHour = -1 }},
		{"restarts", func(a *sim.Autoscale, p *sim.Pool) {
			p.Restarts = &sim.Restarts{MeanUp: time.Minute, Down: time.Second, Window: 10 * time.Second}
		}},
		{"batching", func(a *sim.Autoscale, p *sim.Pool) { p.Batching = &sim.Batching{Base: 50, Contention: 1} }},
	} {
		cfg := scaledPool(10, 1, 1, 4, 1)
		tc.edit(cfg.Providers[0].Pool.Autoscale, cfg.Providers[0].Pool)
		if _, err := sim.Run(cfg); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// TestScalerUnderEveryBalancer runs an autoscaled pool through bursts —
// replayed Poisson arrivals at 40/s for 20 s, then at 0.5/s for 60 s, and
// again (seed 1) — one slot per replica and a bounded queue,
// hedged copies, a deadline — under every balancer and both no-capacity
// rules, with the package's run audit on (every attempt leaves exactly
// once, no slot or queue place is left held): the replicas up stay within
// [min, max], and the attempts sent to replicas never exceed the
// provider's.
func TestScalerUnderEveryBalancer(t *testing.T) {
	src := rand.New(rand.NewPCG(1, 2))
	var burst []time.Duration
	for at := 0.0; len(burst) < 10_000; {
		rate := 40.0
		if math.Mod(at, 80) >= 20 {
			rate = 0.5
		}
		at += src.ExpFloat64() / rate
		burst = append(burst, time.Duration(at*1e9))
	}
	for _, b := range sim.Balancers {
		for _, nc := range sim.NoCapacities {
			cfg := scaledPool(len(burst), 30, 1, 40, 2)
			cfg.Arrivals = sim.Arrivals{Process: sim.Replay, Trace: &sim.Trace{Arrivals: burst}}
			pl := cfg.Providers[0].Pool
			pl.Balancer, pl.Concurrency, pl.RejectWhenFull, pl.QueueLimit = b, 1, true, 4
			pl.Autoscale.NoCapacity, pl.Autoscale.ScaleDownDelay = nc, 10*time.Second
			pl.ColdStart = &sim.ColdStart{Latency: dist.Uniform{Min: 1, Max: 8}}
			cfg.Classes[0].Deadline = 10 * time.Second
			cfg.Classes[0].Policy = sim.Policy{Copies: 1, Delays: []time.Duration{2 * time.Second}}
			res := mustRun(t, cfg)
			a := res.Pools[0].Autoscale
			for _, p := range a.Series {
				if p.Ready < 0 || p.Ready+p.Starting > 40 {
					t.Fatalf("%v, %v: %+v out of [0, 40]", b, nc, p)
				}
			}
			if a.Starts == 0 || a.PeakReplicas < 2 {
				t.Errorf("%v, %v: %d starts, peak %d: the bursts should scale the pool", b, nc, a.Starts, a.PeakReplicas)
			}
		}
	}
}

// stepTrace returns constant arrivals at rate a per second for T seconds,
// then at rate b for d seconds.
func stepTrace(a, T, b, d float64) []time.Duration {
	var out []time.Duration
	for i := 0; float64(i) < a*T; i++ {
		out = append(out, time.Duration(float64(i)/a*1e9))
	}
	for i := 0; float64(i) < b*d; i++ {
		out = append(out, time.Duration((T+float64(i)/b)*1e9))
	}
	return out
}

// firstAfter returns the time of the first change of the series at or
// after t whose replicas up satisfy ok, or −1.
func firstAfter(a *sim.AutoscaleResult, t float64, ok func(ready int) bool) float64 {
	for _, p := range a.Series {
		if p.T >= t && ok(p.Ready) {
			return p.T
		}
	}
	return -1
}

// stepPool is scaledPool fed stepTrace(a, 300, b, d), with constant
// service of 1 s and target concurrency 1, so that the concurrency is
// exactly the arrival rate (each request is in the pool for exactly 1 s)
// — a before 300 s, b after — and the scaler wants ⌈rate⌉ replicas once
// its windows hold only one rate; cold starts of 1 s.
func stepPool(a, b, d float64) *sim.Config {
	tr := stepTrace(a, 300, b, d)
	cfg := scaledPool(len(tr), 1, 1, 40, 1)
	cfg.Arrivals = sim.Arrivals{Process: sim.Replay, Trace: &sim.Trace{Arrivals: tr}}
	cfg.Models[0].Latency = dist.Constant{Value: 1}
	cfg.Providers[0].Pool.Autoscale.Initial = int(a)
	cfg.Providers[0].Pool.ColdStart = &sim.ColdStart{Latency: dist.Constant{Value: 1}}
	return cfg
}

// TestScalerPanics: the load steps from 2 to 20 requests/s at 300 s (a
// concurrency of 2, then 20). The panic window (6 s) holds the new rate
// after 6 s, and its mean reaches twice the 2 replicas up within the
// first tick: in panic mode the scaler wants the panic window's figure,
// 20 replicas by about 306 s, up 1 s later — the test allows till 310 s.
// Without panic mode (a threshold of 1000) the stable window's mean rises
// by 0.3 a second, 2 + 0.3t: 20 replicas are wanted only about 57 s after
// the step, so none of the 20 is up before 350 s.
func TestScalerPanics(t *testing.T) {
	for _, tc := range []struct {
		threshold float64
		lo, hi    float64
	}{
		{2, 300, 310},
		{1000, 350, 370},
	} {
		cfg := stepPool(2, 20, 100)
		cfg.Providers[0].Pool.Autoscale.PanicThreshold = tc.threshold
		a := mustRun(t, cfg).Pools[0].Autoscale
		at := firstAfter(a, 300, func(n int) bool { return n >= 20 })
		if at < tc.lo || at > tc.hi {
			t.Errorf("panic threshold %v: 20 replicas up at %v s, want in [%v, %v] s (series %v)", tc.threshold, at, tc.lo, tc.hi, a.Series)
		}
	}
}

// TestScaleDownDelay: the load steps from 10 to 1 request/s at 300 s. The
// stable window's mean falls by 0.15 a second, 10 − 0.15t, so the scaler
// wants fewer than 10 replicas from about 6.7 s after the step, at the
// next tick (300 + 8 s); it removes one then. With a scale-down delay D it
// wants the most it wanted over D, so the first removal comes D later.
// Both settle on 1 replica.
func TestScaleDownDelay(t *testing.T) {
	for _, d := range []time.Duration{0, time.Minute} {
		cfg := stepPool(10, 1, 300)
		cfg.Providers[0].Pool.Autoscale.Min = 1
		cfg.Providers[0].Pool.Autoscale.ScaleDownDelay = d
		a := mustRun(t, cfg).Pools[0].Autoscale
		at := firstAfter(a, 300, func(n int) bool { return n < 10 })
		if lo := 300 + d.Seconds() + 6; at < lo || at > lo+4 {
			t.Errorf("delay %v: first removal at %v s, want in [%v, %v] s (series %v)", d, at, lo, lo+4, a.Series)
		}
		if last := a.Series[len(a.Series)-1]; last.Ready != 1 || last.Starting != 0 {
			t.Errorf("delay %v: ends with %+v, want 1 replica up", d, last)
		}
	}
}

// TestScalerRests: a pool at rest skips its ticks. Requests 10⁶ s apart
// (11.6 days) to a pool that scales to zero: each is answered after its
// 5 s cold start, as when the scaler ticks throughout, but the scaler
// decides only while something changes — about 3 ticks while the request
// is in the pool, the stable window's 30 and the grace's 15 after it, and
// the 30 in a row it needs to see nothing change before it rests (78) —
// not the 5·10⁵ ticks of each gap: at most 100 per request.
func TestScalerRests(t *testing.T) {
	cfg := scaledPool(20, 1e-6, 1, 4, 1)
	cfg.Arrivals.Process = sim.Constant
	cfg.Models[0].Latency = dist.Constant{Value: 0.2}
	cfg.Providers[0].Pool.Autoscale.Initial = 0
	cfg.Providers[0].Pool.ColdStart = &sim.ColdStart{Latency: dist.Constant{Value: 5}}
	for i, end := range answeredAt(t, cfg) {
		if want := float64(i)*1e6 + 5.2; math.Abs(end-want) > 1e-6 {
			t.Errorf("request %d answered at %v s, want %v s", i, end, want)
		}
	}
	a := mustRun(t, cfg).Pools[0].Autoscale
	if a.Ticks > 100*20 || a.Starts != 20 {
		t.Errorf("%d ticks and %d starts for 20 requests; want at most 2000 ticks and 20 starts", a.Ticks, a.Starts)
	}
	t.Logf("%d ticks", a.Ticks)
}

// TestZeroFailWarning: a pool that scales to zero (min 0) with no_capacity
// = "fail" has no attempt waiting at the activator, so its concurrency
// stays 0 and the scaler gives each start from zero up within
// scale_to_zero_grace + 2 ticks (14 s here: grace 10 s, tick 2 s). With
// cold starts of 20–60 s (a request every 20 s, one replica at most) every
// start is given up, no replica ever comes up and none is answered; the
// configuration earns a warning at autoscale.no_capacity naming the keys
// and what would work. Each start lasts at least the grace and less than
// the grace + 2 ticks, as the warning says. Cold starts of 1–5 s under
// "fail", the same pool under "wait", and one kept at min 1 come back
// and earn no such warning.
func TestZeroFailWarning(t *testing.T) {
	base := func() *sim.Config {
		cfg := scaledPool(100, 0.05, 1, 1, 1)
		cfg.Arrivals.Process = sim.Constant
		cfg.Classes[0].Deadline = 30 * time.Second
		pl := cfg.Providers[0].Pool
		pl.Autoscale.Initial, pl.Autoscale.NoCapacity = 0, sim.FailFast
		pl.Autoscale.ScaleToZeroGrace = 10 * time.Second
		pl.ColdStart = &sim.ColdStart{Latency: dist.Uniform{Min: 20, Max: 60}}
		return cfg
	}
	zeroFail := func(cfg *sim.Config) []sim.ConfigWarning {
		var out []sim.ConfigWarning
		for _, w := range sim.ConfigWarnings(cfg) {
			if w.Field == "autoscale.no_capacity" {
				out = append(out, w)
			}
		}
		return out
	}

	cfg := base()
	ws := zeroFail(cfg)
	text := `provider p's pool scales to zero (min_replicas = 0) with no_capacity = "fail": at zero no attempt waits for the replica it starts, so the scaler gives the start up within 14.0s (scale_to_zero_grace 10.0s + 2 ticks), and 100.0% of its cold starts are longer: once at zero the pool does not come back; use no_capacity = "wait", min_replicas = 1, or a scale_to_zero_grace of at least 59.6s (the cold start's p99)`
	if len(ws) != 1 || ws[0].Provider != 1 || ws[0].Text != text {
		t.Errorf("warnings %+v, want one at provider 1:\n%s", ws, text)
	}
	res := mustRun(t, cfg)
	a := res.Pools[0].Autoscale
	if res.Overall.Answered != 0 || a.Starts == 0 || a.GivenUp != a.Starts || a.FailedForCapacity != 100 {
		t.Errorf("%d answered, %d starts, %d given up, %d failed for capacity; want 0, > 0, every start, 100", res.Overall.Answered, a.Starts, a.GivenUp, a.FailedForCapacity)
	}
	began := -1.0
	for _, p := range a.Series {
		if p.Ready != 0 {
			t.Fatalf("a replica came up at %v s: %v", p.T, a.Series)
		}
		switch {
		case p.Starting == 1 && began < 0:
			began = p.T
		case p.Starting == 0 && began >= 0:
			if life := p.T - began; life < 10 || life >= 14 {
				t.Errorf("the start begun at %v s was given up after %v s, want in [10 s, 14 s)", began, life)
			}
			began = -1
		}
	}

	for name, change := range map[string]func(*sim.Config){
		"cold starts of 1-5 s": func(c *sim.Config) { c.Providers[0].Pool.ColdStart.Latency = dist.Uniform{Min: 1, Max: 5} },
		"wait":                 func(c *sim.Config) { c.Providers[0].Pool.Autoscale.NoCapacity = sim.WaitForCapacity },
		"min 1": func(c *sim.Config) {
			c.Providers[0].Pool.Autoscale.Min, c.Providers[0].Pool.Autoscale.Initial = 1, 1
		},
	} {
		cfg := base()
		change(cfg)
		if ws := zeroFail(cfg); len(ws) != 0 {
			t.Errorf("%s: warnings %+v, want none", name, ws)
		}
		a := mustRun(t, cfg).Pools[0].Autoscale
		if a.GivenUp == a.Starts && cfg.Providers[0].Pool.Autoscale.Min == 0 {
			t.Errorf("%s: %d starts, every one given up; want the pool to come back", name, a.Starts)
		}
	}
}
