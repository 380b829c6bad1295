package sim

import (
	"math"
	"time"
)

// maxDelay caps a single drawn duration at 2⁵⁸ ns (about 9 years), so that
// the few durations a request's times add up cannot overflow; a run whose
// latencies reach it reports that they were capped.
const maxDelay = time.Duration(1 << 58)

// CapSeconds is the cap on a single drawn duration, in seconds.
var CapSeconds = maxDelay.Seconds()

// seconds converts seconds to a Duration, rounding to the nanosecond and
// saturating at maxDelay. Draws from 0 to 10⁸ s take the short path,
// which inlines; the rest is secondsRare, the same formula.
func seconds(s float64) time.Duration {
	if s >= 0 && s < 1e8 { // 10¹⁷ ns < maxDelay
		return time.Duration(s*1e9 + 0.5) // rounds half up
	}
	return secondsRare(s)
}

// secondsRare is seconds of a negative, NaN or large s.
//
//go:noinline
func secondsRare(s float64) time.Duration {
	ns := s * 1e9
	if !(ns < float64(maxDelay)) {
		return maxDelay
	}
	if ns >= 0 {
		return time.Duration(ns + 0.5) // rounds half up; draws are ≥ 0
	}
	return time.Duration(math.Round(ns))
}

// MaxTokens caps a token-count draw, so that token counts times prices
// and their sums stay finite whatever the distribution's tail. The
// scenario loader refuses a token distribution whose 99.9999th percentile
// exceeds it.
const MaxTokens = 1e9

// tokens rounds a token-count draw to a whole number of tokens in
// [0, MaxTokens]: math.Round(math.Min(x, MaxTokens)), 0 for a negative or
// NaN x. A draw from 1 to MaxTokens, the commonest, is rounded without
// their calls: its whole part, int64's truncation, exact below 2⁶³, plus
// one when the fraction, x less it (exact: both share x's exponent or
// less), is at least a half — half away from zero, as math.Round
// (TestTokensIsRoundMin compares them bit for bit).
func tokens(x float64) float64 {
	if x >= 1 && x < MaxTokens {
		w := float64(int64(x))
		if x-w >= 0.5 {
			w++
		}
		return w
	}
	if x < 0 || math.IsNaN(x) {
		return 0
	}
	return math.Round(math.Min(x, MaxTokens))
}

// never is a time no event reaches: when a cancel lands at a provider
// that ignores cancels.
const never = time.Duration(math.MaxInt64)
