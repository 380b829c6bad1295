package sim

import (
	"context"
	"sync"
	"time"
)

// RunPoliciesEach simulates cfg once per policy of pols, with class's
// policy replaced by it, and calls fn(i, result, nil) with run i's result
// as soon as it is made, in pols' order — exactly RunContext's result of
// that configuration (TestRunPoliciesEachMatchesRun) — or fn(i, nil, err)
// when policy i's configuration fails Validate (err wraps
// ErrInvalidConfig); the other runs are still made. A result is fn's to
// keep or drop: none is held once fn returns, so a batch of n runs holds
// one run's latencies at a time, not n. When ctx is done it returns
// ctx's error; when fn returns an error it stops and returns that.
// class indexes cfg.Classes.
//
// The runs are made one after another on the calling goroutine. Runs on
// the event loop (requests that interact) share what every policy draws
// alike (sharedDraws): each request's arrival time, class and token
// counts, and its primary's draws — and its first copy's, when the
// models' draws are plain (plainShares) — are drawn by the first run
// that needs them and reused by the others. Lane runs share nothing
// here (RunPolicies makes them together).
func RunPoliciesEach(ctx context.Context, cfg *Config, class int, pols []Policy, fn func(i int, res *Result, err error) error) error {
	var d *sharedDraws
	for i := range pols {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := *cfg
		c.Classes = append([]Class(nil), cfg.Classes...)
		c.Classes[class].Policy = pols[i]
		if err := c.Validate(); err != nil {
			if ferr := fn(i, nil, err); ferr != nil {
				return ferr
			}
			continue
		}
		e := newEngine(&c)
		e.stop = &stopper{ctx: ctx}
		if d == nil && len(pols) > 1 && c.shareable() {
			// Every run of the batch has cfg's models, so the first
			// says which form the draws take (plainShares).
			d = newSharedDraws(c.Requests, e.plainShares())
			defer sharedPool.Put(d)
		}
		if !e.pipeLaneOK() && !e.laneOK() {
			e.shared = d
		}
		e.run()
		if e.stop.err != nil {
			return e.stop.err
		}
		if err := fn(i, e.result(), nil); err != nil {
			return err
		}
	}
	return nil
}

// shareable reports whether runs of cfg that differ only in their
// policies draw every request's arrival, class and token counts, and its
// first calls, alike, so that sharedDraws may hand one run's draws to
// another: open arrivals only (a closed-loop client's request draws its
// class from the client), no pipeline steps (their calls draw by step),
// and no correlation between attempts (a copula's scores depend on the
// policy's targets).
func (cfg *Config) shareable() bool {
	return !cfg.closedLoop() && !cfg.pipelined() && !cfg.correlated() && cfg.Requests < 1<<31-1
}

// sharedAttempts is how many attempts of each request sharedDraws keeps
// in its plain form: the primary and the first copy. In its full form it
// keeps the primary's alone. (Keeping the first copy's in the full form
// made no fewer instructions in BenchmarkRunPoliciesEachPool, and would
// hold 48 bytes more a request; the plain form holds both in the 48
// bytes the full form's one takes.)
const sharedAttempts = 2

// sharedDraws holds the draws that runs made one after another by
// RunPoliciesEach share: the arrival time of requests 0 … len(at)−1 and
// the class and token counts of requests 0 … len(req)−1 (open arrivals
// come in index order), and per request the draws of its first calls of
// round 0 to the model the entry names: in the full form (att), those of
// its primary; in the plain form (plain), when every model whose draws
// are shared takes draw's plain path with a latency of one draw
// (plainShares), those of its primary and of its first copy
// (sharedAttempts), each entry holding only what that path draws. A run
// that finds a draw here takes it; one that does not draws it, from the
// same (seed, request, attempt) stream, and keeps it. An attempt's draw
// depends on its request, its index, its model and, for a streamed
// model, the request's token counts — never on when it is sent or on the
// policy — so either way the run is the one made alone.
type sharedDraws struct {
	at    []time.Duration
	req   []sharedRequest
	att   []sharedAttempt // full form: by request; nil in the plain form
	plain []plainAttempt  // plain form: by request, then attempt; nil in the full form
}

// sharedRequest is what drawRequest drew for a request.
type sharedRequest struct {
	class   int32
	in, out float64
}

// sharedAttempt is what draw made of an attempt's draws: every field of
// the attempt it sets other than when it was sent. id is the request's
// index + 1 (0: no draw kept); prov is the model's provider (the runs
// sharing the draws differ only in a class's policy, so it is every
// run's), kept so that keptAttempt need not look it up (in what would be
// padding: 48 bytes either way).
type sharedAttempt struct {
	workFirst, workDecode, workErr time.Duration
	degU                           float64
	id, model, prov                int32
	kind                           outcome
	status                         failStatus
	streamed                       bool
}

// plainAttempt is what draw's plain path with a latency of one draw
// (plainShares) draws for an attempt: its work and its degraded-period
// uniform; the rest of the attempt is that path's constants (kind outOK,
// workErr −1, no decoding, not streamed) and its model's provider, prov,
// kept so that keptAttempt need not look it up (in what would be
// padding). model is the model's index + 1 (0: no draw kept). 24 bytes.
type plainAttempt struct {
	workFirst   time.Duration
	degU        float64
	model, prov int32
}

// plainShares reports whether every model whose draws may be shared
// (sharesDraws) takes draw's plain path with a latency of one draw — no
// failures, stalls or copula, and not streamed — which sets of an
// attempt only what a plainAttempt holds: sharedDraws then take their
// plain form.
func (e *engine) plainShares() bool {
	for m, shares := range e.sharesDraws {
		if pd := e.plainDraws[m]; shares && pd != plainLatency && pd < plainGamma {
			return false
		}
	}
	return true
}

// sharedPool keeps the sharedDraws of finished batches for the next, so
// that a sweep's batches reuse their memory rather than leave it to the
// garbage collector.
var sharedPool sync.Pool

// newSharedDraws returns an empty sharedDraws for runs of requests
// requests, in the plain form when plain, else the full one (both hold
// 48 bytes a request for the attempts), reused from sharedPool when one
// there has that form and is large enough but not over 4 times so (a
// sweep at 10⁷ requests would otherwise keep, and clear in full, 500 MB
// for later batches of 10³); only the part the runs use is cleared.
func newSharedDraws(requests int, plain bool) *sharedDraws {
	n := requests
	if plain {
		n *= sharedAttempts
	}
	if d, ok := sharedPool.Get().(*sharedDraws); ok && (d.plain != nil) == plain {
		c := cap(d.att)
		if plain {
			c = cap(d.plain)
		}
		if c >= n && c <= 4*max(n, 1<<16) && cap(d.at) >= requests && cap(d.req) >= requests {
			d.at, d.req = d.at[:0], d.req[:0]
			if plain {
				d.plain = d.plain[:n]
				clear(d.plain)
			} else {
				d.att = d.att[:n]
				clear(d.att)
			}
			return d
		}
	}
	d := &sharedDraws{
		at:  make([]time.Duration, 0, requests),
		req: make([]sharedRequest, 0, requests),
	}
	if plain {
		d.plain = make([]plainAttempt, n)
	} else {
		d.att = make([]sharedAttempt, n)
	}
	return d
}

// SharedDrawBytes is about how many bytes RunPoliciesEach holds for the
// draws its runs of n requests each share (when they do): 80 a request,
// in either form.
func SharedDrawBytes(n int) int64 { return int64(n) * (8 + 24 + 48) }

// keptArrival returns the arrival time of request i, when kept.
func (d *sharedDraws) keptArrival(i int64) (time.Duration, bool) {
	if i < int64(len(d.at)) {
		return d.at[i], true
	}
	return 0, false
}

// keepArrival keeps at as the arrival time of request i, the next one.
func (d *sharedDraws) keepArrival(i int64, at time.Duration) {
	if i == int64(len(d.at)) {
		d.at = append(d.at, at)
	}
}

// keptRequest gives r its class and token counts, when kept.
func (d *sharedDraws) keptRequest(r *request) bool {
	if r.id >= int64(len(d.req)) {
		return false
	}
	q := &d.req[r.id]
	r.class, r.in, r.out = q.class, q.in, q.out
	return true
}

// keepRequest keeps r's class and token counts, just drawn.
func (d *sharedDraws) keepRequest(r *request) {
	if r.id == int64(len(d.req)) {
		d.req = append(d.req, sharedRequest{class: r.class, in: r.in, out: r.out})
	}
}

// keptAttempt fills attempt k of r, a = &r.att[k], sent now to model m,
// from its kept draws, as draw would, and reports whether there were any.
// k < sharedAttempts.
func (e *engine) keptAttempt(r *request, a *attempt, m, k int) bool {
	if pl := e.shared.plain; pl != nil {
		// With unsigned bounds: no index to check.
		i := uint64(r.id)*sharedAttempts + uint64(k)
		if i >= uint64(len(pl)) {
			return false
		}
		s := &pl[i]
		if s.model != int32(m+1) {
			return false
		}
		// draw's plain path, its draws taken.
		*a = attempt{}
		a.model, a.prov, a.start, a.kind = int32(m), s.prov, e.now, outOK
		a.degU, a.workErr, a.workFirst = s.degU, -1, s.workFirst
		return true
	}
	att := e.shared.att
	i := uint64(r.id)
	if k != 0 || i >= uint64(len(att)) {
		return false
	}
	s := &att[i]
	if s.id != int32(r.id+1) || s.model != int32(m) {
		return false
	}
	*a = attempt{}
	a.model, a.prov, a.start, a.kind = int32(m), s.prov, e.now, s.kind
	a.degU, a.workErr, a.status, a.streamed = s.degU, s.workErr, s.status, s.streamed
	a.workFirst, a.workDecode = s.workFirst, s.workDecode
	return true
}

// keepAttempt keeps the draws of attempt k of r, just drawn for model m
// (k < sharedAttempts): in the full form, only the primary's.
func (e *engine) keepAttempt(r *request, m, k int) {
	a := &r.att[k]
	if pl := e.shared.plain; pl != nil {
		if i := uint64(r.id)*sharedAttempts + uint64(k); i < uint64(len(pl)) {
			pl[i] = plainAttempt{workFirst: a.workFirst, degU: a.degU, model: int32(m + 1), prov: a.prov}
		}
		return
	}
	if k != 0 || r.id >= int64(len(e.shared.att)) {
		return
	}
	e.shared.att[r.id] = sharedAttempt{
		workFirst: a.workFirst, workDecode: a.workDecode, workErr: a.workErr, degU: a.degU,
		id: int32(r.id + 1), model: int32(m), prov: a.prov, kind: a.kind, status: a.status, streamed: a.streamed,
	}
}

// drawRequestShared is drawRequest of a request from the open arrivals
// with e.shared: it takes the request's class and token counts when kept
// and keeps them when drawn.
func (e *engine) drawRequestShared(r *request) {
	if !e.shared.keptRequest(r) {
		e.drawRequest(r, -1)
		e.shared.keepRequest(r)
	}
}

// sharesDraws reports whether the draws of the first calls of round 0
// to model md may be shared: those of a model without stalls or client
// errors (drawn from streams of their own). Retried calls and later
// rounds draw from streams of their own too, and are never shared.
func sharesDraws(md *Model) bool {
	return md.Stalls.Rate <= 0 && md.Failures.ClientError.Rate <= 0
}
