package sim

import "time"

// AttemptRecord is one attempt as it ended, for checking a policy by eye.
type AttemptRecord struct {
	Request int64  // request index, from 0 in arrival order
	Class   string // class name
	Attempt int    // 0 = primary, k = copy k
	Model   string // model the attempt was sent to
	// Start is when the attempt was sent and End when it ended (its response,
	// or when its cancel landed), both from the start of the run.
	Start, End time.Duration
	// Outcome is "completed", "failed", "invalid" or "cancelled".
	Outcome string
	// Won reports whether this attempt's response ended the request.
	Won bool
	// BilledInput and BilledOutput are the tokens the attempt was billed for.
	BilledInput, BilledOutput float64
	// CostUSD is what the attempt cost.
	CostUSD float64
}

// RunTrace is Run that also calls fn once for every attempt, in the order
// attempts end. fn must not retain the record's address.
func RunTrace(cfg *Config, fn func(*AttemptRecord)) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	e := newEngine(cfg)
	e.trace = fn
	e.run()
	return e.result(), nil
}

// emit reports attempt k of r to the trace function, if any.
func (e *engine) emit(r *request, k int, end time.Duration, outcome string, won bool, in, out, cost float64) {
	if e.trace == nil {
		return
	}
	a := &r.att[k]
	md := &e.cfg.Models[a.model]
	e.rec = AttemptRecord{
		Request: r.id, Class: e.cfg.Classes[r.class].Name, Attempt: k, Model: md.Name,
		Start: a.start, End: end, Outcome: outcome, Won: won,
		BilledInput: in, BilledOutput: out, CostUSD: cost,
	}
	e.trace(&e.rec)
}
