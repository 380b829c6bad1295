package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Precision is how a run to a precision (hedgesim run --precision) ended:
// the run's requests were doubled, on the same draws, until every class's
// p95 interval and the overall one were within the asked relative
// half-width (P95Widest) or the requests reached their maximum. A run whose requests are independent is extended
// by the requests added (Growth); one whose requests interact is simulated
// again from the start at each doubling.
type Precision struct {
	// Asked is the relative half-width asked (0.02: ± 2 % of the p95),
	// Reached the one of the last run (+Inf without an interval, JSON
	// null): for run, the widest over the classes and the overall row
	// that can have one (P95Widest), those named in Unreachable left out.
	Asked   float64 `json:"asked"`
	Reached float64 `json:"reached"`
	// WidestClass is, for run in a scenario of several classes, the row
	// whose p95 interval is Reached, of the rows that can have one (those
	// named in Unreachable left out): a class's name, or "overall"; when
	// Reached is +Inf, that row has no interval yet (its p95 is a miss
	// only by noise, or its interval is not OK). Absent otherwise: one
	// class, optimize, or every row named in Unreachable (Reached +Inf).
	WidestClass string `json:"widest_class,omitempty"`
	// Requests is the last run's requests, MaxRequests the most allowed.
	Requests    int `json:"requests"`
	MaxRequests int `json:"max_requests"`
	// Simulated is how many requests were simulated in all, over every
	// doubling (per run: each was also simulated without hedging; for
	// optimize per candidate, the most any candidate of the last sweep
	// took: optimize.Growth.Simulated): Requests when each run extended
	// the one before (Growth, optimize.Growth), about twice as many when
	// each simulated again from the start.
	Simulated int64 `json:"simulated_requests"`
	// Met says whether Reached ≤ Asked.
	Met bool `json:"met"`
	// Unreachable, when set, says why no number of requests can reach
	// the precision — the percentile is a miss with a share answered
	// clearly below its level (the share's interval lies below 0.95 for
	// the p95), or it is 0 — naming the rows: the doubling stopped there.
	// Absent otherwise: a miss only by noise keeps doubling.
	Unreachable string `json:"unreachable,omitempty"`
}

// precisionJSON is Precision on the wire: Reached is null when it is not
// finite (no interval).
type precisionJSON struct {
	Asked       float64  `json:"asked"`
	Reached     *float64 `json:"reached"`
	WidestClass string   `json:"widest_class,omitempty"`
	Requests    int      `json:"requests"`
	MaxRequests int      `json:"max_requests"`
	Simulated   int64    `json:"simulated_requests"`
	Met         bool     `json:"met"`
	Unreachable string   `json:"unreachable,omitempty"`
}

// MarshalJSON writes p with a Reached that is not finite as null.
func (p Precision) MarshalJSON() ([]byte, error) {
	w := precisionJSON{Asked: p.Asked, WidestClass: p.WidestClass, Requests: p.Requests, MaxRequests: p.MaxRequests, Simulated: p.Simulated, Met: p.Met, Unreachable: p.Unreachable}
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
	*p = Precision{Asked: w.Asked, Reached: math.Inf(1), WidestClass: w.WidestClass, Requests: w.Requests, MaxRequests: w.MaxRequests, Simulated: w.Simulated, Met: w.Met, Unreachable: w.Unreachable}
	if w.Reached != nil {
		p.Reached = *w.Reached
	}
	return nil
}

// p95Undefined says why c's p95 can have no relative interval however
// many requests are simulated — it is a miss (+Inf: more than 5 % of
// requests without a usable answer in time) and the share answered is
// clearly below 95 % (the upper bound of its 95 % interval,
// AnsweredShareCI95: Wilson's or from batches, is below 0.95), or it is
// 0 — and "" when it is an answer above 0, or a miss only by noise (a
// share answered whose interval reaches 95 %, or that has no interval
// yet): more requests can make that one an answer.
func (c *ClassReport) p95Undefined() string {
	switch p := c.Latency.P95; {
	case math.IsInf(p, 1):
		if ci := c.AnsweredShareCI95; ci != nil && ci[1] != nil && *ci[1] < 0.95 {
			return "the p95 is a miss (the share answered in time is clearly below 95%: its 95% interval lies below it), and more requests only narrow that interval"
		}
	case !(p > 0):
		return "the p95 is 0, and a half-width relative to 0 is undefined"
	}
	return ""
}

// p95RelativeHalfWidth returns the relative half-width of c's p95
// interval, max(p95 − low, high − p95) ÷ p95; +Inf when the interval is
// not OK or the p95 is a miss or 0.
func (c *ClassReport) p95RelativeHalfWidth() float64 {
	l := &c.Latency
	if !l.P95CIOK || !(l.P95 > 0) || math.IsInf(l.P95, 1) {
		return math.Inf(1)
	}
	return max(l.P95-l.P95CI95[0], l.P95CI95[1]-l.P95) / l.P95
}

// P95Widest returns the widest relative half-width of the p95 intervals of
// r's classes and its overall row (max(p95 − low, high − p95) ÷ p95; +Inf
// when a row's interval is not OK or its p95 a miss only by noise
// (p95Undefined), or when no row can have one), the row it is
// ("overall" or the class's name; the overall row on a tie), and why a row
// can have no relative interval however many requests are simulated
// ("class NAME, …, overall: REASON", one such per reason, joined by "; ";
// "" when every row can). Classes without requests are left out, and so are rows that can
// never have an interval from the widest.
func (r *Report) P95Widest() (reached float64, row, undefined string) {
	rows := make([]*ClassReport, 0, len(r.Classes)+1)
	for i := range r.Classes {
		if r.Classes[i].Requests > 0 {
			rows = append(rows, &r.Classes[i])
		}
	}
	rows = append(rows, &r.Overall)
	var reasons []string
	names := map[string][]string{}
	reached, row = math.Inf(1), ""
	measured := false
	for i, c := range rows {
		name, overall := "class "+c.Class, i == len(rows)-1
		if overall {
			name = "overall"
		}
		if why := c.p95Undefined(); why != "" {
			if names[why] == nil {
				reasons = append(reasons, why)
			}
			names[why] = append(names[why], name)
			continue
		}
		// The overall row wins a tie: it comes last.
		if h := c.p95RelativeHalfWidth(); !measured || h > reached || h == reached && overall {
			reached, row = h, c.Class
			if overall {
				row = "overall"
			}
		}
		measured = true
	}
	for i, why := range reasons {
		reasons[i] = strings.Join(names[why], ", ") + ": " + why
	}
	return reached, row, strings.Join(reasons, "; ")
}

// writePrecision writes how a run to a precision ended (nothing without
// one).
func writePrecision(w io.Writer, p *Precision) {
	if p != nil && p.WidestClass != "" {
		WritePrecision(w, p, "the widest p95 interval of the classes and the overall row (relative to its p95)")
		return
	}
	WritePrecision(w, p, "the p95's interval (relative to the p95)")
}

// WritePrecision writes how a run to a precision ended, the half-width
// reached being that of what, and how many requests were simulated in
// all (nothing without one).
func WritePrecision(w io.Writer, p *Precision, what string) {
	writePrecisionSimulated(w, p, what, "in all")
}

// WritePrecisionPerCandidate is WritePrecision for optimize, whose
// requests simulated (Simulated) are per candidate.
func WritePrecisionPerCandidate(w io.Writer, p *Precision, what string) {
	writePrecisionSimulated(w, p, what, "per candidate")
}

func writePrecisionSimulated(w io.Writer, p *Precision, what, per string) {
	if p == nil {
		return
	}
	fmt.Fprintf(w, "%s; %d requests simulated %s\n", precisionLine(p, what), p.Simulated, per)
}

// precisionLine is the sentence of WritePrecision before the requests
// simulated.
func precisionLine(p *Precision, what string) string {
	reached := "without an interval"
	if !math.IsInf(p.Reached, 1) {
		reached = "±" + percent(p.Reached)
	}
	if p.WidestClass == "overall" {
		reached += " (widest: overall)"
	} else if p.WidestClass != "" {
		reached += " (widest: class " + p.WidestClass + ")"
	}
	atMax := ""
	if p.Requests >= p.MaxRequests {
		atMax = ", the most --max-requests allows"
	}
	if p.Unreachable != "" && !math.IsInf(p.Reached, 1) {
		return fmt.Sprintf("precision: %s is %s at %d requests%s where it exists; ±%s cannot be reached: %s", what, reached, p.Requests, atMax, percent(p.Asked), p.Unreachable)
	}
	if p.Unreachable != "" {
		return fmt.Sprintf("precision: ±%s cannot be reached: %s; stopped at %d requests%s", percent(p.Asked), p.Unreachable, p.Requests, atMax)
	}
	if p.Met {
		return fmt.Sprintf("precision: %s is %s at %d requests (asked ±%s)", what, reached, p.Requests, percent(p.Asked))
	}
	return fmt.Sprintf("precision: %s is %s at %d requests, the most --max-requests allows; ±%s was asked", what, reached, p.Requests, percent(p.Asked))
}

// percent writes a relative half-width x as a percentage: two decimals,
// or two significant digits below 0.01 % so that a small one is not
// written as 0.00 %.
func percent(x float64) string {
	if 100*x >= 0.01 {
		return fmt.Sprintf("%.2f%%", 100*x)
	}
	return fmt.Sprintf("%.2g%%", 100*x)
}

// PrecisionFor returns the --precision that would decide a change of
// change % in a percentile (or a gain of that many %): a relative
// half-width of half the change, rounded down to a power of ten times 1, 2
// or 5, at least 0.001; "" when the change is 0, infinite or not a number.
func PrecisionFor(change float64) string {
	p := math.Abs(change) / 200
	if !(p > 0) || math.IsInf(p, 0) {
		return ""
	}
	e := math.Pow(10, math.Floor(math.Log10(p)))
	switch {
	case p >= 5*e:
		p = 5 * e
	case p >= 2*e:
		p = 2 * e
	default:
		p = e
	}
	p = max(p, 0.001)
	return strconv.FormatFloat(p, 'g', 3, 64)
}
