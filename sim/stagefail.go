package sim

import "time"

// A stage failure is an attempt failed by its provider's or its replica's
// state rather than by its model: it starts service in a degraded period
// with an error rate (Degraded.ErrorRate, drawn against the attempt's
// degU) or at a replica that is down (Down). It is a server error (5xx,
// statusServer) and comes back after its model's server-error latency —
// Model.ErrorLatency, or Failures.ServerError.Latency when the model sets
// that instead — as a server error of the model's own does; with neither
// set, it comes back when the call would have completed.
//
// The latency is drawn by draw from the attempt's own stream, in the place
// the model's own server error draws it: right after the attempt's
// latency (or, with a copula, its normal score). Which attempts a stage
// fails is known only when their service starts, so draw gives every
// attempt its model does not fail itself (an answer, valid or not) that
// latency in workErr, whether or not a stage will fail it — only for the
// models whose provider has a stage that may fail an attempt
// (stageFailable); the attempts of every other model draw what they drew
// before, and take draw's plain branches.

// stageErrs returns, per model of cfg, whether draw gives its attempts a
// stage failure's latency: the model has a server-error latency and its
// provider (e.provs, with their pools) a stage that may fail an attempt.
func (e *engine) stageErrs(cfg *Config) []bool {
	var out []bool
	for m := range cfg.Models {
		if serverErrorLatencySet(&cfg.Models[m]) && e.provs[e.modelProv[m]].stageFailable() {
			if out == nil {
				out = make([]bool, len(cfg.Models))
			}
			out[m] = true
		}
	}
	return out
}

// serverErrorLatencySet reports whether md says when its server errors
// come back: an ErrorLatency, or a Failures.ServerError latency.
func serverErrorLatencySet(md *Model) bool {
	return md.ErrorLatency != nil || md.Failures.ServerError.Latency != nil
}

// stageFailable reports whether a stage may fail an attempt at pv: one of
// its own (degraded periods with an error rate), or one of a replica of
// its pool (its own or the pool's degraded periods, its outages).
func (pv *provider) stageFailable() bool {
	if pv.failing {
		return true
	}
	if pv.pool != nil {
		for i := range pv.pool.reps {
			if pv.pool.reps[i].failing {
				return true
			}
		}
	}
	return false
}

// drawStageErr draws from src the latency of a stage failure of an
// attempt to model m (md), as the model's own server error draws it:
// from ErrorLatency's sampler, else from Failures.ServerError.Latency.
func (e *engine) drawStageErr(md *Model, m int, src *splitMix) time.Duration {
	if md.ErrorLatency != nil {
		return seconds(e.models[m].errLatency.rand(src))
	}
	return seconds(md.Failures.ServerError.Latency.Rand(src))
}
