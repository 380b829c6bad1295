package sim

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
)

// TestLeastScanMatchesReservoir: least_outstanding's scan on live load
// (leastScan, then keptTie for at most 64 replicas and lastTie for any)
// picks the replica leastOutstanding's reservoir picks, from the same
// stream, for pools of 1 to 100 replicas, loads in [0, 4) (so that most
// picks have ties, many of them), and left-out lists of up to 4 replicas
// (each replica left out with probability 1/n, one always kept); and
// that leastIdle, from the idle replicas' bits, finds leastScan's least
// load, ties and draws whenever a replica not left out is idle, and
// walkDraws (any best) and drawsBefore (best ≤ 2) its draws before best
// when at most one replica is left out (dispatchTurn's case).
func TestLeastScanMatchesReservoir(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	e := &engine{}
	for _, n := range []int{1, 2, 3, 8, 17, 63, 64, 65, 100} {
		pl := &pool{reps: make([]replica, n)}
		for trial := 0; trial < 2000; trial++ {
			for i := range pl.reps {
				pl.reps[i].busy, pl.reps[i].waiting = rng.IntN(3), rng.IntN(2)
			}
			var left []int
			for i := 0; i < n && len(left) < min(4, n-1); i++ {
				if rng.IntN(2*n) < 2 { // each with probability 1/n
					left = append(left, i)
				}
			}
			s := rng.Uint64()
			want := e.leastOutstanding(pl, n, left, &splitMix{s})
			best, ties, load, draws, at := leastScan(pl.reps, left)
			got := best
			if ties > 1 {
				got = lastTie(pl.reps, left, best, ties, load, draws, s)
				if n <= 64 {
					if k := keptTie(at, ties, draws, s); k != got {
						t.Fatalf("%d replicas, trial %d: keptTie picks %d, lastTie %d", n, trial, k, got)
					}
				}
			}
			if got != want {
				t.Fatalf("%d replicas, trial %d, left %v: the scan picks %d, the reservoir %d", n, trial, left, got, want)
			}
			if n > 64 {
				continue
			}
			var idle uint64 // pool.idle's bits
			for i := range pl.reps {
				if pl.reps[i].busy+pl.reps[i].waiting == 0 {
					idle |= 1 << uint(i)
				}
			}
			switch ib, it, id, iat := leastIdle(pl.reps, left, idle); {
			case load != 0 && it != 0:
				t.Fatalf("%d replicas, trial %d, left %v: leastIdle finds %d idle at least load %d", n, trial, left, it, load)
			case load == 0 && (ib != best || it != ties || it > 1 && (id != draws || iat != at)):
				t.Fatalf("%d replicas, trial %d, left %v: leastIdle gives best %d, %d ties, %d draws, ties %b; leastScan %d, %d, %d, %b",
					n, trial, left, ib, it, id, iat, best, ties, draws, at)
			}
			if x := -1; load == 0 && ties > 1 && len(left) <= 1 {
				if len(left) == 1 {
					x = left[0]
				}
				if d := ties - 1 + walkDraws(pl.reps[:best], x); d != draws {
					t.Fatalf("%d replicas, trial %d, left %v: walkDraws gives %d draws, leastScan %d", n, trial, left, d, draws)
				}
				if d := ties - 1 + drawsBefore(pl.reps, best, x); best <= 2 && d != draws {
					t.Fatalf("%d replicas, trial %d, left %v: drawsBefore gives %d draws, leastScan %d", n, trial, left, d, draws)
				}
			}
		}
	}
}

// TestReachesEWMA: a run tells a balancer of latencies (engine.ewma,
// observe) only when one of its classes can call a latency_ewma pool —
// by its primary or a target — so that a class calling only another
// pool of the scenario (a sweep's one-class run) answers by respond's
// short path; its results are those of a run that observes
// (TestRunPoliciesEachMatchesRun and the golden reports hold them).
func TestReachesEWMA(t *testing.T) {
	lat := dist.Exponential{Rate: 1}
	for _, c := range []struct {
		primary int
		targets []int
		want    bool
	}{
		{0, nil, false},
		{0, []int{0}, false},
		{0, []int{1}, true},
		{1, nil, true},
	} {
		cfg := Config{
			Name: "ewma", Seed: 1, Requests: 100,
			Arrivals: Arrivals{Process: Poisson, Rate: 1},
			Models:   []Model{{Name: "a", Provider: "p2c", Latency: lat}, {Name: "b", Provider: "ewma", Latency: lat}},
			Providers: []Provider{
				{Name: "p2c", Pool: &Pool{Replicas: 2, Balancer: PowerOfTwo}},
				{Name: "ewma", Pool: &Pool{Replicas: 2, Balancer: LatencyEWMA, Decay: 0.9}},
			},
			Classes: []Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
				Policy: Policy{Primary: c.primary, Targets: c.targets, Copies: len(c.targets), Delays: make([]time.Duration, len(c.targets))}}},
		}
		if len(c.targets) > 0 {
			cfg.Classes[0].Policy.Delays[0] = time.Second
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("primary %d, targets %v: %v", c.primary, c.targets, err)
		}
		if got := newEngine(&cfg).ewma; got != c.want {
			t.Errorf("primary %d, targets %v: the run observes latencies: %v, want %v", c.primary, c.targets, got, c.want)
		}
	}
}
