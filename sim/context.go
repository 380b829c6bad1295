package sim

import "context"

// checkEvery is how many arrivals pass between two looks at the context:
// a look costs about 10 ns, 4096 requests about a millisecond.
const checkEvery = 4096

// stopper watches a context for an engine.
type stopper struct {
	ctx context.Context
	err error
}

// more reports whether request e.next is to arrive: there is one left and
// the run has not been cancelled. It looks at the context every
// checkEvery requests; once cancelled, no request arrives, the ones in
// flight run to their end, and e.stop.err is set.
func (e *engine) more() bool {
	if e.next >= e.end {
		return false
	}
	if s := e.stop; s != nil && e.next%checkEvery == 0 {
		if s.err == nil {
			s.err = s.ctx.Err()
		}
		return s.err == nil
	}
	return e.stop == nil || e.stop.err == nil
}

// RunContext is Run that stops when ctx is done: it then returns ctx's
// error (context.Canceled or context.DeadlineExceeded) and no result,
// within about checkEvery requests of the cancellation.
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
