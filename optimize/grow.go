package optimize

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"sync"

	"github.com/hedgesim/hedgesim/sim"
)

// Growth is an optimization to a precision (hedgesim optimize
// --precision): the sweep of one scenario made again with more requests
// per candidate (Sweep), each time extending the runs already made by the
// requests added instead of simulating them again (sim.ExtendPolicies),
// and then finished once (Finish). The report of Sweep followed by Finish
// is Run's for the same settings, byte for byte in JSON
// (TestGrowthMatchesRun); only what it costs differs.
//
// Which runs are extended: those of the classes swept alone whose
// requests take the lane (sim.Lane) — every class's no-hedging baseline
// and its grid's candidates, made in batches that share their draws as
// Run makes them. A run is kept from one Sweep to the next, by class and
// policy, and extended when the next Sweep runs the same candidate with
// its requests doubled (or doubled j times: sim.PolicyRun.Extends); a
// candidate the next Sweep does not run is dropped, and one it runs first
// (the default delay grid follows no hedging's p10 and p99, which move as
// the requests grow) is simulated from request 0. Everything else is
// simulated again from the start at each Sweep: candidates off the lane,
// the joint search of coupled classes, pipeline classes (whose
// allocation search is adaptive), and any run once the kept runs would
// exceed keptBytes. The rollout check, Routing and Fleet are made only by
// Finish: the reports of the earlier Sweeps are not kept.
//
// A Growth holds the latencies of every kept run: about 4 bytes a request
// per candidate, all the sweep's candidates at once (Run holds one batch
// of them per worker).
type Growth struct {
	cfg *sim.Config
	opt Options
	mu  sync.Mutex
	// runs are the runs kept by the last Sweep, by growKey; next those
	// the Sweep in progress makes.
	runs, next map[string]grown
	// made counts, by growKey, the requests simulated for the run over
	// every Sweep; all sums the Sweeps' requests per candidate.
	made map[string]int64
	all  int64
	// again is set when the Sweep in progress simulates a run again from
	// its first request (a run it cannot extend); off stops the
	// extending for good (the kept runs would exceed keptBytes).
	again, off bool
	// simulated is Simulated's count after the last Sweep.
	simulated int64
	// kept are the last Sweep's measurements, by key, when s.Balancers
	// is set: Finish's balancer sweeps take those of a class that is
	// another under other names (balancerSweeps).
	kept map[string]*Measurement
}

// keptBytes bounds the memory the kept runs of a Growth hold (counted
// as sim.EstimateMemory counts a run's, without its 16 MiB, for as many
// runs as the sweep can keep: runsAtMost): a Sweep whose runs could hold
// more simulates them again from the start, as do the later ones.
var keptBytes int64 = 1 << 30

// runsAtMost bounds how many runs a sweep of cfg under s keeps: per
// class optimized, its no-hedging run and every candidate its grid can
// give (candidatesAtMost).
func runsAtMost(cfg *sim.Config, s *Settings) int64 {
	var n int64
	for i := range cfg.Classes {
		if name := cfg.Classes[i].Name; optimized(s, name) {
			n += 1 + int64(candidatesAtMost(s.For(name)))
		}
	}
	return n
}

// NewGrowth returns a Growth of cfg's optimization with options opt.
func NewGrowth(cfg *sim.Config, opt Options) *Growth {
	return &Growth{cfg: cfg, opt: opt, made: map[string]int64{}}
}

// Sweep returns Run's report of the optimization under s without its
// rollout check, Routing and Fleet (see Finish), extending the runs the
// last Sweep kept when s.Requests doubles theirs. It returns Run's
// errors.
func (g *Growth) Sweep(s Settings) (*Report, error) {
	per := sim.EstimateMemory(&sim.Config{Requests: max(s.Requests, 1)}) - 16<<20
	if g.off || runsAtMost(g.cfg, &s)*per > keptBytes {
		g.off, g.runs = true, nil
	}
	m := &memo{simulate: true, keep: len(s.Balancers) > 0}
	if !g.off {
		m.grow = g
	}
	g.next, g.again = map[string]grown{}, g.off
	rep, _, err := sweep(g.cfg, s, g.opt, m, false)
	if err != nil {
		return nil, err
	}
	g.all += int64(s.Requests)
	var most int64
	for k := range g.next {
		most = max(most, g.made[k])
	}
	if g.again {
		most = g.all
	}
	g.simulated = most
	g.runs, g.next = g.next, nil
	g.kept = m.kept
	return rep, nil
}

// Finish adds to rep, the last Sweep's report under s, what Run adds to
// its sweep: the rollout check, Routing and Fleet.
func (g *Growth) Finish(s Settings, rep *Report) (err error) {
	workers := g.opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx := g.opt.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if err := rolloutCheck(ctx, g.cfg, s, rep, workers); err != nil {
		return err
	}
	if len(s.Balancers) > 0 {
		if rep.Routing, err = routing(g.cfg, s, g.opt, rep, g.kept); err != nil {
			return err
		}
	}
	if len(s.MinReplicas) > 0 {
		rep.Fleet, err = fleet(g.cfg, s, g.opt)
	}
	return err
}

// Simulated returns, after a Sweep, the requests simulated per candidate
// over every Sweep: the most any one run of the last Sweep took, counting
// each time it was simulated again from its first request — that Sweep's
// requests when each of its runs extended one of the Sweep before or was
// new; the Sweeps' requests summed when the last simulated any again.
func (g *Growth) Simulated() int64 { return g.simulated }

// resimulated notes that the Sweep in progress simulates a run from its
// first request that it cannot extend.
func (g *Growth) resimulated() {
	g.mu.Lock()
	g.again = true
	g.mu.Unlock()
}

// grown is a kept run and its class's policy.
type grown struct {
	run *sim.PolicyRun
	pol sim.Policy
}

// growKey names the run of class's configuration c under pol: base for
// its no-hedging run, which records its met bits, rather than a
// candidate's, compared with them. A policy's pointers are written as
// addresses: a run is extended only when its policy is also deeply
// equal to the one asked for.
func growKey(c *sim.Config, pol *sim.Policy, base bool) string {
	return fmt.Sprintf("%s\x00%v\x00%#v", c.Classes[0].Name, base, *pol)
}

// run returns the results of c, a class's one-class configuration, under
// each of pols, as sim.RunPolicies does (base: c records its met bits for
// the no-hedging run), extending the runs of the last Sweep under the
// same policies and running the others from request 0 (sim.GrowPolicies).
// Every policy's run must take the lane. It returns sim's errors.
func (g *Growth) run(ctx context.Context, c *sim.Config, pols []sim.Policy, base bool) ([]*sim.Result, error) {
	keys := make([]string, len(pols))
	added := make([]int64, len(pols)) // requests simulated now, per run
	var ext []*sim.PolicyRun
	var extAt, newAt []int
	var fresh []sim.Policy
	g.mu.Lock()
	for i := range pols {
		keys[i] = growKey(c, &pols[i], base)
		if r, ok := g.runs[keys[i]]; ok && r.run.Extends(c.Requests) && reflect.DeepEqual(r.pol, pols[i]) {
			ext = append(ext, r.run)
			extAt = append(extAt, i)
			added[i] = int64(c.Requests - r.run.Requests())
		} else {
			fresh = append(fresh, pols[i])
			newAt = append(newAt, i)
			added[i] = int64(c.Requests)
		}
	}
	g.mu.Unlock()
	out := make([]*sim.Result, len(pols))
	kept := make([]*sim.PolicyRun, len(pols))
	if len(ext) > 0 {
		res, err := sim.ExtendPolicies(ctx, c, 0, ext)
		if err != nil {
			return nil, err
		}
		for j, i := range extAt {
			out[i], kept[i] = res[j], ext[j]
		}
	}
	if len(fresh) > 0 {
		res, runs, err := sim.GrowPolicies(ctx, c, 0, fresh)
		if err != nil {
			return nil, err
		}
		for j, i := range newAt {
			out[i], kept[i] = res[j], runs[j]
		}
	}
	g.mu.Lock()
	for i := range pols {
		g.made[keys[i]] += added[i]
		g.next[keys[i]] = grown{kept[i], pols[i]}
	}
	g.mu.Unlock()
	return out, nil
}

// runBaseline runs c, a class's one-class configuration recording its
// met bits, under pol, its no-hedging policy: extended from the last
// Sweep's run by m.grow when it takes the lane, else as runPolicy.
func (m *memo) runBaseline(ctx context.Context, c *sim.Config, pol sim.Policy) (*sim.Result, error) {
	if m.grow == nil {
		return runPolicy(ctx, c, pol)
	}
	one := *c
	one.Classes = []sim.Class{c.Classes[0]}
	one.Classes[0].Policy = pol
	if !sim.Lane(&one) || one.Validate() != nil {
		m.grow.resimulated()
		return runPolicy(ctx, c, pol)
	}
	res, err := m.grow.run(ctx, c, []sim.Policy{pol}, true)
	if err != nil {
		return nil, err
	}
	return res[0], nil
}
