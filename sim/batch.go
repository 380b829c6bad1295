package sim

import (
	"context"
	"time"
)

// RunPolicies simulates cfg once per policy of pols, with class's policy
// replaced by it, and returns one Result per policy: result i is exactly
// RunContext's of that configuration (TestRunPoliciesMatchesRun compares
// them byte for byte). Every policy's configuration must pass Validate;
// otherwise RunPolicies returns the first one's error (wrapping
// ErrInvalidConfig) and no result. class indexes cfg.Classes. When ctx is
// done it returns ctx's error and no result.
//
// When every run takes the lane (see the package doc), they are made
// together, request by request: a request's arrival, class and token
// counts, and each attempt's draws, depend only on (seed, request,
// attempt) and the model it goes to — the common random numbers every
// policy shares — so they are drawn once, for the first policy that needs
// them, and reused by the others. Only the policies' own decisions (when
// to send a copy, which response wins, what is cancelled) are made once
// per policy. A sweep of n hedge delays then costs far less than n runs.
// Otherwise the runs are made one after another.
func RunPolicies(ctx context.Context, cfg *Config, class int, pols []Policy) ([]*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cfgs := make([]Config, len(pols))
	for i := range pols {
		c := &cfgs[i]
		*c = *cfg
		c.Classes = append([]Class(nil), cfg.Classes...)
		c.Classes[class].Policy = pols[i]
		if err := c.Validate(); err != nil {
			return nil, err
		}
	}
	ps := make([]*Config, len(cfgs))
	for i := range cfgs {
		ps[i] = &cfgs[i]
	}
	return runTogether(ctx, ps, 1)
}

// runLanes runs the engines es, which differ only in their policies and
// all take the lane, a block of requests at a time: es[0] draws the
// block's arrival times, then each engine runs the block's requests from
// them in turn, sharing one drawCache; a single engine just runs the lane.
// Running a block per engine, rather than a request per engine, keeps one
// engine's state in the nearest caches for a block.
func runLanes(es []*engine) {
	if len(es) == 1 {
		es[0].runLane() // nothing to share
		return
	}
	dc := newDrawCache(len(es[0].cfg.Models))
	for _, e := range es {
		e.batch = dc
		e.laneSetup()
	}
	var r request
	var at [blockSize]time.Duration
	lead := es[0]
	for lead.more() {
		first, n := lead.next, 0
		for n < blockSize && (n == 0 || lead.more()) {
			at[n] = lead.arrivalTime()
			lead.next++
			n++
		}
		lead.next = first
		for _, e := range es {
			for j := range n {
				dc.at(first + int64(j))
				e.now, e.lastArr = at[j], at[j]
				e.laneRequest(&r)
			}
		}
		if lead.spent(n * (len(es) - 1)) { // the other engines' requests
			break
		}
	}
	for _, e := range es[1:] {
		e.stop.err = lead.stop.err
	}
	for _, e := range es {
		e.laneFold()
	}
}

// blockSize is how many requests runLanes runs on one engine before the
// next: their draws, for every attempt and model, fit in a drawCache.
const blockSize = 256

// drawCache holds the draws of a block of requests in runLanes: per
// request, its class and token counts, and per attempt and model the
// attempt's response times relative to when it was sent and its outcome.
// An entry is its request's when its id is the request's index + 1, so
// a zero entry is never anyone's.
type drawCache struct {
	id     int64 // the request in progress: its index + 1
	slot   int   // and its place in the block
	models int
	req    [blockSize]drawnRequest
	att    []drawnAttempt // by place in the block, then attempt, then model
}

// drawnRequest is what drawRequest drew for a request.
type drawnRequest struct {
	id      int64
	class   int32
	in, out float64
}

// drawnAttempt is what laneDrawn made of an attempt's draws: its first
// token (or whole answer) and its end, after the send, and its outcome.
type drawnAttempt struct {
	id         int64
	first, end time.Duration
	kind       outcome
}

func newDrawCache(models int) *drawCache {
	return &drawCache{models: models, att: make([]drawnAttempt, blockSize*(MaxCopies+1)*models)}
}

// at makes request i the one in progress.
func (dc *drawCache) at(i int64) { dc.id, dc.slot = i+1, int(i%blockSize) }

// reuseRequest gives r the class and token counts drawn for it by an
// earlier engine, and reports whether there were any.
func (dc *drawCache) reuseRequest(r *request) bool {
	q := &dc.req[dc.slot]
	if q.id != dc.id {
		return false
	}
	r.class, r.in, r.out = q.class, q.in, q.out
	return true
}

// keepRequest keeps r's class and token counts, just drawn.
func (dc *drawCache) keepRequest(r *request) {
	dc.req[dc.slot] = drawnRequest{id: dc.id, class: r.class, in: r.in, out: r.out}
}

// entry is the place of attempt k to model m of the request in progress.
func (dc *drawCache) entry(m, k int) *drawnAttempt {
	return &dc.att[(dc.slot*(MaxCopies+1)+k)*dc.models+m]
}
