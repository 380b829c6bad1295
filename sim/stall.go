package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/hedgesim/hedgesim/dist"
)

// Stalls makes some of a streamed model's attempts pause once: with
// probability Rate an attempt's stream stops for a Duration drawn per
// attempt, then resumes where it stopped (a hung stream is a very long stall)
// — a connection held silent before its first byte, or a sequence a serving
// engine preempts mid-answer (vLLM preempts running sequences when KV-cache
// blocks run out and resumes them later). A stall is wall time, not work: a
// provider's slowdown does not stretch it. Stalls apply to attempts that
// stream an answer (valid or invalid), not to failures, and only to models in
// TTFT form.
//
// Where the pause falls is At: before the first token (the time to first
// token grows by the stall; a per-attempt timeout under the first_token
// winner is the TTFT timeout that catches it), or in the middle of the
// stream. A stream is its first-token event at the TTFT, then its n
// output tokens, the k-th at TTFT + k ÷ decode speed (the first-token
// event is the start of streaming and carries none of the n billed
// tokens). A mid-stream stall pauses it before output token j+1, that is
// after j of the n tokens, for j uniform in {0, …, n−1}: j = 0 pauses it
// between the first-token event and the first billed token, and every
// stall delays the end of the answer, so an answer of one token can
// stall too. The time to first token is unchanged. A request with no
// output tokens has no gap to stall in.
type Stalls struct {
	// Rate is the probability in [0, 1] that an attempt stalls.
	Rate float64
	// Duration is the length of a stall in seconds (support ≥ 0); needed
	// when Rate > 0.
	Duration dist.Continuous
	// At says where in the stream the stall falls.
	At StallPoint
}

// StallPoint says where a stall falls in a stream.
type StallPoint uint8

const (
	// MidStream: after a uniformly drawn output token (the default).
	MidStream StallPoint = iota
	// BeforeFirstToken: at the start of service, before the first token.
	BeforeFirstToken
)

// String returns the scenario-file name of the point.
func (s StallPoint) String() string {
	if s == BeforeFirstToken {
		return "first_token"
	}
	return "mid_stream"
}

// StreamCuts are a client's stall detectors for streamed answers, as
// streaming clients implement them (an idle/read timeout between chunks,
// such as httpx's read timeout or an SSE client's inactivity timeout, and a
// minimum-throughput check). Both act after the first token, whatever the
// winner rule; the time to the first token is bounded by
// Policy.AttemptTimeout under the FirstToken winner. Zero values are off.
//
// A cut attempt leaves the system at the cut — the client closes the
// stream — and is billed for its input and the output tokens streamed
// until then (whatever the cancellation billing; cancel latency and a
// provider that ignores cancels do not delay it). It counts as stalled;
// the request handles it by OnStall: under FirstValid and FirstResponse a
// NonFatal rule sends the next copy at once. Under FirstToken the request
// was decided at the winner's first token: a winner later cut ends the
// request as a stalled request (an error, a miss: its answer is
// truncated), as an answer later found invalid counts as an invalid
// request.
type StreamCuts struct {
	// InterTokenTimeout, when > 0, cuts a stream at the moment a gap
	// between two tokens after the first exceeds it: a mid-stream stall
	// longer than it is cut at (its last token + InterTokenTimeout); a
	// stream whose tokens come more than it apart on average (decode
	// speed below 1/InterTokenTimeout tokens/s) is cut that long after
	// its first token.
	InterTokenTimeout time.Duration
	// MinTokensPerSecond, when > 0, is a decode-speed floor in tokens/s,
	// checked once, SpeedWindow after the first token: a stream still
	// running then that has streamed fewer than MinTokensPerSecond ×
	// SpeedWindow tokens since its first token (counted continuously,
	// stalls included) is cut then.
	MinTokensPerSecond float64
	// SpeedWindow is the measurement window of the speed floor; > 0 when
	// MinTokensPerSecond is set.
	SpeedWindow time.Duration
	// OnStall is the rule for a cut attempt.
	OnStall ErrorRule
}

// on reports whether any cut is configured.
func (c *StreamCuts) on() bool { return c.InterTokenTimeout > 0 || c.MinTokensPerSecond > 0 }

func (c *StreamCuts) validate() error {
	switch {
	case c.InterTokenTimeout < 0:
		return fmt.Errorf("inter-token timeout %v: must be ≥ 0 (0 = none)", c.InterTokenTimeout)
	case !(c.MinTokensPerSecond >= 0) || math.IsInf(c.MinTokensPerSecond, 0):
		return fmt.Errorf("minimum tokens per second %v: must be finite and ≥ 0 (0 = none)", c.MinTokensPerSecond)
	case c.MinTokensPerSecond > 0 && c.SpeedWindow <= 0:
		return fmt.Errorf("minimum tokens per second %v needs a speed window > 0", c.MinTokensPerSecond)
	case c.SpeedWindow < 0:
		return fmt.Errorf("speed window %v: must be ≥ 0", c.SpeedWindow)
	}
	return nil
}

func (s *Stalls) validate(streamed bool) error {
	switch {
	case !(s.Rate >= 0 && s.Rate <= 1):
		return invalid("stall rate %v: must be in [0, 1]", s.Rate)
	case s.Rate > 0 && s.Duration == nil:
		return invalid("stall rate %v needs a stall duration", s.Rate)
	case s.Rate > 0 && !streamed:
		return invalid("stalls need the streamed form (TTFT and TokensPerSecond)")
	case s.At > BeforeFirstToken:
		return invalid("stall point %d: unknown", s.At)
	}
	if s.Duration != nil {
		if lo, _ := s.Duration.Support(); !(lo >= 0) {
			return invalid("stall duration can take the value %v s: must stay ≥ 0", lo)
		}
	}
	return nil
}

// stallStream is the first of the streams of attempts' stall draws:
// attempt k draws from stallStream + k, apart from its other draws, so
// that models without stalls draw exactly what they drew before.
const stallStream = 0xe0

// drawStall draws whether attempt k of r to model md, on its try key t
// (a retried call draws afresh, as its other draws do), stalls, and
// returns the stall's length (0 when it does not) and the share of the
// output tokens streamed before it (−1: before the first token).
func (e *engine) drawStall(r *request, md *Model, m, k int, t uint16) (length time.Duration, frac float64) {
	src := e.rng.atTry(r.id, stallStream+uint8(k), t)
	if !(src.float64() < md.Stalls.Rate) {
		return 0, 0
	}
	uPos := src.float64()
	length = seconds(e.models[m].stall.rand(src))
	if md.Stalls.At == BeforeFirstToken {
		return length, -1
	}
	if r.out < 1 {
		return 0, 0 // no gap between tokens to stall in
	}
	return length, math.Floor(uPos*r.out) / r.out
}

// shapeStream sets the times of attempt a, a streamed answer whose
// work has just started at t0 (its service start, a.svc, unless a cold
// start delays it) with first and end set as if it ran without a pause: it places a drawn stall (a.stallAt holds its work
// offset, −1 before the first token, and a.stallEnd its length until
// now), then applies the policy's stream cuts c — a cut attempt becomes
// outStalled, ending at the cut. out is the request's output tokens.
func shapeStream(a *attempt, stages []stage, t0 time.Duration, c *StreamCuts, out float64) {
	off, length := a.stallAt, a.stallEnd
	a.stallAt, a.stallEnd = a.first, a.first // no pause
	if length > 0 {
		before := off < 0
		off = max(off, 0)
		at := finishAll(stages, t0, off)
		resume := at + length
		a.end = finishAll(stages, resume, a.workFirst+a.workDecode-off)
		if before {
			// The pause delays the whole stream; between its tokens there is none.
			a.first = finishAll(stages, resume, a.workFirst)
			a.stallAt, a.stallEnd = a.first, a.first
		} else {
			a.stallAt, a.stallEnd = at, resume
		}
	}
	a.genFrom, a.genTo = a.first, a.end
	cut := never
	if g := c.InterTokenTimeout; g > 0 && a.end > a.first {
		if a.stallEnd-a.stallAt > g {
			cut = a.stallAt + g
		}
		if out >= 1 && float64(a.end-a.first-(a.stallEnd-a.stallAt))/out > float64(g) {
			cut = min(cut, a.first+g)
		}
	}
	if f := c.MinTokensPerSecond; f > 0 {
		if t := a.first + c.SpeedWindow; a.end > t && a.streamedBy(out, t) < f*c.SpeedWindow.Seconds() {
			cut = min(cut, t)
		}
	}
	if cut < a.end {
		a.kind, a.end = outStalled, cut
	}
}

// streamedBy returns how many output tokens of out a shaped attempt has
// streamed by time t, counted continuously: they flow evenly from genFrom
// to genTo, except during the stall [stallAt, stallEnd).
func (a *attempt) streamedBy(out float64, t time.Duration) float64 {
	pause := a.stallEnd - a.stallAt
	total := a.genTo - a.genFrom - pause
	if total <= 0 || t <= a.genFrom {
		return 0
	}
	t = min(t, a.genTo)
	active := t - a.genFrom
	if t > a.stallAt {
		active -= min(t, a.stallEnd) - a.stallAt
	}
	return out * float64(active) / float64(total)
}

// generated returns the whole output tokens attempt a has generated by
// time at (≥ its service start): linearly from genFrom to end, or, for a
// shaped stream (genTo set), as streamed says.
func (a *attempt) generated(out float64, at time.Duration) float64 {
	if a.genTo != 0 {
		return math.Floor(a.streamedBy(out, at))
	}
	if at > a.genFrom && a.end > a.genFrom {
		return math.Floor(out * float64(min(at, a.end)-a.genFrom) / float64(a.end-a.genFrom))
	}
	return 0
}

// shapes reports whether class policy p or model m needs shapeStream.
func shapes(m *Model, p *Policy) bool { return m.Stalls.Rate > 0 || p.StreamCuts.on() }
