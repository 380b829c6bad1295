package sim_test

import (
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// floodConfig is 10 replicas of 10 slots each behind latency_ewma at half
// load (λ = 50/s, exponential service of mean 1 s), with cold starts of
// exactly 20 s (kept warm an hour: only a restart makes a replica cold);
// replica 3 restarts at 100 s for 20 s, its share reported over the 10 s
// after it rejoins — before any response of its can come back.
func floodConfig(n int, u sim.Unmeasured) *sim.Config {
	cfg := poolConfig(n, 50, 1, 10, sim.LatencyEWMA)
	pl := cfg.Providers[0].Pool
	pl.Concurrency = 10
	pl.ColdStart = &sim.ColdStart{KeepWarm: time.Hour, Latency: dist.Constant{Value: 20}}
	pl.Restarts = &sim.Restarts{Scheduled: []sim.Restart{{Replica: 3, At: 100 * time.Second, For: 20 * time.Second}}, Window: 10 * time.Second}
	pl.Unmeasured = u
	return cfg
}

// TestRestartFloodsUnderFastest: a restarted replica ranked as the
// fastest while unmeasured wins every pair it is drawn into: it gets
// every attempt whose pair holds it, 1 − (9/10)(8/9) = 1/5 of them, twice
// its fair share, until its first response — 20 s of cold start away.
// Probe sends it exactly one attempt in that time, and pool_mean, which
// ranks it as an average replica at its own growing load, less than the
// flood (by more than 5 binomial standard deviations of the flood's
// count). Each restart is reported at its exact times, and the replica
// pays exactly one cold start; no attempt reaches it while it is out.
func TestRestartFloodsUnderFastest(t *testing.T) {
	const n = 20_000 // 400 s of traffic
	shares := map[sim.Unmeasured]sim.RestartResult{}
	for _, u := range sim.Unmeasureds {
		cfg := floodConfig(n, u)
		var during int
		res, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) {
			if r.Replica == 3 && r.Start >= 100*time.Second && r.Start < 120*time.Second {
				during++
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if during != 0 {
			t.Errorf("%v: %d attempts reached replica 3 while it was out of service", u, during)
		}
		p := res.Pools[0]
		if len(p.Restarts) != 1 {
			t.Fatalf("%v: restarts %+v, want one", u, p.Restarts)
		}
		r := p.Restarts[0]
		if r.Replica != 3 || r.Left != 100 || r.Joined != 120 || r.WindowS != 10 || r.Random {
			t.Errorf("%v: restart %+v, want replica 3 out at 100 s, back at 120 s, a 10 s window", u, r)
		}
		if c := p.Replicas[3].ColdStarts; c != 1 {
			t.Errorf("%v: replica 3 had %d cold starts, want 1", u, c)
		}
		shares[u] = r
		t.Logf("%v: replica 3 got %d of %d attempts in its first 10 s back", u, r.Sent, r.PoolSent)
	}
	f := shares[sim.AssumeFastest]
	sd := math.Sqrt(float64(f.PoolSent) * 0.2 * 0.8)
	if d := float64(f.Sent) - 0.2*float64(f.PoolSent); math.Abs(d) > 5*sd {
		t.Errorf("fastest: replica 3 got %d of %d attempts, want a fifth ± %.0f (5 binomial sd)", f.Sent, f.PoolSent, 5*sd)
	}
	if p := shares[sim.Probe]; p.Sent != 1 {
		t.Errorf("probe: replica 3 got %d attempts before its first response, want exactly 1", p.Sent)
	}
	if m := shares[sim.AssumePoolMean]; !(float64(m.Sent) < 0.2*float64(m.PoolSent)-5*sd) {
		t.Errorf("pool_mean: replica 3 got %d of %d attempts, want fewer than the flood's fifth by 5 sd (%.0f)", m.Sent, m.PoolSent, 5*sd)
	}
}

// TestRestartsLeaveReplicasOut: a rolling restart of all 10 replicas, one
// after another for 5 s each, under every balancer: no attempt is sent to
// a replica while it is out, every attempt is served, and the report
// lists the ten restarts in order.
func TestRestartsLeaveReplicasOut(t *testing.T) {
	for _, b := range sim.Balancers {
		cfg := poolConfig(5000, 20, 1, 10, b)
		var rs []sim.Restart
		for i := range 10 {
			rs = append(rs, sim.Restart{Replica: i, At: time.Duration(10+6*i) * time.Second, For: 5 * time.Second})
		}
		cfg.Providers[0].Pool.Restarts = &sim.Restarts{Scheduled: rs, Window: time.Second}
		bad := 0
		res, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) {
			at := rs[r.Replica].At
			if r.Start >= at && r.Start < at+rs[r.Replica].For {
				bad++
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if bad != 0 {
			t.Errorf("%v: %d attempts went to a replica out of service", b, bad)
		}
		got := res.Pools[0].Restarts
		if len(got) != 10 {
			t.Fatalf("%v: %d restarts reported, want 10", b, len(got))
		}
		for i, r := range got {
			if r.Replica != i || r.Left != rs[i].At.Seconds() {
				t.Errorf("%v: restart %d is %+v, want replica %d at %v", b, i, r, i, rs[i].At)
			}
		}
	}
}

// TestRandomRestarts: replicas restarting after exponential up times of
// mean 20 s, out 5 s each time, over a run of about 2000 s. Each
// replica's restarts form a renewal process of cycle mean μ = 25 s and
// standard deviation σ = 20 s, so the ten replicas restart about 10·T/μ
// times, with variance 10·T·σ²/μ³ (the renewal central limit theorem);
// the up times between a rejoin and the next restart average 20 s within
// 5 standard errors (σ/√n); each lasts exactly 5 s; no attempt reaches a
// replica while it is out; and two pools with the same settings restart
// at the same times (common random numbers).
func TestRandomRestarts(t *testing.T) {
	t.Parallel()
	const n, rate = 40_000, 20.0
	cfg := poolConfig(n, rate, 1, 10, sim.PowerOfTwo)
	rs := &sim.Restarts{MeanUp: 20 * time.Second, Down: 5 * time.Second, Window: time.Second}
	cfg.Providers[0].Pool.Restarts = rs
	var got []sim.RestartResult
	bad := 0
	var sends []*sim.AttemptRecord
	res, err := sim.RunTrace(cfg, func(r *sim.AttemptRecord) {
		c := *r
		sends = append(sends, &c)
	})
	if err != nil {
		t.Fatal(err)
	}
	got = res.Pools[0].Restarts
	span := 0.0
	for _, r := range sends {
		span = max(span, r.Start.Seconds())
	}
	for _, r := range sends {
		s := r.Start.Seconds()
		for _, x := range got {
			if x.Replica == r.Replica && s >= x.Left && s < x.Joined {
				bad++
			}
		}
	}
	if bad != 0 {
		t.Errorf("%d attempts reached a replica while it was out", bad)
	}
	began := 0
	var ups []float64
	last := map[int]float64{}
	for _, x := range got {
		if x.Left <= span {
			began++
		}
		if !x.Random || math.Abs(x.Joined-x.Left-5) > 1e-9 {
			t.Errorf("restart %+v: want a random one of 5 s", x)
		}
		if j, ok := last[x.Replica]; ok {
			ups = append(ups, x.Left-j)
		}
		last[x.Replica] = x.Joined
	}
	mu, sigma := 25.0, 20.0
	want, sd := 10*span/mu, math.Sqrt(10*span*sigma*sigma/(mu*mu*mu))
	if math.Abs(float64(began)-want) > 5*sd {
		t.Errorf("%d restarts began in %.0f s, want %.0f ± %.0f", began, span, want, 5*sd)
	}
	m := 0.0
	for _, u := range ups {
		m += u / float64(len(ups))
	}
	if se := 20 / math.Sqrt(float64(len(ups))); math.Abs(m-20) > 5*se {
		t.Errorf("mean up time %.2f s over %d restarts, want 20 ± %.2f", m, len(ups), 5*se)
	}
	two := *cfg
	two.Providers = []sim.Provider{cfg.Providers[0], {Name: "q", Pool: cfg.Providers[0].Pool}}
	two.Models = []sim.Model{cfg.Models[0], cfg.Models[0]}
	two.Models[1].Name, two.Models[1].Provider = "m2", "q"
	two.Classes = []sim.Class{cfg.Classes[0], cfg.Classes[0]}
	two.Classes[0].Share, two.Classes[1].Share = 0.5, 0.5
	two.Classes[1].Name = "c2"
	two.Classes[1].Policy.Primary = 1
	r2 := mustRun(t, &two)
	a, b := r2.Pools[0].Restarts, r2.Pools[1].Restarts
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d restarts in one pool, %d in the other: want the same, > 0", len(a), len(b))
	}
	for i := range a {
		if a[i].Replica != b[i].Replica || a[i].Left != b[i].Left {
			t.Fatalf("restart %d: %+v in one pool, %+v in the other: want the same times", i, a[i], b[i])
		}
	}
}

// TestRestartAfterTheRun: a restart whose replica is due back after the
// run's last event (replica 1, out at 5 s for 100 s, in a run of 200
// requests 50 ms apart that ends within seconds of 10 s) did not rejoin:
// the text report's row says "after the run" with no window, not a
// rejoin time past the end as if it happened, and the JSON has joined_s
// null; a restart that did rejoin (replica 2, out at 2 s for 1 s) keeps
// its time, 3 s, in both.
func TestRestartAfterTheRun(t *testing.T) {
	cfg := poolConfig(200, 20, 1, 4, sim.RoundRobin)
	cfg.Arrivals.Process = sim.Constant
	cfg.Providers[0].Pool.Restarts = &sim.Restarts{Scheduled: []sim.Restart{
		{Replica: 1, At: 5 * time.Second, For: 100 * time.Second},
		{Replica: 2, At: 2 * time.Second, For: time.Second},
	}, Window: time.Second}
	res := mustRun(t, cfg)
	got := res.Pools[0].Restarts
	if len(got) != 2 {
		t.Fatalf("restarts %+v, want two", got)
	}
	early, late := got[0], got[1]
	if early.Replica != 2 || !early.Rejoined || early.JoinedJSON == nil || *early.JoinedJSON != 3 || early.Joined != 3 {
		t.Errorf("restart of replica 2: %+v, want rejoined at 3 s", early)
	}
	if late.Replica != 1 || late.Rejoined || late.JoinedJSON != nil || late.Joined != 105 {
		t.Errorf("restart of replica 1: %+v, want not rejoined, due at 105 s", late)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if js := string(b); !strings.Contains(js, `"replica":1,"left_s":5,"joined_s":null,`) || !strings.Contains(js, `"replica":2,"left_s":2,"joined_s":3,`) {
		t.Errorf("JSON %s: want joined_s null for replica 1 and 3 for replica 2", js)
	}
	var text strings.Builder
	if err := sim.NewReport(cfg, res, mustRun(t, sim.WithoutHedging(cfg))).WriteText(&text); err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^ +1 +5\.00s +after the run +- +0 +0 +-$`)
	if !row.MatchString(text.String()) || strings.Contains(text.String(), "105") {
		t.Errorf("text report: want the row of replica 1 to say \"after the run\" with no window and no 105 s:\n%s", text.String())
	}
	if !regexp.MustCompile(`(?m)^ +2 +2\.00s +3\.00s +1\.00s `).MatchString(text.String()) {
		t.Errorf("text report: want the row of replica 2 rejoined at 3.00s with a 1.00s window:\n%s", text.String())
	}
}
