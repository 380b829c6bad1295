package optimize

import (
	"cmp"
	"math"
)

// costTol is the relative tolerance under which two costs are the same
// cost. A candidate's cost is a sum over its requests (dollars per 1000
// requests, or attempts per request), and two candidates that pay for the
// same calls may sum them in a different order: their totals then differ
// by rounding, about n·ε relative for n terms — below 1e-10 for the
// 10⁶ requests a run allows (ε = 1.1e-16), more than a few ulps. 1e-9 is
// above that and far below any difference the report can show (two
// decimals of a percentage point of no hedging's cost, 1e-4 relative).
const costTol = 1e-9

// sameCost reports whether added costs a and b, in percent of no
// hedging's cost (Candidate.AddedCostPct), are the same cost: they differ
// by at most costTol of the larger of the two costs, 100 + a and 100 + b
// in percent of no hedging's. Infinite costs are the same only when
// equal; NaN is the same as nothing.
func sameCost(a, b float64) bool {
	return a == b || math.Abs(a-b) <= costTol*max(math.Abs(100+a), math.Abs(100+b))
}

// costLess reports whether added cost a is below b and not the same cost
// (sameCost); false when either is NaN.
func costLess(a, b float64) bool {
	return a < b && !sameCost(a, b)
}

// costCmp compares added costs a and b: 0 when they are the same cost
// (sameCost), else −1 when a < b and +1 when a > b (cmp.Compare's order,
// NaN first).
func costCmp(a, b float64) int {
	if sameCost(a, b) {
		return 0
	}
	return cmp.Compare(a, b)
}

// costWithin reports whether added cost a is at most b: below it, or the
// same cost (sameCost); false when either is NaN, as a ≤ b is.
func costWithin(a, b float64) bool {
	return a <= b || sameCost(a, b)
}
