package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// DocumentFormat and DocumentVersion identify a neutral policy document
// (Document.Format, Document.Version).
const (
	DocumentFormat  = "hedgesim-policy"
	DocumentVersion = 1
)

// Sources of a Document.
const (
	// FromScenario: each class's policy as its scenario configures it.
	FromScenario = "scenario"
	// FromReport: each class's pick of an optimize report.
	FromReport = "optimize-report"
)

// Document is the neutral policy document of the json format: every
// class's hedge policy in hedgesim's own terms, for custom gateways and
// for tools. It is also the input of every other format. Durations are in
// seconds (fields ending in _s). Decode reads one strictly.
type Document struct {
	// Format is always DocumentFormat and Version DocumentVersion.
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Scenario names the scenario the policies come from.
	Scenario string `json:"scenario"`
	// Source is FromScenario or FromReport.
	Source string `json:"source"`
	// Classes holds one policy per traffic class, in scenario order.
	Classes []Class `json:"classes"`
}

// Class is the hedge policy of one traffic class. Copies are counted
// beyond the primary, as in scenario files (gRPC's maxAttempts is
// len(Copies) + 1).
type Class struct {
	Class string `json:"class"`
	// Hedge is false when the class sends the primary only (hedging off);
	// Copies is then empty.
	Hedge bool `json:"hedge"`
	// Reason says why, for a policy from an optimize report: the verdict's
	// reason, or for a pipeline step the pick leaves unhedged while it
	// hedges others, the step's own (the report's advice on that step).
	// Empty for a scenario's policy.
	Reason string `json:"reason,omitempty"`
	// Primary is the model the first attempt goes to.
	Primary string `json:"primary"`
	// Copies are the copies beyond the primary, in the order they are
	// sent; at most sim.MaxCopies.
	Copies []Copy `json:"copies"`
	// NewProvider sends each copy to the first model of the copies'
	// targets whose provider the request has not tried yet (if any).
	NewProvider bool `json:"new_provider"`
	// Adaptive, when set, replaces every timed delay by a percentile of
	// recent latencies.
	Adaptive *Adaptive `json:"adaptive"`
	// Winner is what ends the request: "first_valid", "first_token" or
	// "first_response".
	Winner string `json:"winner"`
	// OnError, OnRateLimited (429), OnInvalid and OnAttemptTimeout are
	// what such an attempt does: "fatal" (ends the request), "nonfatal"
	// (sends the next copy now) or "ignore" (waits for the others).
	OnError       string `json:"on_error"`
	OnRateLimited string `json:"on_rate_limited"`
	OnInvalid     string `json:"on_invalid"`
	// OnClientError (a 4xx other than 429) and OnUpstreamTimeout (504,
	// 408) are present only when they differ from their defaults,
	// "fatal" and OnError.
	OnClientError     string `json:"on_client_error,omitempty"`
	OnUpstreamTimeout string `json:"on_upstream_timeout,omitempty"`
	// AttemptTimeout, when > 0, abandons an attempt that has not
	// responded this long after it was sent.
	AttemptTimeout   Seconds `json:"attempt_timeout_s"`
	OnAttemptTimeout string  `json:"on_attempt_timeout"`
	// StreamCuts, when set, cut streams that stall or crawl after their
	// first token (sim.StreamCuts); absent when the class has none.
	StreamCuts *StreamCuts `json:"stream_cuts,omitempty"`
	// CancelLatency is how long a cancel takes to land on a loser, and
	// CancelBilling what a cancelled loser costs: "none", "input",
	// "generated" or "full".
	CancelLatency Seconds `json:"cancel_latency_s"`
	CancelBilling string  `json:"cancel_billing"`
	// Budget limits the copies sent; zero fields are off.
	Budget Budget `json:"budget"`
	// Deadline is the time budget of a request (0 = none) and OnTimeout
	// "fail_open" or "fail_closed".
	Deadline  Seconds `json:"deadline_s"`
	OnTimeout string  `json:"on_timeout"`
	// Retry re-runs a failed request, hedging and all, and AttemptRetry
	// retries inside each attempt; see Retry. Each is omitted from the
	// document when the class has none. Every other key of the document
	// is always present but Reason, OnClientError, OnUpstreamTimeout,
	// StreamCuts, Breakers and Pools.
	Retry        *Retry `json:"retry,omitempty"`
	AttemptRetry *Retry `json:"attempt_retry,omitempty"`
	// Breakers are the circuit breakers on the class's targets (the
	// models' own and their providers'); omitted when there are none.
	Breakers []Breaker `json:"breakers,omitempty"`
	// Pools are the replica pools the providers of the class's targets
	// run on (pool.go): their replicas, balancer and copies_to; omitted
	// when there are none.
	Pools []ReplicaPool `json:"replica_pools,omitempty"`
	// Pipeline and Step, for a step of a pipeline class, name the class and
	// the step (Class is then "PIPELINE/STEP"): each step is exported as a
	// policy of its own. EndToEndDeadline is the pipeline's end-to-end
	// deadline (0 = none), which no per-call policy carries: the caller
	// must enforce it. All three are omitted for a one-call class.
	Pipeline         string  `json:"pipeline,omitempty"`
	Step             string  `json:"step,omitempty"`
	EndToEndDeadline Seconds `json:"end_to_end_deadline_s,omitempty"`
}

// undecided reports whether c is from an optimize report whose verdict is
// undecided: its configured policy, Reason beginning with UndecidedReason
// (so that a decoded document says so too); every format notes it.
func (c *Class) undecided() bool { return strings.HasPrefix(c.Reason, UndecidedReason) }

// StreamCuts are a class's stall detectors for streamed answers
// (sim.StreamCuts): an inter-token timeout and a decode-speed floor
// checked once, a window after the first token; zero values are off.
type StreamCuts struct {
	InterTokenTimeout  Seconds `json:"inter_token_timeout_s"`
	MinTokensPerSecond float64 `json:"min_tokens_per_s"`
	SpeedWindow        Seconds `json:"speed_window_s"`
	// OnStall is what a cut attempt does: "fatal", "nonfatal" or "ignore".
	OnStall string `json:"on_stall"`
}

// Copy is one copy beyond the primary.
type Copy struct {
	// Target is the model the copy goes to.
	Target string `json:"target"`
	// Delay is the gap after the previous send (the primary for the
	// first copy); 0 sends it at the same instant.
	Delay Seconds `json:"delay_s"`
	// Fallback: the copy is sent only after a failure under a nonfatal
	// rule, never on a timer (Delay is then 0).
	Fallback bool `json:"fallback"`
}

// Adaptive is a delay set to a percentile of recent latencies (see
// sim.Adaptive).
type Adaptive struct {
	Percentile float64 `json:"percentile"`
	// Window is the number of recent samples, or WindowTime (> 0) the
	// span of recent simulated time they come from.
	Window     int     `json:"window"`
	WindowTime Seconds `json:"window_time_s"`
	// WarmUp is the number of samples before any hedging.
	WarmUp int `json:"warm_up"`
	// Min and Max clamp the delay (Max 0 = none).
	Min Seconds `json:"min_s"`
	Max Seconds `json:"max_s"`
	// Source is "primaries", "attempts" or "requests".
	Source string `json:"source"`
}

// Budget limits hedging; zero fields are off (see sim.Budget).
type Budget struct {
	MaxHedgeShare    float64   `json:"max_hedge_share"`
	RetryThrottling  *Throttle `json:"retry_throttling"`
	MaxInFlightRatio float64   `json:"max_in_flight_ratio"`
	MinInFlight      int       `json:"min_in_flight"`
	HedgesPerSecond  float64   `json:"hedges_per_second"`
	Burst            float64   `json:"burst"`
	MaxParallel      int       `json:"max_parallel"`
}

// Throttle is gRPC retry throttling: tokens start at MaxTokens, −1 per
// failed attempt, +TokenRatio per success; copies only while tokens >
// MaxTokens/2.
type Throttle struct {
	MaxTokens  float64 `json:"max_tokens"`
	TokenRatio float64 `json:"token_ratio"`
}

// Seconds is a duration written in JSON as a number of seconds.
type Seconds time.Duration

// D returns s as a time.Duration.
func (s Seconds) D() time.Duration { return time.Duration(s) }

// MarshalJSON writes s in seconds, in the shortest form that reads back
// to the same float: 1.86, not 1.8599999999999999. The float is the
// nanoseconds over 1e9, correctly rounded (time.Duration.Seconds adds the
// whole and fractional seconds, which can be off by a unit in the last
// place).
func (s Seconds) MarshalJSON() ([]byte, error) {
	return []byte(strconv.FormatFloat(float64(s)/1e9, 'g', -1, 64)), nil
}

// UnmarshalJSON reads a number of seconds ≥ 0, rounded to the nanosecond.
func (s *Seconds) UnmarshalJSON(b []byte) error {
	var x float64
	if err := json.Unmarshal(b, &x); err != nil {
		return fmt.Errorf("got %s; want a number of seconds", b)
	}
	if x < 0 || x > sim.MaxSpan.Seconds() {
		return fmt.Errorf("got %s; want seconds in [0, %g]", b, sim.MaxSpan.Seconds())
	}
	*s = Seconds(math.Round(x * 1e9))
	return nil
}

var (
	winners   = []string{"first_valid", "first_token", "first_response"}
	rules     = []string{"fatal", "nonfatal", "ignore"}
	billings  = []string{"none", "input", "generated", "full"}
	timeouts  = []string{"fail_open", "fail_closed"}
	sources   = []string{"primaries", "attempts", "requests"}
	docSource = []string{FromScenario, FromReport}
)

// Decode reads a Document from r strictly: an unknown field, a value of
// the wrong type, a second JSON value after the first, or a value out of
// range is an error naming the field.
func Decode(r io.Reader) (*Document, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var d Document
	if err := dec.Decode(&d); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("%s: got a JSON %s; want %s", te.Field, te.Value, te.Type)
		}
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value")
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return &d, nil
}

// Validate checks that d is a complete, consistent policy document.
func (d *Document) Validate() error {
	if d.Format != DocumentFormat {
		return fmt.Errorf("format: got %q; want %q", d.Format, DocumentFormat)
	}
	if d.Version != DocumentVersion {
		return fmt.Errorf("version: got %d; want %d", d.Version, DocumentVersion)
	}
	if err := oneOf("source", d.Source, docSource); err != nil {
		return err
	}
	if len(d.Classes) == 0 {
		return errors.New("classes: empty; want at least one class")
	}
	seen := map[string]bool{}
	for i := range d.Classes {
		c := &d.Classes[i]
		if c.Class == "" {
			return fmt.Errorf("classes[%d].class: empty", i)
		}
		if seen[c.Class] {
			return fmt.Errorf("classes[%d].class: %q appears twice", i, c.Class)
		}
		seen[c.Class] = true
		if err := c.validate(); err != nil {
			return fmt.Errorf("classes[%d] (%s).%w", i, c.Class, err)
		}
	}
	return nil
}

func (c *Class) validate() error {
	if c.Primary == "" {
		return errors.New("primary: empty; want a model name")
	}
	if !c.Hedge && len(c.Copies) > 0 {
		return fmt.Errorf("copies: %d copies with hedge false; want none", len(c.Copies))
	}
	if c.Hedge && (len(c.Copies) < 1 || len(c.Copies) > sim.MaxCopies) {
		return fmt.Errorf("copies: %d copies with hedge true; want 1 to %d", len(c.Copies), sim.MaxCopies)
	}
	for j, cp := range c.Copies {
		if cp.Target == "" {
			return fmt.Errorf("copies[%d].target: empty; want a model name", j)
		}
		if cp.Fallback && cp.Delay != 0 {
			return fmt.Errorf("copies[%d].delay_s: %g with fallback true; want 0", j, cp.Delay.D().Seconds())
		}
	}
	checks := []struct {
		key, v  string
		allowed []string
	}{
		{"winner", c.Winner, winners},
		{"on_error", c.OnError, rules},
		{"on_rate_limited", c.OnRateLimited, rules},
		{"on_invalid", c.OnInvalid, rules},
		{"on_attempt_timeout", c.OnAttemptTimeout, rules},
		{"cancel_billing", c.CancelBilling, billings},
		{"on_timeout", c.OnTimeout, timeouts},
	}
	for _, k := range []struct{ key, v string }{{"on_client_error", c.OnClientError}, {"on_upstream_timeout", c.OnUpstreamTimeout}} {
		if k.v != "" {
			checks = append(checks, struct {
				key, v  string
				allowed []string
			}{k.key, k.v, rules})
		}
	}
	for _, k := range checks {
		if err := oneOf(k.key, k.v, k.allowed); err != nil {
			return err
		}
	}
	if s := c.StreamCuts; s != nil {
		if s.InterTokenTimeout < 0 || !(s.MinTokensPerSecond >= 0) || s.SpeedWindow < 0 || (s.MinTokensPerSecond > 0 && s.SpeedWindow <= 0) {
			return errors.New("stream_cuts: want inter_token_timeout_s, min_tokens_per_s and speed_window_s ≥ 0, and speed_window_s > 0 with min_tokens_per_s")
		}
		if err := oneOf("stream_cuts.on_stall", s.OnStall, rules); err != nil {
			return err
		}
	}
	if a := c.Adaptive; a != nil {
		if !(a.Percentile > 0 && a.Percentile < 1) {
			return fmt.Errorf("adaptive.percentile: got %g; want a number in (0, 1)", a.Percentile)
		}
		if a.Window < 0 || a.WarmUp < 0 {
			return errors.New("adaptive.window, adaptive.warm_up: want integers ≥ 0")
		}
		if a.Max != 0 && a.Max < a.Min {
			return fmt.Errorf("adaptive.max_s: %g is below min_s %g", a.Max.D().Seconds(), a.Min.D().Seconds())
		}
		if err := oneOf("adaptive.source", a.Source, sources); err != nil {
			return err
		}
	}
	if r := c.Retry; r != nil {
		if err := r.validate(false); err != nil {
			return fmt.Errorf("retry.%w", err)
		}
	}
	if r := c.AttemptRetry; r != nil {
		if err := r.validate(true); err != nil {
			return fmt.Errorf("attempt_retry.%w", err)
		}
	}
	for j := range c.Breakers {
		if err := c.Breakers[j].validate(); err != nil {
			return fmt.Errorf("breakers[%d].%w", j, err)
		}
	}
	for j := range c.Pools {
		if err := c.Pools[j].validate(); err != nil {
			return fmt.Errorf("replica_pools[%d].%w", j, err)
		}
	}
	b := &c.Budget
	if !(b.MaxHedgeShare >= 0 && b.MaxHedgeShare <= 1) {
		return fmt.Errorf("budget.max_hedge_share: got %g; want a number in [0, 1]", b.MaxHedgeShare)
	}
	if t := b.RetryThrottling; t != nil && !(t.MaxTokens > 0 && t.TokenRatio > 0) {
		return fmt.Errorf("budget.retry_throttling: got max_tokens %g, token_ratio %g; want both > 0", t.MaxTokens, t.TokenRatio)
	}
	if !(b.MaxInFlightRatio >= 0 && b.HedgesPerSecond >= 0 && b.Burst >= 0) || b.MinInFlight < 0 || b.MaxParallel < 0 {
		return errors.New("budget: want every limit ≥ 0")
	}
	return nil
}

func oneOf(key, v string, allowed []string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("%s: got %q; want one of %q", key, v, allowed)
}

// Encode writes d as indented JSON followed by a newline; a character of a
// name that is not printable is written as a \u escape (see jsonEscape).
func (d *Document) Encode(w io.Writer) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return err
	}
	_, err := w.Write(jsonEscape(b.Bytes()))
	return err
}

// Delays returns the gaps of c's timed copies, in order (fallback copies
// left out).
func (c *Class) delays() []time.Duration {
	var ds []time.Duration
	for _, cp := range c.Copies {
		if !cp.Fallback {
			ds = append(ds, cp.Delay.D())
		}
	}
	return ds
}

// fallbacks counts c's fallback copies.
func (c *Class) fallbacks() int {
	n := 0
	for _, cp := range c.Copies {
		if cp.Fallback {
			n++
		}
	}
	return n
}

// otherTargets returns the copies' targets that are not the primary, each
// once, in order.
func (c *Class) otherTargets() []string {
	var ts []string
	seen := map[string]bool{c.Primary: true}
	for _, cp := range c.Copies {
		if !seen[cp.Target] {
			seen[cp.Target] = true
			ts = append(ts, cp.Target)
		}
	}
	return ts
}
