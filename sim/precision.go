package sim

import (
	"fmt"
	"io"
	"math"
)

// Precision is how a run to a precision (hedgesim run --precision) ended:
// the run's requests were doubled, each time simulating again on the same
// draws, until the overall p95's interval was within the asked relative
// half-width or the requests reached their maximum.
type Precision struct {
	// Asked is the relative half-width asked (0.02: ± 2 % of the p95),
	// Reached the one of the last run (+Inf without an interval).
	Asked   float64 `json:"asked"`
	Reached float64 `json:"reached"`
	// Requests is the last run's requests, MaxRequests the most allowed.
	Requests    int `json:"requests"`
	MaxRequests int `json:"max_requests"`
	// Met says whether Reached ≤ Asked.
	Met bool `json:"met"`
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
// reached being that of what (nothing without one).
func WritePrecision(w io.Writer, p *Precision, what string) {
	if p == nil {
		return
	}
	reached := "without an interval"
	if !math.IsInf(p.Reached, 1) {
		reached = fmt.Sprintf("±%.2f%%", 100*p.Reached)
	}
	if p.Met {
		fmt.Fprintf(w, "precision: %s is %s at %d requests (asked ±%.2f%%)\n", what, reached, p.Requests, 100*p.Asked)
		return
	}
	fmt.Fprintf(w, "precision: %s is %s at %d requests, the most --max-requests allows; ±%.2f%% was asked\n", what, reached, p.Requests, 100*p.Asked)
}
