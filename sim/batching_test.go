package sim_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// psConfig is n Poisson arrivals at rate lambda to one replica that
// batches without limit under ideal sharing (speed ∝ 1/n): a
// processor-sharing server, whose work per request is drawn from service.
func psConfig(n int, lambda float64, service dist.Continuous) *sim.Config {
	return &sim.Config{
		Name: "ps", Seed: 11, Requests: n,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: lambda},
		Models:   []sim.Model{{Name: "m", Provider: "p", Latency: service}},
		Providers: []sim.Provider{{Name: "p", Pool: &sim.Pool{
			Replicas: 1, Balancer: sim.RandomBalancer, Decay: 0.9,
			Batching: &sim.Batching{Base: 30, Contention: 1}}}},
		Classes: []sim.Class{{Name: "c", Share: 1,
			InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}}},
	}
}

// TestBatchingIsProcessorSharing: a replica whose per-sequence speed is
// inversely proportional to its batch (ideal sharing), without a batch
// limit, is an M/G/1 processor-sharing queue, whose mean time in system
// is E[S]/(1 − ρ) whatever the service distribution (Kleinrock, Queueing
// Systems vol. 2, §4.4). Checked at ρ = 0.7 for exponential service (the
// M/M/1-PS queue) and for lognormal service of the same mean with a
// coefficient of variation of 1.3, where a FIFO server's mean (the
// Pollaczek–Khinchine formula) would be 1 + 0.7·(1 + 1.3²)/(2·0.3) ≈ 4.14
// instead of 3.33. The tolerance is 5 standard errors by batch means (the
// times of consecutive requests are correlated) after a tenth of the run
// is dropped as warm-up.
func TestBatchingIsProcessorSharing(t *testing.T) {
	n := 400_000
	if testing.Short() {
		n = 100_000
	}
	const lambda, rho = 0.7, 0.7
	sigma := math.Sqrt(math.Log(1 + 1.3*1.3))
	for _, tc := range []struct {
		name    string
		service dist.Continuous
	}{
		{"exponential", dist.Exponential{Rate: 1}},
		{"lognormal", dist.LogNormal{Mu: -sigma * sigma / 2, Sigma: sigma}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if m := tc.service.Mean(); math.Abs(m-1) > 1e-12 {
				t.Fatalf("service mean %v, want 1", m)
			}
			cfg := psConfig(n, lambda, tc.service)
			lat := requestLatencies(t, cfg)[n/10:]
			mean, tol := batchMeanTol(lat)
			if want := 1 / (1 - rho); math.Abs(mean-want) > tol {
				t.Errorf("mean time in system %.4f, want E[S]/(1 − ρ) = %.4f ± %.4f", mean, want, tol)
			}
		})
	}
}

// TestBatchingSojournProportional: in the M/G/1 processor-sharing queue
// a job of size x spends x/(1 − ρ) in the system on average, whatever
// the other jobs' sizes (Kleinrock, Queueing Systems vol. 2, §4.4) — a
// FIFO server would add the same mean wait to every size instead. Two
// classes of equal share with 0.4 s and 1.6 s of work (tokens at a
// constant speed, TTFT 0) at ρ = 0.7 must take 0.4/0.3 and 1.6/0.3 s on
// average. Tolerances are 5 standard errors by batch means of each
// class's latencies in arrival order, after a tenth of the run is
// dropped as warm-up.
func TestBatchingSojournProportional(t *testing.T) {
	n := 400_000
	if testing.Short() {
		n = 100_000
	}
	cfg := psConfig(n, 0.7, nil)
	cfg.Models[0].Latency = nil
	cfg.Models[0].TTFT = dist.Constant{}
	cfg.Models[0].TokensPerSecond = dist.Constant{Value: 10}
	cfg.Classes = []sim.Class{
		{Name: "short", Share: 0.5, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{Value: 4}},
		{Name: "long", Share: 0.5, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{Value: 16}},
	}
	arr := make([]time.Duration, n)
	won := make([]time.Duration, n)
	class := make([]string, n)
	if _, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) {
		arr[r.Request], won[r.Request], class[r.Request] = r.Start, r.End, r.Class
	}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		work float64
	}{{"short", 0.4}, {"long", 1.6}} {
		var lat []float64
		for i := n / 10; i < n; i++ {
			if class[i] == c.name {
				lat = append(lat, (won[i] - arr[i]).Seconds())
			}
		}
		mean, tol := batchMeanTol(lat)
		if want := c.work / 0.3; math.Abs(mean-want) > tol {
			t.Errorf("class %s (%.1f s of work): mean time in system %.4f, want x/(1 − ρ) = %.4f ± %.4f", c.name, c.work, mean, want, tol)
		}
	}
}

// TestBatchingFlatIsPlainPool: with a flat table (no slowdown with the
// batch) a batching pool is a plain pool whose concurrency is max_batch:
// every sequence runs at the speed it would alone, so every request —
// with two copies, cancels landing 50 ms late, attempt timeouts,
// deadlines and queues — ends at the same nanosecond, and the providers
// count the same outcomes. (The virtual clock runs at rate 1 and its
// times are rounded to the nearest nanosecond, so an end is its join time
// plus its work exactly.)
func TestBatchingFlatIsPlainPool(t *testing.T) {
	t.Parallel()
	mk := func(batching bool) *sim.Config {
		cfg := &sim.Config{
			Name: "flat", Seed: 3, Requests: 50_000,
			Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 3},
			Models: []sim.Model{{Name: "m", Provider: "p", TTFT: dist.LogNormal{Mu: math.Log(0.2), Sigma: 0.8},
				TokensPerSecond: dist.LogNormal{Mu: math.Log(50), Sigma: 0.2}}},
			Providers: []sim.Provider{{Name: "p", Pool: &sim.Pool{Replicas: 4, Concurrency: 3, Balancer: sim.PowerOfTwo, Decay: 0.9}}},
			Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{Value: 100},
				OutputTokens: dist.LogNormal{Mu: math.Log(100), Sigma: 0.8}, Deadline: 20 * time.Second,
				Policy: sim.Policy{Copies: 2, Delays: []time.Duration{2 * time.Second}, CancelLatency: 50 * time.Millisecond,
					AttemptTimeout: 6 * time.Second}}},
		}
		if batching {
			cfg.Providers[0].Pool.Batching = &sim.Batching{TokensPerSecond: []float64{50, 50, 50}}
		}
		return cfg
	}
	plain, batched := mk(false), mk(true)
	a, b := requestLatencies(t, plain), requestLatencies(t, batched)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("request %d: %.9f s in a plain pool, %.9f s batching", i, a[i], b[i])
		}
	}
	pa, pb := mustRun(t, plain).Providers[0], mustRun(t, batched).Providers[0]
	if pa.Sent != pb.Sent || pa.Completed != pb.Completed || pa.Cancelled != pb.Cancelled || pa.TimedOut != pb.TimedOut {
		t.Errorf("plain pool %+v\nbatching  %+v", pa, pb)
	}
	if pa.Cancelled == 0 || pa.TimedOut == 0 || pa.MeanQueueWait == 0 {
		t.Errorf("the run has no cancels, attempt timeouts or queueing (%+v): the test checks less than it says", pa)
	}
}

// TestBatchingReport: the report's mean batch and decode speed agree
// with what the run did. Each request's 30 output tokens are decoded over
// its whole time in the batch (a model with one latency distribution,
// no queue, no deadline), so the speed over the sequences' time decoding
// is 30 ÷ the mean latency, whatever the base speed B; the mean batch
// times the share of time the batch is held is the mean number in
// service (both count each attempt's time in service); and that share is
// the utilisation ρ, within 5 binomial-free standard errors of the busy
// time's batch means — here a loose 0.02 at 10⁵ requests.
func TestBatchingReport(t *testing.T) {
	cfg := psConfig(100_000, 0.7, dist.Exponential{Rate: 1})
	cfg.Classes[0].OutputTokens = dist.Constant{Value: 30}
	res := mustRun(t, cfg)
	p := res.Pools[0]
	r := p.Replicas[0]
	if r.MeanBatch == nil || r.DecodeSpeed == nil || p.MeanBatch == nil || p.DecodeSpeed == nil {
		t.Fatalf("pool %+v: no batch figures", p)
	}
	if *p.MeanBatch != *r.MeanBatch || *p.DecodeSpeed != *r.DecodeSpeed {
		t.Errorf("a pool of one replica: pool batch %v at %v, replica %v at %v", *p.MeanBatch, *p.DecodeSpeed, *r.MeanBatch, *r.DecodeSpeed)
	}
	if got, want := *r.DecodeSpeed, 30/sim.SummarizeLatency(&res.Classes[0]).Mean; math.Abs(got-want) > 1e-9*want {
		t.Errorf("decode speed %v tokens/s, want 30 tokens ÷ the mean latency = %v", got, want)
	}
	busy := r.MeanInService / *r.MeanBatch
	if math.Abs(busy-0.7) > 0.02 {
		t.Errorf("share of time the batch is held %.4f, want ρ = 0.7", busy)
	}
	// M/M/1-PS: the number in system is geometric, P(N = n) = (1 − ρ)ρⁿ,
	// as for FIFO; given N ≥ 1 its mean is 1/(1 − ρ).
	if got := *r.MeanBatch; math.Abs(got-1/0.3) > 0.1*got {
		t.Errorf("mean batch %.3f, want about 1/(1 − ρ) = %.3f", got, 1/0.3)
	}
	var b strings.Builder
	if err := sim.NewReport(cfg, res, res).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "mean batch") || !strings.Contains(b.String(), "tokens/s per sequence") {
		t.Errorf("the text report has no batch figures:\n%s", b.String())
	}
	plain := mustRun(t, poolConfig(1000, 0.7, 1, 1, sim.RandomBalancer))
	if pl := plain.Pools[0]; pl.MeanBatch != nil || pl.Replicas[0].MeanBatch != nil {
		t.Errorf("a pool without batching reports a batch")
	}
}

// TestBatchingDecodeSpeedSlowdown: a straggler's sequences decode at its
// table speed ÷ its slowdown, and the report says so. Two replicas under
// round robin, a flat table of 60 tokens/s, replica 1 four times slower; a
// request every 5 s with 0.1 s to the first token and 60 tokens at 60
// tokens/s (1.1 s of work) is alone in its batch (4.4 s at the straggler),
// so replica 0 decodes at 60 tokens/s and replica 1 at 60/4 = 15 exactly.
// The pool's mean over the sequences' time weighs each by its time in the
// batch: (60·1.1 + 15·4.4) ÷ (1.1 + 4.4) = 24 tokens/s. Deterministic: the
// tolerance is rounding only.
func TestBatchingDecodeSpeedSlowdown(t *testing.T) {
	cfg := &sim.Config{
		Name: "bslow", Seed: 1, Requests: 200,
		Arrivals: sim.Arrivals{Process: sim.Constant, Rate: 0.2},
		Models: []sim.Model{{Name: "m", Provider: "q", TTFT: dist.Constant{Value: 0.1},
			TokensPerSecond: dist.Constant{Value: 60}}},
		Providers: []sim.Provider{{Name: "q", Pool: &sim.Pool{
			Replicas: 2, Concurrency: 4, Balancer: sim.RoundRobin, Decay: 0.9,
			Overrides: []sim.ReplicaOverride{{Replica: 1, Slowdown: 4}},
			Batching:  &sim.Batching{TokensPerSecond: []float64{60, 60, 60, 60}}}}},
		Classes: []sim.Class{{Name: "c", Share: 1,
			InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Constant{Value: 60}}},
	}
	res := mustRun(t, cfg)
	p := res.Pools[0]
	for i, want := range []float64{60, 15} {
		r := p.Replicas[i]
		if r.MeanBatch == nil || r.DecodeSpeed == nil {
			t.Fatalf("replica %d: no batch figures", i)
		}
		if *r.MeanBatch != 1 {
			t.Errorf("replica %d: mean batch %v, want 1 (requests never overlap)", i, *r.MeanBatch)
		}
		if got := *r.DecodeSpeed; math.Abs(got-want) > 1e-9*want {
			t.Errorf("replica %d (slowdown %v): decode speed %v tokens/s, want %v", i, r.Slowdown, got, want)
		}
	}
	if got := *p.DecodeSpeed; math.Abs(got-24) > 1e-9*24 {
		t.Errorf("pool decode speed %v tokens/s, want 24", got)
	}
	var b strings.Builder
	if err := sim.NewReport(cfg, res, res).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "mean batch 1.00 at 24 tokens/s per sequence") {
		t.Errorf("the pool line does not give 24 tokens/s per sequence:\n%s", b.String())
	}
}

// byHand is requests at the given arrival times, with the given output
// tokens, to one replica of a streamed model (TTFT ttft, 2 tokens/s at
// batch size 1) batching under ideal sharing; class 0 hedges once at
// 0.5 s, class 1 does not.
func byHand(arrivals []time.Duration, out []float64, class []int, ttft float64, cancel time.Duration) *sim.Config {
	in := make([]float64, len(out))
	return &sim.Config{
		Name: "by-hand", Seed: 1, Requests: len(arrivals),
		Arrivals: sim.Arrivals{Process: sim.Replay, Trace: &sim.Trace{Arrivals: arrivals, Input: in, Output: out, Class: class}},
		Models: []sim.Model{{Name: "m", Provider: "p", TTFT: dist.Constant{Value: ttft},
			TokensPerSecond: dist.Constant{Value: 2}}},
		Providers: []sim.Provider{{Name: "p", Pool: &sim.Pool{
			Replicas: 1, Balancer: sim.RandomBalancer, Decay: 0.9,
			Batching: &sim.Batching{Base: 2, Contention: 1}}}},
		Classes: []sim.Class{
			{Name: "hedged", Share: 0.5, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
				Policy: sim.Policy{Copies: 1, Delays: []time.Duration{500 * time.Millisecond}, CancelLatency: cancel}},
			{Name: "plain", Share: 0.5, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}},
		},
	}
}

// TestBatchingByHand works small cases out on paper.
//
// Two requests without hedging, work = TTFT 0.2 s + tokens ÷ 2/s: A at 0
// s (4 tokens: 2.2 s of work), B at 1 s (1 token: 0.7 s). By 1 s A has
// done 1 s; sharing, each goes at half speed, so B's 0.7 s take 1.4 s: B
// ends at 2.4 s (latency 1.4 s), when A has 0.5 s left, alone: A ends at
// 2.9 s.
//
// A hedged request with 2 s of work (TTFT 0, 4 tokens) and its copy at
// 0.5 s on the same replica: from 0.5 s both go at half speed, so the
// primary's last 1.5 s take 3 s — it ends at 3.5 s, not 2 s: the copy
// slowed its own request. Its cancel lands 0.1 s later, at 3.6 s. A
// request C of class plain at 3.5 s with 1 s of work (2 tokens) shares
// the replica with the cancelled copy until 3.6 s (0.05 s done), then
// runs alone: it ends at 4.55 s, latency 1.05 s. Were the copy to stay
// until its own end, C would take longer.
func TestBatchingByHand(t *testing.T) {
	check := func(t *testing.T, cfg *sim.Config, want []float64) {
		t.Helper()
		lat := requestLatencies(t, cfg)
		for i := range want {
			if math.Abs(lat[i]-want[i]) > 1e-8 {
				t.Errorf("request %d: latency %.9f s, want %.9f s", i, lat[i], want[i])
			}
		}
	}
	t.Run("two jobs", func(t *testing.T) {
		cfg := byHand([]time.Duration{0, time.Second}, []float64{4, 1}, []int{1, 1}, 0.2, 0)
		check(t, cfg, []float64{2.9, 1.4})
	})
	// At a provider that ignores cancels the copy runs to its end: it
	// shares the replica with C from 3.5 s, so its last 0.5 s take 1 s (it
	// ends at 4.5 s, completed), by when C has done 0.5 s; alone, C ends
	// at 5 s: latency 1.5 s instead of 1.05 s.
	t.Run("cancels ignored", func(t *testing.T) {
		cfg := byHand([]time.Duration{0, 3500 * time.Millisecond}, []float64{4, 2}, []int{0, 1}, 0, 100*time.Millisecond)
		cfg.Providers[0].IgnoresCancel = true
		check(t, cfg, []float64{3.5, 1.5})
		if _, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) {
			if r.Request == 0 && r.Attempt == 1 && (r.End != 4500*time.Millisecond || r.Outcome != "completed") {
				t.Errorf("the copy %s at %v, want completed at 4.5s", r.Outcome, r.End)
			}
		}); err != nil {
			t.Fatal(err)
		}
	})
	// An attempt timeout of 1 s lets go of a call of 2 s alone in its
	// batch: it leaves the batch when its cancel lands (at once), and the
	// next request, at 1.5 s with 0.5 s of work, runs alone: 0.5 s.
	t.Run("attempt timeout", func(t *testing.T) {
		cfg := byHand([]time.Duration{0, 1500 * time.Millisecond}, []float64{4, 1}, []int{1, 1}, 0, 0)
		cfg.Classes[1].Policy.AttemptTimeout = time.Second
		var rows []sim.AttemptRecord
		if _, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) { rows = append(rows, *r) }); err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			switch {
			case r.Request == 0 && (r.Outcome != "timed_out" || r.End != time.Second):
				t.Errorf("request 0: %s at %v, want timed_out at 1s", r.Outcome, r.End)
			case r.Request == 1 && (r.Outcome != "completed" || r.End != 2*time.Second):
				t.Errorf("request 1: %s at %v, want completed at 2s", r.Outcome, r.End)
			}
		}
	})
	t.Run("hedged copy", func(t *testing.T) {
		cfg := byHand([]time.Duration{0, 3500 * time.Millisecond}, []float64{4, 2}, []int{0, 1}, 0, 100*time.Millisecond)
		check(t, cfg, []float64{3.5, 1.05})
		var copyEnd time.Duration
		if _, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) {
			if r.Request == 0 && r.Attempt == 1 {
				copyEnd = r.End
				if r.Outcome != "cancelled" {
					t.Errorf("the copy ended %s, want cancelled", r.Outcome)
				}
			}
		}); err != nil {
			t.Fatal(err)
		}
		if copyEnd != 3600*time.Millisecond {
			t.Errorf("the copy left at %v, want when its cancel lands, 3.6s", copyEnd)
		}
	})
}

// TestBatchingCancelBilled: a cancelled copy is billed, under
// cancel_billing = "generated", for the share of its decoding it did. A
// request of 40 tokens at 20 tokens/s (2 s of work, TTFT 0) and its copy
// at 0.5 s share the replica until the primary ends at 3.5 s (as in
// TestBatchingByHand); the copy, alone from then, has done 1.5 + 0.1 s
// of its 2 s when its cancel lands at 3.6 s: 32 of its 40 tokens. (A
// linear interpolation to the end it would reach at its speed then, 4.0
// s, would give 35.)
func TestBatchingCancelBilled(t *testing.T) {
	cfg := byHand([]time.Duration{0}, []float64{40}, []int{0}, 0, 100*time.Millisecond)
	cfg.Models[0].TokensPerSecond = dist.Constant{Value: 20}
	cfg.Classes[0].Policy.CancelBilling = sim.BillGenerated
	var rows []sim.AttemptRecord
	if _, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) { rows = append(rows, *r) }); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d attempts, want the primary and its copy", len(rows))
	}
	for _, r := range rows {
		switch r.Attempt {
		case 0:
			if r.End != 3500*time.Millisecond || r.BilledOutput != 40 {
				t.Errorf("primary: ended at %v billed %v tokens, want 3.5s and 40", r.End, r.BilledOutput)
			}
		case 1:
			if r.Outcome != "cancelled" || r.End != 3600*time.Millisecond || r.BilledOutput != 32 {
				t.Errorf("copy: %s at %v billed %v tokens, want cancelled at 3.6s and 32", r.Outcome, r.End, r.BilledOutput)
			}
		}
	}
}

// TestBatchingTable: a table of speeds gives the per-sequence speed by
// batch size. Two requests of 1 s of work at batch size 1, both at 0 s,
// at a replica whose table is [10, 4] tokens/s: each goes at 0.4 of its
// speed, so both end at 2.5 s; with a batch limit of 1 the second waits:
// 1 s and 2 s.
func TestBatchingTable(t *testing.T) {
	for _, tc := range []struct {
		limit int
		table []float64
		want  []float64
	}{
		{2, []float64{10, 4}, []float64{2.5, 2.5}},
		{1, []float64{10}, []float64{1, 2}},
	} {
		cfg := byHand([]time.Duration{0, 0}, []float64{2, 2}, []int{1, 1}, 0, 0)
		cfg.Providers[0].Pool.Concurrency = tc.limit
		cfg.Providers[0].Pool.Batching = &sim.Batching{TokensPerSecond: tc.table}
		lat := requestLatencies(t, cfg)
		for i, w := range tc.want {
			if math.Abs(lat[i]-w) > 1e-8 {
				t.Errorf("table %v, limit %d: request %d latency %.9f s, want %v s", tc.table, tc.limit, i, lat[i], w)
			}
		}
	}
}

// TestBatchingValidate: bad batching settings are errors, not panics.
func TestBatchingValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*sim.Config)
		want string
	}{
		{"growing table", func(c *sim.Config) {
			c.Providers[0].Pool.Concurrency = 2
			c.Providers[0].Pool.Batching = &sim.Batching{TokensPerSecond: []float64{10, 12}}
		}, "must not grow"},
		{"zero entry", func(c *sim.Config) {
			c.Providers[0].Pool.Concurrency = 2
			c.Providers[0].Pool.Batching = &sim.Batching{TokensPerSecond: []float64{10, 0}}
		}, "must be finite and > 0"},
		{"table without limit", func(c *sim.Config) {
			c.Providers[0].Pool.Batching = &sim.Batching{TokensPerSecond: []float64{10, 5}}
		}, "needs a batch limit"},
		{"no base", func(c *sim.Config) {
			c.Providers[0].Pool.Batching = &sim.Batching{Contention: 1}
		}, "base speed"},
		{"negative contention", func(c *sim.Config) {
			c.Providers[0].Pool.Batching = &sim.Batching{Base: 1, Contention: -1}
		}, "contention"},
		{"cold start", func(c *sim.Config) {
			c.Providers[0].Pool.ColdStart = &sim.ColdStart{Latency: dist.Constant{Value: 1}}
		}, "cold starts"},
		{"autoscale", func(c *sim.Config) {
			c.Providers[0].Pool.Autoscale = &sim.Autoscale{Initial: 1, Target: 1, Tick: 2 * time.Second, StableWindow: time.Minute, PanicWindow: 6 * time.Second, PanicThreshold: 2}
		}, "batching in an autoscaled pool is not modelled"},
		{"first token", func(c *sim.Config) {
			c.Classes[0].Policy.Winner = sim.FirstToken
		}, "first_token"},
		{"stalls", func(c *sim.Config) {
			c.Models[0].Stalls = sim.Stalls{Rate: 0.1, Duration: dist.Constant{Value: 1}}
		}, "stalls"},
		{"slow periods", func(c *sim.Config) {
			c.Providers[0].Degraded = &sim.Degraded{MeanNormal: time.Minute, MeanDegraded: time.Minute, Slowdown: 2}
		}, "slow periods"},
		{"replica's slow periods", func(c *sim.Config) {
			c.Providers[0].Pool.Overrides = []sim.ReplicaOverride{{Replica: 0,
				Degraded: &sim.Degraded{MeanNormal: time.Minute, MeanDegraded: time.Minute, Slowdown: 2}}}
		}, "slow periods"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := byHand([]time.Duration{0}, []float64{1}, []int{0}, 0, 0)
			tc.edit(cfg)
			_, err := sim.Run(cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, sim.ErrInvalidConfig) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// BenchmarkPoolBatching is BenchmarkPool's pool (100 replicas behind p2c
// at 80 % load, 10⁵ requests) with continuous batching: each replica a
// processor-sharing server (ideal sharing, no batch limit), and with a
// table of speeds and a batch limit of 8; and, as in BenchmarkPool, with
// a copy after 2 s.
func BenchmarkPoolBatching(b *testing.B) {
	cfg := &sim.Config{
		Name: "pool", Seed: 1, Requests: 100_000,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 80},
		Models:   []sim.Model{{Name: "m", Provider: "p", Latency: dist.Exponential{Rate: 1}}},
		Providers: []sim.Provider{{Name: "p", Pool: &sim.Pool{
			Replicas: 100, Balancer: sim.PowerOfTwo, Batching: &sim.Batching{Base: 30, Contention: 1}}}},
		Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}}},
	}
	b.Run("p2c-ps", func(b *testing.B) { benchRun(b, cfg) })
	table := *cfg
	table.Providers = []sim.Provider{{Name: "p", Pool: &sim.Pool{Replicas: 100, Concurrency: 8, Balancer: sim.PowerOfTwo,
		Batching: &sim.Batching{TokensPerSecond: []float64{60, 58, 55, 52, 48, 45, 41, 38}}}}}
	b.Run("p2c-table8", func(b *testing.B) { benchRun(b, &table) })
	hedged := *cfg
	hedged.Classes = []sim.Class{cfg.Classes[0]}
	hedged.Classes[0].Policy = sim.Policy{Copies: 1, Delays: []time.Duration{2 * time.Second}}
	b.Run("p2c-ps-hedged", func(b *testing.B) { benchRun(b, &hedged) })
}

// TestBatchingScenario: the shipped batching scenario shows what
// docs/pools.md says of it. In the busy pool, whose tail comes from long
// answers, the copies fill the batches: the hedged run's mean batch is
// larger and its decode speed lower than without hedging, and its p95 is
// worse, the 95 % intervals (from batch means) apart. In the quiet pool,
// whose tail comes from a straggler replica, the hedged p95 is better,
// the intervals apart, and its sequences decode faster on the whole: less
// of their time is spent at the straggler, a quarter of the others' speed.
func TestBatchingScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the shipped scenario at its size")
	}
	s, err := scenario.LoadFS(scenarios.FS, "batching.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &s.Config
	hedged, base := mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg))
	for i, name := range []string{"busy", "quiet"} {
		h, b := sim.SummarizeLatency(&hedged.Classes[i]), sim.SummarizeLatency(&base.Classes[i])
		if !h.P95CIOK || !b.P95CIOK {
			t.Fatalf("%s: no p95 intervals", name)
		}
		worse := h.P95CI95[0] > b.P95CI95[1]
		better := h.P95CI95[1] < b.P95CI95[0]
		if name == "busy" && !worse || name == "quiet" && !better {
			t.Errorf("%s: p95 hedged %.2fs %v, without %.2fs %v", name, h.P95, h.P95CI95, b.P95, b.P95CI95)
		}
	}
	hb, bb := hedged.Pools[0], base.Pools[0]
	if hb.Provider != "busy" || !(*hb.MeanBatch > *bb.MeanBatch && *hb.DecodeSpeed < *bb.DecodeSpeed) {
		t.Errorf("pool %s: mean batch %.2f at %.2f tokens/s hedged, %.2f at %.2f without", hb.Provider,
			*hb.MeanBatch, *hb.DecodeSpeed, *bb.MeanBatch, *bb.DecodeSpeed)
	}
	hq, bq := hedged.Pools[1], base.Pools[1]
	if hq.Provider != "quiet" || !(*hq.DecodeSpeed > *bq.DecodeSpeed) {
		t.Errorf("pool %s: %.2f tokens/s per sequence hedged, %.2f without", hq.Provider, *hq.DecodeSpeed, *bq.DecodeSpeed)
	}
}

// TestBatchingMemory: batching keeps nothing per request — a replica's
// batch holds its sequences in service only — so the memory a run
// allocates grows with the number of requests as a plain pool's does,
// within 4 bytes a request: the growth from 10⁵ to 2·10⁵ requests of
// BenchmarkPool's pool with and without batching (the same arrivals and
// draws) differs by at most 4·10⁵ bytes.
func TestBatchingMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 6·10⁵ requests")
	}
	pool := func(n int, batching bool) *sim.Config {
		cfg := &sim.Config{
			Name: "pool", Seed: 1, Requests: n,
			Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 80},
			Models:   []sim.Model{{Name: "m", Provider: "p", Latency: dist.Exponential{Rate: 1}}},
			Providers: []sim.Provider{{Name: "p", Pool: &sim.Pool{
				Replicas: 100, Concurrency: 1, Balancer: sim.PowerOfTwo}}},
			Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}}},
		}
		if batching {
			cfg.Providers[0].Pool.Concurrency = 0
			cfg.Providers[0].Pool.Batching = &sim.Batching{Base: 30, Contention: 1}
		}
		return cfg
	}
	alloc := func(cfg *sim.Config) int64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		mustRun(t, cfg)
		runtime.ReadMemStats(&after)
		return int64(after.TotalAlloc - before.TotalAlloc)
	}
	const n = 100_000
	plain := alloc(pool(2*n, false)) - alloc(pool(n, false))
	batched := alloc(pool(2*n, true)) - alloc(pool(n, true))
	if d := batched - plain; d > 4*n {
		t.Errorf("from %d to %d requests a batching pool allocates %d bytes more, a plain one %d: %.1f bytes a request more, want ≤ 4",
			n, 2*n, batched, plain, float64(d)/n)
	}
	t.Logf("growth per request: plain %.1f bytes, batching %.1f", float64(plain)/n, float64(batched)/n)
}

// TestBatchingRandomAudit runs random batching pools — batch limits,
// speed tables and contention, copies to the same or other replicas,
// cancels landing at once, late or never, attempt timeouts, deadlines,
// errors (not batched) and invalid answers, streamed and whole-call
// models — each hedged and without hedging: every run must balance its
// accounting (the package's tests audit every run: no slot or sequence
// left in use, every attempt counted once) and its counts must sum.
func TestBatchingRandomAudit(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 60
	if testing.Short() {
		n = 15
	}
	for i := range n {
		replicas := 1 + rng.IntN(4)
		pool := &sim.Pool{Replicas: replicas, Balancer: sim.Balancers[rng.IntN(len(sim.Balancers))], Decay: 0.5,
			AnyReplica: rng.IntN(2) == 0}
		if rng.IntN(2) == 0 {
			pool.Concurrency = 1 + rng.IntN(4)
			table := []float64{60}
			for len(table) < pool.Concurrency {
				table = append(table, table[len(table)-1]*(0.5+0.5*rng.Float64()))
			}
			pool.Batching = &sim.Batching{TokensPerSecond: table}
		} else {
			pool.Batching = &sim.Batching{Base: 40, Contention: 2 * rng.Float64()}
		}
		m := sim.Model{Name: "m", Provider: "p", ErrorRate: 0.1 * rng.Float64(), InvalidRate: 0.1 * rng.Float64(),
			ErrorLatency: dist.Constant{Value: 0.05}}
		if rng.IntN(2) == 0 {
			m.Latency = dist.LogNormal{Mu: math.Log(0.5), Sigma: 0.7}
		} else {
			m.TTFT = dist.LogNormal{Mu: math.Log(0.2), Sigma: 0.5}
			m.TokensPerSecond = dist.Uniform{Min: 20, Max: 80}
		}
		pol := sim.Policy{Copies: rng.IntN(3), CancelLatency: []time.Duration{0, 30 * time.Millisecond}[rng.IntN(2)]}
		if pol.Copies > 0 {
			pol.Delays = []time.Duration{time.Duration(rng.IntN(800)) * time.Millisecond}
		}
		if rng.IntN(3) == 0 {
			pol.AttemptTimeout = time.Duration(300+rng.IntN(1500)) * time.Millisecond
		}
		cfg := &sim.Config{
			Name: "audit", Seed: uint64(i), Requests: 3000,
			Arrivals:  sim.Arrivals{Process: sim.Poisson, Rate: float64(replicas) * (0.5 + 2*rng.Float64())},
			Models:    []sim.Model{m},
			Providers: []sim.Provider{{Name: "p", Pool: pool, IgnoresCancel: rng.IntN(5) == 0}},
			Classes: []sim.Class{{Name: "c", Share: 1, InputTokens: dist.Constant{Value: 50},
				OutputTokens: dist.Uniform{Min: 10, Max: 100}, Deadline: time.Duration(1+rng.IntN(5)) * time.Second, Policy: pol}},
		}
		for _, c := range []*sim.Config{cfg, sim.WithoutHedging(cfg)} {
			checkAttempts(t, mustRun(t, c))
		}
	}
}
