package sim

import "context"

// checkWork is how many units of work pass between two looks at the
// context: arrivals, calls of a pipeline on the lane and requests of the
// other engines sharing the lane (spent), or, in the event loop, events
// scheduled (lookAtEvents) and the per-replica work of replica pools
// (chargeWork). 2¹² units take from about half a millisecond
// (events) to tens of milliseconds (pipeline calls of thousands of
// tokens), a look about 10 ns.
const checkWork = 1 << 12

// stopper watches a context for an engine.
type stopper struct {
	ctx context.Context
	err error
}

// spent counts n units of work done and reports whether the run is to
// stop: every checkWork units it looks at the context, and once that is
// done it reports true at every call (e.stop.err is then set). The loops
// that call it leave at once, so a cancelled run stops within about
// checkWork units of work however few requests it has or however many
// calls each makes. Without a stopper it never reports true.
func (e *engine) spent(n int) bool {
	e.left -= n
	return e.left <= 0 && e.look()
}

// look is spent's look at the context, out of line.
//
//go:noinline
func (e *engine) look() bool {
	s := e.stop
	if s == nil {
		e.left = checkWork
		return false
	}
	if s.err == nil {
		s.err = s.ctx.Err()
	}
	if s.err != nil {
		return true // left stays ≤ 0: every later call looks, and stops
	}
	e.left = checkWork
	return false
}

// lookAtEvents is spent for the event loop, which counts its work by the
// events it schedules (e.seq), checkWork between two looks: the loop
// compares e.seq with e.lookAt after each event and calls lookAtEvents
// when it is reached, which costs it no store per event.
func (e *engine) lookAtEvents() bool {
	if e.holding {
		return true // a growing run holds (fork.go)
	}
	e.lookAt = e.seq + checkWork
	e.left = 0
	return e.look()
}

// chargeWork counts n units of work the event loop does beside its events —
// a replica looked at by a pick or a view, a restart boundary applied, a
// scale start looked up — so that the loop's next look at stop comes
// sooner: a pick of a pool of 65 535 replicas counts as 65 535 units, not
// as the one event that made it. It moves e.lookAt back, never below 0;
// the loop looks once e.seq reaches it (lookAtEvents). It changes no
// draw and no result, only when the loop looks.
func (e *engine) chargeWork(n int) {
	if u := uint64(n); u < e.lookAt {
		e.lookAt -= u
	} else {
		e.lookAt = 0
	}
}

// more reports whether request e.next is to arrive: there is one left and
// the run has not been stopped (spent, an arrival counting one unit).
func (e *engine) more() bool {
	return e.next < e.end && !e.spent(1)
}

// RunContext is Run that stops when ctx is done: it then returns ctx's
// error (context.Canceled or context.DeadlineExceeded) and no result,
// within about 4 096 arrivals, events or pipeline calls of the
// cancellation — milliseconds — however few requests the run has or
// however many calls each makes.
func RunContext(ctx context.Context, cfg *Config) (*Result, error) {
	return RunTraceContext(ctx, cfg, nil)
}

// RunTraceContext is RunTrace that stops when ctx is done, as RunContext.
// fn may see the attempts of requests that started before the
// cancellation.
func RunTraceContext(ctx context.Context, cfg *Config, fn func(*AttemptRecord)) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return runValid(ctx, cfg, fn)
}

// runValid is RunTraceContext of a configuration that passed Validate.
func runValid(ctx context.Context, cfg *Config, fn func(*AttemptRecord)) (*Result, error) {
	e := newEngine(cfg)
	e.trace = fn
	e.stop = &stopper{ctx: ctx}
	e.run()
	if e.stop.err != nil {
		return nil, e.stop.err
	}
	return e.result(), nil
}
