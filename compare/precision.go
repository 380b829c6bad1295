package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/hedgesim/hedgesim/sim"
)

// Precision. compare simulates nothing, so it has no --precision of its
// own: how sure its marks are is how precise the two reports are. A report
// made with --precision (run: the overall p95's interval; optimize: the
// pick's differences from no hedging and its nearest rival) says how that
// ended — the requests of its last run, the relative half-width reached
// and whether it met the one asked — and compare states it for each side.
// A p95 left undecided ("~", or "?" for too few requests) comes with how
// to decide it: rerun each side with --precision P, P the relative
// half-width that is half the change (rounded down to two significant
// digits: decidePrecision), which an interval around each
// side's p95 needs to tell such a change apart. When both sides are runs
// to a precision that already stopped at their --max-requests without
// meeting it, the advice is to raise --max-requests too.

// precisionJSON is the part of a report that says how a run to a
// precision ended (absent without --precision).
type precisionJSON struct {
	Precision *sim.Precision `json:"precision"`
}

// parsePrecision returns the precision a report's JSON gives, or nil
// without one; an error when "precision" is not such an object.
func parsePrecision(data []byte) (*sim.Precision, error) {
	var p precisionJSON
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("precision: %w; want the object run and optimize --precision write", err)
	}
	return p.Precision, nil
}

// precisionText says how a report's run to a precision ended, for the
// side's header: "the p95's interval ±1.84% at 400000 requests (asked
// ±2.00%: met)", or without an interval "no interval of the p95 at 2000
// requests (asked ±2.00%: cannot be reached: …)".
func precisionText(k Kind, p *sim.Precision) string {
	what, of := "the p95's interval", "the p95"
	if k == Optimize {
		what, of = "the pick's paired differences", "the pick's paired differences"
	}
	head := "no interval of " + of // "no interval of the p95 at 2000 requests"
	if !math.IsInf(p.Reached, 0) && !math.IsNaN(p.Reached) {
		head = fmt.Sprintf("%s ±%.2f%%", what, 100*p.Reached)
		if p.WidestClass != "" { // a run judged on every class's p95
			head = fmt.Sprintf("the widest p95 interval ±%.2f%% (%s)", 100*p.Reached, widestName(p.WidestClass))
		}
	}
	verdict := "met"
	switch {
	case p.Unreachable != "":
		verdict = "cannot be reached: " + p.Unreachable
	case !p.Met:
		verdict = fmt.Sprintf("not met at --max-requests %d", p.MaxRequests)
	}
	return fmt.Sprintf("%s at %d requests (asked ±%.2f%%: %s)", head, p.Requests, 100*p.Asked, verdict)
}

// widestName names a run's widest row: "class NAME", or "overall".
func widestName(row string) string {
	if row == "overall" {
		return row
	}
	return "class " + row
}

// rerunCommand names the command each side reruns: "hedgesim run" for
// two run reports, "hedgesim optimize" for two optimize reports, and
// both otherwise.
func rerunCommand(a, b Kind, flag string) string {
	if a == b {
		return fmt.Sprintf("rerun each side with `hedgesim %s %s`", a, flag)
	}
	return fmt.Sprintf("rerun A with `hedgesim %s %s` and B with `hedgesim %s %s`", a, flag, b, flag)
}

// undecidedNote says, for a row whose p95 is "~" or "?", at how many
// requests it was left undecided and how to decide it; "" otherwise.
func undecidedNote(c *Comparison, r Row) string {
	var d *Delta
	for i := range r.Deltas {
		if r.Deltas[i].Metric == "p95" {
			d = &r.Deltas[i]
		}
	}
	if d == nil || (d.Mark != Same && d.Mark != Unknown) {
		return ""
	}
	at := fmt.Sprintf("at %d and %d requests", r.RequestsA, r.RequestsB)
	if r.RequestsA == r.RequestsB {
		at = fmt.Sprintf("at %d requests", r.RequestsA)
	}
	if d.Mark == Unknown {
		rerun := rerunCommand(c.A.Kind, c.B.Kind, "--precision P")
		switch d.noInterval {
		case [2]bool{true, false}:
			at, rerun = fmt.Sprintf("at %d requests in A", r.RequestsA), fmt.Sprintf("rerun A with `hedgesim %s --precision P`", c.A.Kind)
		case [2]bool{false, true}:
			at, rerun = fmt.Sprintf("at %d requests in B", r.RequestsB), fmt.Sprintf("rerun B with `hedgesim %s --precision P`", c.B.Kind)
		}
		return fmt.Sprintf("%s: p95 has too few requests for an interval %s: %s (it doubles the requests until the p95's interval is within ±P)",
			r.Class, at, rerun)
	}
	if why := undecidable(r, d); why != "" {
		return fmt.Sprintf("%s: p95 not significant %s: %s", r.Class, at, why)
	}
	p := decidePrecision(d.Change)
	rerun := rerunCommand(c.A.Kind, c.B.Kind, "--precision "+p)
	if n := cappedMaxRequests(c); n > 0 {
		rerun = rerunCommand(c.A.Kind, c.B.Kind, "--precision "+p+" --max-requests N") +
			fmt.Sprintf(", N above %d: both runs stopped at their --max-requests", n)
	}
	return fmt.Sprintf("%s: p95 not significant %s: to decide a change of %.1f%%, %s (each side's interval within ±%s%%, half the change)",
		r.Class, at, math.Abs(d.Change), rerun, pctOf(p))
}

// samePolicyNote says, for a row whose two sides ran the same policy under
// the same conditions (Row.SamePolicy), that no rerun can show either
// better: with common random numbers the figures differ by nothing the
// policy did; without, by sampling noise. "" for other rows, and for a
// row with no difference to explain (no figure changed, or a side without
// requests).
func samePolicyNote(r Row) string {
	if !r.SamePolicy || r.RequestsA == 0 || r.RequestsB == 0 {
		return ""
	}
	changed := false
	for _, d := range r.Deltas {
		if !math.IsNaN(d.Change) && d.Change != 0 {
			changed = true
		}
	}
	if !changed {
		return ""
	}
	why := "the sides do not share random numbers, so their differences are sampling noise"
	if r.CommonRandomNumbers {
		why = "the sides share random numbers, so any difference comes from requests simulated on one side only"
	}
	return fmt.Sprintf("%s: the policies are the same (%s): %s, and no rerun can show one better than the other", r.Class, r.PolicyA, why)
}

// undecidable says why no rerun decides the p95 of d, marked Same in row
// r: "" when one does. Equal figures (a change of 0) have no change to
// decide. A change so small that an interval of half of it would need
// more requests than the simulator's limit (sim.MaxRequests) on some
// side — each side's relative half-width h at its n requests narrows as
// 1/√n, so reaching h' takes n·(h/h')² — cannot be decided by any
// --precision either (when paired, the difference's interval over the
// batches stands for both sides).
func undecidable(r Row, d *Delta) string {
	if d.A == d.B || decidePrecision(d.Change) == "" {
		return fmt.Sprintf("it is the same in A and B (%s): no change to decide", value("p95", d.A))
	}
	want := math.Abs(d.Change) / 200 // half the change, relative
	type side struct {
		half float64 // relative half-width
		n    int64
	}
	var sides []side
	if d.Paired {
		sides = []side{{(d.DiffCI[1] - d.DiffCI[0]) / 2 / math.Abs(d.A), min(r.RequestsA, r.RequestsB)}}
	} else {
		sides = []side{{(d.CIA[1] - d.CIA[0]) / 2 / d.A, r.RequestsA}, {(d.CIB[1] - d.CIB[0]) / 2 / d.B, r.RequestsB}}
	}
	for _, s := range sides {
		if !(s.half > 0) || math.IsInf(s.half, 0) || s.n <= 0 {
			continue
		}
		if need := float64(s.n) * math.Pow(s.half/want, 2); need > sim.MaxRequests {
			return fmt.Sprintf("%s in A and %s in B differ by %.2g%%, less than any run can decide: an interval of ±%.2g%% (half the change) would need about %.2g requests, beyond the simulator's limit of %d; treat them as equal",
				value("p95", d.A), value("p95", d.B), math.Abs(d.Change), 100*want, need, sim.MaxRequests)
		}
	}
	return ""
}

// decidePrecision returns the --precision that decides a change of
// change percent: half of it as a relative half-width, rounded down to
// two significant digits (8.8 % → "0.044"), at most 0.5 (--precision
// takes less than 1); "" for no change (0, or not finite).
func decidePrecision(change float64) string {
	p := math.Abs(change) / 200
	if !(p > 0) || math.IsInf(p, 0) {
		return ""
	}
	e := math.Pow(10, math.Floor(math.Log10(p))-1)
	p = min(math.Floor(p/e*(1+1e-9))*e, 0.5) // --precision takes < 1
	return strconv.FormatFloat(p, 'g', 2, 64)
}

// cappedMaxRequests returns the larger --max-requests of two runs to a
// precision that each stopped at theirs without meeting it (rerunning at
// any precision then stops there again), or 0 when either did not.
func cappedMaxRequests(c *Comparison) int {
	pa, pb := c.A.Precision, c.B.Precision
	if pa == nil || pb == nil || pa.Met || pb.Met || pa.Requests < pa.MaxRequests || pb.Requests < pb.MaxRequests {
		return 0
	}
	return max(pa.MaxRequests, pb.MaxRequests)
}

// pctOf returns a precision such as "0.005" in percent: "0.5".
func pctOf(p string) string {
	x, err := strconv.ParseFloat(p, 64)
	if err != nil {
		return p
	}
	return strconv.FormatFloat(100*x, 'g', 3, 64)
}

// writePrecisions writes each side's precision, when its report was made
// with --precision.
func writePrecisions(w io.Writer, c *Comparison) {
	for _, side := range []struct {
		label string
		r     *Report
	}{{"A", c.A}, {"B", c.B}} {
		if side.r.Precision != nil {
			fmt.Fprintf(w, "%s precision: %s\n", side.label, precisionText(side.r.Kind, side.r.Precision))
		}
	}
}
