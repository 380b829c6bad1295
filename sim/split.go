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
	n := cfg.Requests
	e := newEngine(cfg)
	e.stop = &stopper{ctx: ctx}
	if workers <= 1 || n < 2*workers || !e.laneOK() {
		e.run()
		if e.stop.err != nil {
			return nil, e.stop.err
		}
		return e.result(), nil
	}
	es := make([]*engine, workers)
	for k := range es {
		lo, hi := k*n/workers, (k+1)*n/workers
		if k == 0 {
			es[k] = e // gathers every range
			e.sizeTimes(hi - lo)
		} else {
			es[k] = newEngineFor(cfg, hi-lo)
			es[k].stop = &stopper{ctx: ctx}
		}
		es[k].next, es[k].end = int64(lo), int64(hi)
	}
	if cfg.Arrivals.Process == Poisson {
		// Each range starts where the gaps of the ranges before it end.
		sums := make([]time.Duration, workers-1) // the last range's is not needed
		parallel(workers-1, func(k int) { sums[k] = es[k].gapSum(es[k].next, es[k].end) })
		for k := 1; k < workers; k++ {
			es[k].lastArr = es[k-1].lastArr + sums[k-1]
		}
	}
	parallel(workers, func(k int) { es[k].run() })
	for _, o := range es {
		if o.stop.err != nil {
			return nil, o.stop.err
		}
	}
	for _, o := range es[1:] {
		e.absorb(o)
	}
	return e.result(), nil
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
		p.waitSum.addSum(q.waitSum)
		p.busySum.addSum(q.busySum)
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
