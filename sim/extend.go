package sim

import (
	"context"
	"fmt"
	"time"
)

// Growth is a run of a configuration beside its no-hedging baseline
// (RunWithBaseline) that can be extended by more requests without
// simulating again those already run: a run to a precision (hedgesim run
// --precision) doubles its requests until an interval is tight enough.
//
// Independent requests (see the package doc) do not affect one another,
// and every draw depends only on (seed, request, attempt) — a provider's
// slow periods only on the seed and the time — so requests [0, n) of a
// run of 2n requests are exactly those of the run of n. A Growth keeps
// what its requests so far recorded and simulates only the requests
// added, as one more range of a split run (RunSplit; runs off the lane,
// which RunSplit does not split, as a range on one goroutine): the results
// of Extend are RunWithBaseline's for the configuration with that many
// requests, field for field (TestGrowthMatchesRunWithBaseline). It holds
// the memory of every request run so far, as a run of that many requests
// does.
//
// Requests that interact (queues, limits, budgets, breakers, pools,
// closed loops, retries, adaptive delays, pipelines) cannot be extended
// so: the last requests of a run of n see its end (queues draining, no
// later arrivals), which requests [0, n) of a run of 2n do not. Their
// Growth (GrowWithBaselineTo) is a run of the most requests that holds
// after each doubling's last request started and forks there (fork.go):
// the fork drains as the run of that many requests does, the run goes on.
type Growth struct {
	// cfgs are the configuration and its baseline, at the requests run
	// so far; kept holds, per configuration, what every range run so far
	// recorded, never made into a result (result moves its latencies).
	cfgs []*Config
	kept []*engine
	// lane says both take the lane (laneRanges); otherwise each is run
	// off it (isolatedRange).
	lane bool
	// lastArr is the arrival time of the last request run.
	lastArr time.Duration
	// simulated counts the requests simulated per configuration.
	simulated int64
	// grown are, when the requests interact, the growing engines of the
	// configuration and its baseline (fork.go); fresh says the run no
	// longer grows (a count that is no doubling, or past the most it
	// may reach): Extend simulates again from the start. forking says
	// the requests interact.
	grown   []*engine
	fresh   bool
	forking bool
}

// GrowWithBaseline returns RunWithBaseline's results for cfg, and a
// Growth that extends them when cfg's requests are independent and cfg
// neither records nor compares met bits (Config.Pair, whose bits are sized
// for the first requests); otherwise g is nil and the results are
// RunWithBaseline's. It returns cfg.Validate's error for a configuration
// that is not usable, and ctx's when it is done first.
func GrowWithBaseline(ctx context.Context, cfg *Config, workers int) (hedged, base *Result, g *Growth, err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, nil, nil, err
	}
	bcfg := WithoutHedging(cfg)
	if cfg.Pair != nil || !cfg.independent() || !bcfg.independent() {
		hedged, base, err = RunWithBaseline(ctx, cfg, workers)
		return hedged, base, nil, err
	}
	c := *cfg
	g = &Growth{cfgs: []*Config{&c, bcfg}, lane: cfg.laneable() && bcfg.laneable()}
	if err := g.run(ctx, 0, int64(cfg.Requests), workers); err != nil {
		return nil, nil, nil, err
	}
	hedged, base = g.results()
	return hedged, base, g, nil
}

// GrowWithBaselineTo is GrowWithBaseline for a run that may grow to most
// requests: when cfg's requests interact, take the event loop and record
// no met bits (Config.Pair), and most is at least twice cfg.Requests, g
// is a Growth that extends the run by doubling its requests up to most,
// by forking (fork.go); its results are RunWithBaseline's for the
// configuration with that many requests, field for field
// (TestGrowthForksMatchFreshRuns). Other interacting runs have no
// Growth (g nil). A replayed trace caps most at its arrivals. Each Extend
// runs under its own ctx.
func GrowWithBaselineTo(ctx context.Context, cfg *Config, workers, most int) (hedged, base *Result, g *Growth, err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, nil, nil, err
	}
	bcfg := WithoutHedging(cfg)
	if cfg.Pair != nil || (cfg.independent() && bcfg.independent()) {
		return GrowWithBaseline(ctx, cfg, workers)
	}
	if tr := cfg.Arrivals.Trace; cfg.Arrivals.Process == Replay && tr != nil {
		most = min(most, len(tr.Arrivals)) // a replayed trace has no arrival after its last
	}
	top := int64(cfg.Requests)
	for top > 0 && 2*top <= int64(most) {
		top *= 2
	}
	if top == int64(cfg.Requests) || !cfg.growable() || !bcfg.growable() {
		hedged, base, err = RunWithBaseline(ctx, cfg, workers)
		return hedged, base, nil, err
	}
	c := *cfg
	g = &Growth{cfgs: []*Config{&c, bcfg}, forking: true}
	for _, x := range g.cfgs {
		e := newGrowingEngine(x, top)
		e.stop = &stopper{ctx: ctx}
		g.grown = append(g.grown, e)
	}
	if hedged, base, err = g.grow(int64(cfg.Requests), false); err != nil {
		return nil, nil, nil, err
	}
	g.simulated = int64(cfg.Requests)
	return hedged, base, g, nil
}

// grow runs g's growing engines, at once, until request n − 1 started,
// and returns the results of the runs of n requests.
func (g *Growth) grow(n int64, started bool) (hedged, base *Result, err error) {
	res := make([]*Result, len(g.grown))
	errs := make([]error, len(g.grown))
	parallel(len(g.grown), func(j int) {
		e := g.grown[j]
		f := e.growTo(n, started)
		if f != nil && f != e {
			f.continueRun()
		}
		if e.stop.err != nil {
			errs[j] = e.stop.err
			return
		}
		res[j] = f.result()
	})
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	if g.grown[0].end == n {
		g.grown, g.fresh = nil, true // ran to its end
	}
	return res[0], res[1], nil
}

// Forks reports whether g's next doubling forks a run whose requests
// interact (fork.go), which briefly holds its state twice.
func (g *Growth) Forks() bool { return g.forking && !g.fresh }

// Requests returns the requests of the run so far.
func (g *Growth) Requests() int { return g.cfgs[0].Requests }

// Simulated returns the requests simulated so far, each both with hedging
// and without: the requests of the run, simulated once each.
func (g *Growth) Simulated() int64 { return g.simulated }

// Extend simulates requests [n, requests) of the configuration and its
// baseline, n the requests run so far, and returns the results of the run
// of requests [0, requests): RunWithBaseline's for the configuration with
// requests requests, field for field. requests must exceed n; the
// extended configuration must pass Validate (at most MaxRequests, or a
// replayed trace's length), whose error is returned otherwise, as is ctx's
// when it is done first. After an error g is unusable.
func (g *Growth) Extend(ctx context.Context, requests, workers int) (hedged, base *Result, err error) {
	n := g.Requests()
	if requests <= n {
		return nil, nil, fmt.Errorf("sim: extending a run of %d requests to %d: not more", n, requests)
	}
	c := *g.cfgs[0]
	c.Requests = requests
	if err := c.Validate(); err != nil {
		return nil, nil, err
	}
	b := *g.cfgs[1]
	b.Requests = requests
	g.cfgs = []*Config{&c, &b}
	if g.forking {
		return g.extendGrown(ctx, n, requests, workers)
	}
	// The added cost's arrival sections (costsections.go) of request i are
	// ⌊i·numSections/n⌋; at n·2ʲ requests they are ⌊⌊i·numSections/n⌋/2ʲ⌋,
	// so the kept sections merge 2ʲ at a time. Any other count moves
	// section boundaries inside a kept section: the run is simulated again.
	from := int64(n)
	if j, ok := doublings(n, requests); ok {
		for _, e := range g.kept {
			e.costs.coarsen(j)
		}
	} else {
		g.kept, g.lastArr, from = nil, 0, 0
	}
	if err := g.run(ctx, from, int64(requests), workers); err != nil {
		return nil, nil, err
	}
	hedged, base = g.results()
	return hedged, base, nil
}

// doublings returns j when to = from·2ʲ, j ≥ 1.
func doublings(from, to int) (uint, bool) {
	for j := uint(1); from > 0 && from<<j <= to && j < 63; j++ {
		if from<<j == to {
			return j, true
		}
	}
	return 0, false
}

// run simulates requests [lo, hi) of g's configurations (laneRanges, or
// isolatedRange off the lane) and adds what they recorded to g's.
func (g *Growth) run(ctx context.Context, lo, hi int64, workers int) error {
	var es []*engine
	var last time.Duration
	var err error
	if g.lane {
		es, last, err = laneRanges(ctx, g.cfgs, lo, hi, g.lastArr, workers)
	} else {
		es, last, err = isolatedRange(ctx, g.cfgs, lo, hi, g.lastArr)
	}
	if err != nil {
		return err
	}
	if g.kept == nil {
		g.kept = es
	} else {
		for j, e := range es {
			g.kept[j].absorb(e)
		}
	}
	g.lastArr = last
	g.simulated += hi - lo
	return nil
}

// isolatedRange runs requests [lo, hi) of each of cfgs, whose requests
// are independent, the first arriving after request lo − 1 arrived at
// lastArr (0 when lo is 0): each configuration on one goroutine, all at
// once, as RunWithBaseline runs those off the lane. It returns, per
// configuration, the engine that ran them (not yet made into a result),
// and the arrival time of request hi − 1.
func isolatedRange(ctx context.Context, cfgs []*Config, lo, hi int64, lastArr time.Duration) ([]*engine, time.Duration, error) {
	es := make([]*engine, len(cfgs))
	for j, c := range cfgs {
		e := newEngineFor(c, int(hi-lo))
		e.stop = &stopper{ctx: ctx}
		e.next, e.end = lo, hi
		e.lastArr = lastArr
		es[j] = e
	}
	parallel(len(es), func(j int) { es[j].run() })
	for _, e := range es {
		if e.stop.err != nil {
			return nil, 0, e.stop.err
		}
	}
	return es, es[0].lastArr, nil
}

// results returns the results of g's configurations for the requests run
// so far, leaving g's records in place for more requests.
func (g *Growth) results() (hedged, base *Result) {
	return g.kept[0].keptResult(), g.kept[1].keptResult()
}

// keptResult is result, leaving e's latencies in place (result moves them
// into the result) so that more ranges can be absorbed after it. The
// result shares their memory, which later ranges only add parts to.
func (e *engine) keptResult() *Result {
	type lats struct {
		times endTimes
		split latencySet
	}
	saved := make([]lats, len(e.stats))
	for i := range e.stats {
		saved[i] = lats{e.stats[i].times, e.stats[i].split}
	}
	res := e.result()
	for i := range e.stats {
		e.stats[i].times, e.stats[i].split = saved[i].times, saved[i].split
	}
	return res
}

// extendGrown is Extend for a run whose requests interact: a doubling of
// n up to the most the growing engines reach forks them (grow), any other
// count is simulated again from the start (RunWithBaseline), as every
// later one then is.
func (g *Growth) extendGrown(ctx context.Context, n, requests, workers int) (hedged, base *Result, err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if _, ok := doublings(n, requests); ok && !g.fresh && int64(requests) <= g.grown[0].end {
		for _, e := range g.grown {
			e.stop = &stopper{ctx: ctx} // this call's: forks share it (fork.go)
		}
		if hedged, base, err = g.grow(int64(requests), true); err != nil {
			return nil, nil, err
		}
		g.simulated += int64(requests - n)
		return hedged, base, nil
	}
	g.grown, g.fresh = nil, true
	if hedged, base, err = RunWithBaseline(ctx, g.cfgs[0], workers); err != nil {
		return nil, nil, err
	}
	g.simulated += int64(requests)
	return hedged, base, nil
}
