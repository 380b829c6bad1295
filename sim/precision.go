package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// Precision is how a run to a precision (hedgesim run --precision) ended:
// the run's requests were doubled, on the same draws, until the overall
// p95's interval was within the asked relative half-width or the requests
// reached their maximum. A run whose requests are independent is extended
// by the requests added (Growth); one whose requests interact is simulated
// again from the start at each doubling.
type Precision struct {
	// Asked is the relative half-width asked (0.02: ± 2 % of the p95),
	// Reached the one of the last run (+Inf without an interval, JSON
	// null).
	Asked   float64 `json:"asked"`
	Reached float64 `json:"reached"`
	// Requests is the last run's requests, MaxRequests the most allowed.
	Requests    int `json:"requests"`
	MaxRequests int `json:"max_requests"`
	// Simulated is how many requests were simulated in all, over every
	// doubling (per run: each was also simulated without hedging, and for
	// optimize per candidate): Requests when each run extended the one
	// before (Growth), about twice as many when each simulated again
	// from the start.
	Simulated int64 `json:"simulated_requests"`
	// Met says whether Reached ≤ Asked.
	Met bool `json:"met"`
	// Unreachable, when set, says why no number of requests can reach
	// the precision (the percentile is a miss, so no interval of it
	// exists): the doubling stopped at once. Absent otherwise.
	Unreachable string `json:"unreachable,omitempty"`
}

// precisionJSON is Precision on the wire: Reached is null when it is not
// finite (no interval).
type precisionJSON struct {
	Asked       float64  `json:"asked"`
	Reached     *float64 `json:"reached"`
	Requests    int      `json:"requests"`
	MaxRequests int      `json:"max_requests"`
	Simulated   int64    `json:"simulated_requests"`
	Met         bool     `json:"met"`
	Unreachable string   `json:"unreachable,omitempty"`
}

// MarshalJSON writes p with a Reached that is not finite as null.
func (p Precision) MarshalJSON() ([]byte, error) {
	w := precisionJSON{Asked: p.Asked, Requests: p.Requests, MaxRequests: p.MaxRequests, Simulated: p.Simulated, Met: p.Met, Unreachable: p.Unreachable}
	if !math.IsInf(p.Reached, 0) && !math.IsNaN(p.Reached) {
		w.Reached = &p.Reached
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads what MarshalJSON writes; a null Reached is +Inf.
func (p *Precision) UnmarshalJSON(b []byte) error {
	var w precisionJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*p = Precision{Asked: w.Asked, Reached: math.Inf(1), Requests: w.Requests, MaxRequests: w.MaxRequests, Simulated: w.Simulated, Met: w.Met, Unreachable: w.Unreachable}
	if w.Reached != nil {
		p.Reached = *w.Reached
	}
	return nil
}

// P95Undefined says why r's overall p95 can have no relative interval
// however many requests are simulated — it is a miss (+Inf: more than 5 %
// of requests without a usable answer in time) or 0 — and "" when it is
// an answer above 0.
func (r *Report) P95Undefined() string {
	switch p := r.Overall.Latency.P95; {
	case math.IsInf(p, 1):
		return "the p95 is a miss (more than 5% of requests get no usable answer in time), and a miss has no interval however many requests are simulated"
	case !(p > 0):
		return "the p95 is 0, and a half-width relative to 0 is undefined"
	}
	return ""
}

// P95RelativeHalfWidth returns the relative half-width of r's overall p95
// interval, max(p95 − low, high − p95) ÷ p95; +Inf when the interval is
// not OK or the p95 is a miss or 0.
func (r *Report) P95RelativeHalfWidth() float64 {
	l := &r.Overall.Latency
	if !l.P95CIOK || !(l.P95 > 0) || math.IsInf(l.P95, 1) {
		return math.Inf(1)
	}
	return max(l.P95-l.P95CI95[0], l.P95CI95[1]-l.P95) / l.P95
}

// writePrecision writes how a run to a precision ended (nothing without
// one).
func writePrecision(w io.Writer, p *Precision) {
	WritePrecision(w, p, "the p95's interval (relative to the p95)")
}

// WritePrecision writes how a run to a precision ended, the half-width
// reached being that of what, and how many requests were simulated in
// all (nothing without one).
func WritePrecision(w io.Writer, p *Precision, what string) {
	if p == nil {
		return
	}
	fmt.Fprintf(w, "%s; %d requests simulated in all\n", precisionLine(p, what), p.Simulated)
}

// precisionLine is the sentence of WritePrecision before the requests
// simulated.
func precisionLine(p *Precision, what string) string {
	reached := "without an interval"
	if !math.IsInf(p.Reached, 1) {
		reached = fmt.Sprintf("±%.2f%%", 100*p.Reached)
	}
	atMax := ""
	if p.Requests >= p.MaxRequests {
		atMax = ", the most --max-requests allows"
	}
	if p.Unreachable != "" && !math.IsInf(p.Reached, 1) {
		return fmt.Sprintf("precision: %s is %s at %d requests%s where it exists; ±%.2f%% cannot be reached: %s", what, reached, p.Requests, atMax, 100*p.Asked, p.Unreachable)
	}
	if p.Unreachable != "" {
		return fmt.Sprintf("precision: ±%.2f%% cannot be reached: %s; stopped at %d requests%s", 100*p.Asked, p.Unreachable, p.Requests, atMax)
	}
	if p.Met {
		return fmt.Sprintf("precision: %s is %s at %d requests (asked ±%.2f%%)", what, reached, p.Requests, 100*p.Asked)
	}
	return fmt.Sprintf("precision: %s is %s at %d requests, the most --max-requests allows; ±%.2f%% was asked", what, reached, p.Requests, 100*p.Asked)
}
