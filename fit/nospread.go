package fit

import "strconv"

// spreadTol is the relative spread below which a sample counts as one
// value. A value derived by arithmetic carries rounding: a decode speed,
// tokens ÷ (latency − ttft), of a constant 50 tokens/s computed from
// latencies written to 4 decimals spreads by about 1e-14 relatively
// (machine epsilon 2.2e-16 times latency ÷ (latency − ttft)). 1e-9 leaves
// room for a condition number of about 4·10⁶ while staying far below any
// variation a log records (a value written to 9 significant digits moves
// by at least 1e-9 of itself).
const spreadTol = 1e-9

// noSpread reports whether a sorted sample from lo to hi (lo > 0) is one
// value up to floating-point rounding: (hi − lo) ≤ spreadTol·hi. A
// lognormal fitted to such a sample has σ near 1e-15, which no data
// supports, and percentile checks that contradict themselves.
func noSpread(lo, hi float64) bool {
	return hi-lo <= spreadTol*hi
}

// oneValue returns the value of a sample without spread (noSpread) as
// text, its rounding removed: v to 9 significant digits.
func oneValue(v float64) string {
	return strconv.FormatFloat(v, 'g', 9, 64)
}
