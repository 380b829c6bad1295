package compare

import (
	"fmt"
	"math"

	"github.com/hedgesim/hedgesim/sim"
)

// Checks of the parts of a report that only compare's paired tests and
// precision lines read: a class's per_batch figures and the report's
// precision. A figure no hedgesim report can hold is refused (exit 2),
// not left to turn a paired test off or into nonsense.

// checkPerBatch reports, through bad (a JSON field under the class and
// what is wrong with it), every per_batch figure of p that no hedgesim
// report holds: count < 1, first_kept outside [0, count], a p50, p95, p99
// or answered_share array that does not hold count values, a cost,
// linearised, checked_share or degraded_share array present with another
// length, a batch percentile below 0 or above the batch's next one (p50 ≤
// p95 ≤ p99; null is a miss), an answered, checked or degraded share
// outside [0, 1], a cost below 0, and a null linearised
// percentile where hedgesim writes a number: it writes null only for a
// batch without requests (whose answered_share is null too) or, in every
// batch, when the pooled percentile of the kept batches is a miss.
func checkPerBatch(p *sim.PerBatch, bad func(field, format string, args ...any)) {
	if p.Count < 1 {
		bad("per_batch.count", "%d; want a number of batches ≥ 1", p.Count)
		return
	}
	if p.FirstKept < 0 || p.FirstKept > p.Count {
		bad("per_batch.first_kept", "%d; want a batch in [0, %d] (count %d)", p.FirstKept, p.Count, p.Count)
	}
	arrays := []struct {
		name     string
		xs       []float64
		required bool
	}{
		{"p50", p.P50, true}, {"p95", p.P95, true}, {"p99", p.P99, true},
		{"answered_share", p.AnsweredShare, true}, {"cost_per_1k_usd", p.CostPer1k, false},
		{"p50_linearised", p.P50Lin, false}, {"p95_linearised", p.P95Lin, false}, {"p99_linearised", p.P99Lin, false},
		{"checked_share", p.CheckedShare, false}, {"degraded_share", p.DegradedShare, false},
	}
	ok := map[string]bool{}
	for _, a := range arrays {
		switch {
		case a.xs == nil && a.required:
			bad("per_batch."+a.name, "missing or null; want %d values, one per batch (count)", p.Count)
		case a.xs != nil && len(a.xs) != p.Count:
			bad("per_batch."+a.name, "%d values; want %d, one per batch (count)", len(a.xs), p.Count)
		default:
			ok[a.name] = a.xs != nil
		}
	}
	if ok["p50"] && ok["p95"] && ok["p99"] {
		for j := range p.Count {
			q := [3]float64{p.P50[j], p.P95[j], p.P99[j]}
			neg := false
			for i, name := range []string{"p50", "p95", "p99"} {
				if !(q[i] >= 0) {
					bad(fmt.Sprintf("per_batch.%s[%d]", name, j), "%g; want a latency ≥ 0 in seconds, or null for a miss", q[i])
					neg = true
				}
			}
			if !neg && !(q[0] <= q[1] && q[1] <= q[2]) {
				bad(fmt.Sprintf("per_batch[%d]", j), "p50 %s, p95 %s, p99 %s are out of order; percentiles never decrease", fmtSec(q[0]), fmtSec(q[1]), fmtSec(q[2]))
			}
		}
	}
	for _, a := range arrays[3:] {
		if a.name != "answered_share" && a.name != "checked_share" && a.name != "degraded_share" || !ok[a.name] {
			continue
		}
		for j, x := range a.xs {
			if !math.IsNaN(x) && !(x >= 0 && x <= 1) {
				bad(fmt.Sprintf("per_batch.%s[%d]", a.name, j), "%g; want a share in [0, 1], or null for a batch without requests", x)
			}
		}
	}
	if ok["cost_per_1k_usd"] {
		for j, x := range p.CostPer1k {
			if !math.IsNaN(x) && (!(x >= 0) || math.IsInf(x, 0)) {
				bad(fmt.Sprintf("per_batch.cost_per_1k_usd[%d]", j), "%g; want a cost ≥ 0 in USD, or null for a batch without requests", x)
			}
		}
	}
	for _, name := range []string{"p50_linearised", "p95_linearised", "p99_linearised"} {
		if !ok[name] {
			continue
		}
		var xs []float64
		for _, a := range arrays {
			if a.name == name {
				xs = a.xs
			}
		}
		if p.FirstKept >= p.Count {
			bad("per_batch."+name, "given, but no batch is kept (first_kept %d of count %d); hedgesim writes none then", p.FirstKept, p.Count)
			continue
		}
		allNull := true
		for _, x := range xs {
			if !math.IsNaN(x) {
				allNull = false
			}
		}
		if allNull {
			continue // the pooled percentile is a miss
		}
		for j, x := range xs {
			if math.IsNaN(x) && ok["answered_share"] && !math.IsNaN(p.AnsweredShare[j]) {
				bad(fmt.Sprintf("per_batch.%s[%d]", name, j), "null in a batch with requests (answered_share %g); want seconds: null only for a batch without requests, or in every batch when the pooled percentile is a miss", p.AnsweredShare[j])
			}
		}
	}
}

// checkPrecision returns the problems of a report's precision object
// that no hedgesim report holds: asked outside (0, 1) (--precision's
// range), reached below 0 (null: no interval), requests below 1,
// max_requests below requests, and met with a reached above asked or
// without one.
func checkPrecision(p *sim.Precision) []error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("precision.%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if !(p.Asked > 0 && p.Asked < 1) {
		bad("asked", "%g; want a relative half-width in (0, 1), as --precision takes", p.Asked)
	}
	if !(p.Reached >= 0) {
		bad("reached", "%g; want a relative half-width ≥ 0, or null without an interval", p.Reached)
	}
	if p.Requests < 1 {
		bad("requests", "%d; want the last run's requests, ≥ 1", p.Requests)
	} else if p.MaxRequests < p.Requests {
		bad("max_requests", "%d, below requests %d; want at least the requests of the last run", p.MaxRequests, p.Requests)
	}
	if p.Met && p.Reached >= 0 && !(p.Reached <= p.Asked) {
		bad("met", "true, but reached %s is not within asked ±%g%%; met says reached ≤ asked", reachedText(p.Reached), 100*p.Asked)
	}
	return errs
}

// reachedText formats a relative half-width reached, "null" for none.
func reachedText(r float64) string {
	if math.IsInf(r, 1) {
		return "null"
	}
	return fmt.Sprintf("±%g%%", 100*r)
}
