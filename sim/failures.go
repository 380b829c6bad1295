package sim

import (
	"math"
	"time"

	"github.com/hedgesim/hedgesim/dist"
)

// Failures splits a model's failures by kind, each with its own
// probability and latency; a class's policy handles each kind with its own
// rule (see Policy). A client error is a property of the request (its
// prompt): a request falls in it with probability ClientError.Rate, by a
// draw of its own, and then every attempt of it to this model gets the 4xx.
// The other kinds are properties of the attempt and disjoint: with one
// uniform draw u per attempt, the model fails with Model.ErrorRate (the
// shorthand, a server error with Model.ErrorLatency), then ServerError,
// Timeout and RateLimited, in that order, over consecutive intervals of
// [0, 1); these rates sum to at most 1. Failures are not billed.
type Failures struct {
	// ServerError is a 5xx or overloaded answer (500, 502, 503, 529),
	// handled by Policy.OnError.
	ServerError Failure
	// ClientError is a 4xx other than 429 (400, 413, 422: a prompt the
	// model rejects); Rate is the share of requests it rejects. A copy to
	// the same model gets the same answer, so it is never worth one:
	// Policy.OnClientError, fatal by default.
	ClientError Failure
	// Timeout is an upstream timeout (504, 408, a gateway giving up),
	// handled by Policy.OnUpstreamTimeout.
	Timeout Failure
	// RateLimited is a 429 the model answers on its own (a quota not
	// modelled by a RateLimit), handled by Policy.OnRateLimited; its
	// RetryAfter is the hint it carries.
	RateLimited Failure
}

// Failure is one kind of failure of a model.
type Failure struct {
	// Rate is the probability in [0, 1] that an attempt fails this way.
	Rate float64
	// Latency is when the failure is reported, in seconds of service from
	// the start of the attempt's service; nil means when the call would
	// have completed.
	Latency dist.Continuous
	// RetryAfter is the Retry-After hint of a 429 (RateLimited only): under
	// a NonFatal rule the next copy is sent this long after it; ≥ 0.
	RetryAfter time.Duration
}

// failStatus tells the kinds of failure that share outError apart.
type failStatus uint8

const (
	statusServer        failStatus = iota // 5xx, overloaded, degraded periods
	statusClient                          // 4xx other than 429
	statusUpstreamTimer                   // an upstream timeout
	numStatus                             // how many kinds there are
)

// any reports whether any kind has a rate above 0.
func (f *Failures) any() bool {
	return f.ServerError.Rate > 0 || f.ClientError.Rate > 0 || f.Timeout.Rate > 0 || f.RateLimited.Rate > 0
}

// clientErrorStream is the stream of a request's client-error draw,
// shared by all its attempts.
const clientErrorStream = 0xfc

func (f *Failures) validate(errorRate float64) error {
	sum := errorRate
	for _, x := range []*Failure{&f.ServerError, &f.ClientError, &f.Timeout, &f.RateLimited} {
		if !(x.Rate >= 0 && x.Rate <= 1) {
			return invalid("failure rate %v: must be in [0, 1]", x.Rate)
		}
		if x.RetryAfter < 0 {
			return invalid("retry-after %v: must be ≥ 0", x.RetryAfter)
		}
		if x.Latency != nil {
			if lo, _ := x.Latency.Support(); !(lo >= 0) {
				return invalid("failure latency can take the value %v s: must stay ≥ 0", lo)
			}
		}
		if x != &f.ClientError {
			sum += x.Rate
		}
	}
	if sum > 1+1e-9 || math.IsNaN(sum) {
		return invalid("failure rates per attempt sum to %v (error rate included, client errors apart): at most 1", sum)
	}
	return nil
}

// drawFailure sets attempt a, drawn with uniform u ≥ ErrorRate and its
// request's client-error uniform u4xx, to the kind of failure they fall
// in, if any; latency draws come from src.
func (a *attempt) drawFailure(md *Model, u, u4xx float64, src *splitMix) {
	f := &md.Failures
	cum := md.ErrorRate
	for _, k := range []struct {
		x      *Failure
		kind   outcome
		status failStatus
	}{
		{&f.ClientError, outError, statusClient},
		{&f.ServerError, outError, statusServer},
		{&f.Timeout, outError, statusUpstreamTimer},
		{&f.RateLimited, outRateLimited, statusServer},
	} {
		hit := false
		if k.status == statusClient {
			hit = u4xx < k.x.Rate
		} else {
			cum += k.x.Rate
			hit = u < cum
		}
		if hit {
			a.kind, a.status = k.kind, k.status
			if k.x.Latency != nil {
				a.workErr = seconds(k.x.Latency.Rand(src))
			}
			return
		}
	}
}

// failed reports whether an attempt's drawn outcome is a failure (an
// error or a 429 from the model itself).
func (o outcome) failed() bool { return o == outError || o == outRateLimited }

// statusRule returns the rule of p for an error of the given status.
func (p *Policy) statusRule(s failStatus) ErrorRule {
	switch s {
	case statusClient:
		return p.OnClientError
	case statusUpstreamTimer:
		return p.OnUpstreamTimeout
	}
	return p.OnError
}
