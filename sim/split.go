package sim

import (
	"context"
	"math/bits"
	"sync"
	"time"
)

// RunSplit is RunContext on up to workers goroutines. A run that takes the
// lane (independent requests: see the package doc) is split into workers
// contiguous ranges of request indices, simulated at once and merged; any
// other run is simulated on one goroutine. The result is identical to
// RunContext's for any number of workers: every draw depends only on (seed,
// request, attempt); a range's first arrival time is the sum of the
// earlier gaps, whole nanoseconds added exactly; and every merged total is
// exact (counts, whole tokens, 128-bit sums of durations), while each
// range's latencies are kept as they are and percentiles are selected from
// all of them together, whatever their order. workers ≤ 1 means one
// goroutine.
func RunSplit(ctx context.Context, cfg *Config, workers int) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	res, err := runTogether(ctx, []*Config{cfg}, workers)
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

// RunWithBaseline returns RunSplit's results for cfg and for its
// no-hedging baseline (WithoutHedging), identical to those of the two
// runs made apart (TestRunWithBaselineMatchesRun). When both take the
// lane, they are made together, split into ranges of requests on workers
// goroutines, and share their draws: the baseline's arrivals, token counts
// and primaries are the hedged run's (common random numbers), drawn once.
// Otherwise the two runs are made at the same time, each on one goroutine
// (RunSplit splits only lane runs).
func RunWithBaseline(ctx context.Context, cfg *Config, workers int) (hedged, base *Result, err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	bcfg := WithoutHedging(cfg)
	if cfg.laneable() && bcfg.laneable() {
		res, err := runTogether(ctx, []*Config{cfg, bcfg}, workers)
		if err != nil {
			return nil, nil, err
		}
		return res[0], res[1], nil
	}
	var baseErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		base, baseErr = RunSplit(ctx, bcfg, workers)
	}()
	hedged, err = RunSplit(ctx, cfg, workers)
	<-done
	if err == nil {
		err = baseErr
	}
	if err != nil {
		return nil, nil, err
	}
	return hedged, base, nil
}

// runTogether runs the validated configurations cfgs, which differ at
// most in their classes' policies, and returns their results. When every
// run takes the lane, the requests are split into up to workers ranges
// simulated at once, and in each range the runs are made together,
// sharing their draws (runLanes); otherwise each run is made on its own
// in turn, on one goroutine.
func runTogether(ctx context.Context, cfgs []*Config, workers int) ([]*Result, error) {
	out := make([]*Result, len(cfgs))
	if len(cfgs) == 0 {
		return out, nil
	}
	lane := true
	for _, c := range cfgs {
		lane = lane && c.laneable()
	}
	if !lane {
		for j, c := range cfgs {
			var err error
			if out[j], err = runValid(ctx, c, nil); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	kept, _, err := laneRanges(ctx, cfgs, 0, int64(cfgs[0].Requests), 0, workers)
	if err != nil {
		return nil, err
	}
	for j, e := range kept {
		out[j] = e.result()
	}
	return out, nil
}

// laneRanges runs requests [lo, hi) of each of cfgs, which all take the
// lane and differ at most in their classes' policies, the first arriving
// after request lo − 1 arrived at lastArr (0 when lo is 0): split into up
// to workers ranges simulated at once, the runs of a range made together,
// sharing their draws (runLanes). It returns, per configuration, an
// engine that holds what every range recorded (not yet made into a
// result), and the arrival time of request hi − 1.
func laneRanges(ctx context.Context, cfgs []*Config, lo, hi int64, lastArr time.Duration, workers int) ([]*engine, time.Duration, error) {
	n := hi - lo
	if workers <= 1 || n < 2*int64(workers) {
		workers = 1
	}
	w := int64(workers)
	// es[k][j] runs range k of configuration j; es[0][j] gathers every range.
	es := make([][]*engine, workers)
	for k := range es {
		from, to := lo+int64(k)*n/w, lo+int64(k+1)*n/w
		es[k] = make([]*engine, len(cfgs))
		for j, c := range cfgs {
			e := newEngineFor(c, int(to-from))
			e.stop = &stopper{ctx: ctx}
			e.next, e.end = from, to
			e.lastArr = lastArr
			es[k][j] = e
		}
	}
	if workers > 1 && cfgs[0].Arrivals.Process == Poisson {
		// Each range starts where the gaps of the ranges before it end.
		sums := make([]time.Duration, workers-1) // the last range's is not needed
		parallel(workers-1, func(k int) { sums[k] = es[k][0].gapSum(es[k][0].next, es[k][0].end) })
		for k := 1; k < workers; k++ {
			for _, e := range es[k] {
				e.lastArr = es[k-1][0].lastArr + sums[k-1]
			}
		}
	}
	parallel(workers, func(k int) { runLanes(es[k]) })
	for _, rng := range es {
		for _, e := range rng {
			if e.stop.err != nil {
				return nil, 0, e.stop.err
			}
			e.auditIfOn()
		}
	}
	for j := range cfgs {
		for _, rng := range es[1:] {
			es[0][j].absorb(rng[j])
		}
	}
	return es[0], es[workers-1][0].lastArr, nil
}

// parallel runs f(0), …, f(n−1) at once and waits for them.
func parallel(n int, f func(k int)) {
	var wg sync.WaitGroup
	for k := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(k)
		}()
	}
	wg.Wait()
}

// absorb adds what engine o, which ran another range of the same
// configuration's requests, recorded to e.
func (e *engine) absorb(o *engine) {
	e.absorbCosts(o)
	if e.pair != nil && e.pair.rec != nil {
		e.pair.rec.or(o.pair.rec)
	}
	for c := range e.stats {
		s, x := &e.stats[c], &o.stats[c]
		s.add(x)
		s.split.addParts(x.split)
		s.split.addTimes(&x.times)
		e.classes[c].denied.add(o.classes[c].denied)
	}
	for i := range e.provs {
		p, q := &e.provs[i], &o.provs[i]
		s, t := &p.stats, &q.stats
		s.Sent += t.Sent
		s.Completed += t.Completed
		s.Failed += t.Failed
		s.RateLimited += t.RateLimited
		s.Invalid += t.Invalid
		s.Cancelled += t.Cancelled
		s.Rejected += t.Rejected
		s.TimedOut += t.TimedOut
		s.Stalled += t.Stalled
		s.started += t.started
		s.limited += t.limited
		p.waitSum.addSum(q.waitSum)
		p.busySum.addSum(q.busySum)
		p.lastEnd = max(p.lastEnd, q.lastEnd)
	}
	for m := range e.modelSent {
		e.modelSent[m] += o.modelSent[m]
	}
	e.lastEvent = max(e.lastEvent, o.lastEvent)
}

// addSum adds the sum o to w.
func (w *wideSum) addSum(o wideSum) {
	var carry uint64
	w.lo, carry = bits.Add64(w.lo, o.lo, 0)
	w.hi += o.hi + carry
}
