package sim

// RunAllQueued is RunGlobal with every hedge timer and every request's
// and pipeline call's deadline queued, even those that could never fire
// (endsBy, callEndsBefore): the reference their skipping is checked
// against.
func RunAllQueued(cfg *Config, fn func(*AttemptRecord)) *Result {
	e := newEngine(cfg)
	e.isolated = false
	e.queueAllTimers = true
	e.trace = fn
	e.run()
	return e.result()
}
