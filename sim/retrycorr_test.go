package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// TestRetryHonoursCorrelation: the field report's bimodal model (fast
// U(0.1, 0.3) s or slow U(3, 19) s, evenly), no hedging, a 1 s attempt
// timeout and a request retry of 3 tries on attempt timeouts. With
// independent calls a request answers unless all three are slow:
// 1 − 0.5³ = 0.875. With same_model = 1 every call of the request is as
// slow, in quantile, as the first, so the retries buy nothing: 0.5. With
// same_model = 0.5 the answered share lies strictly between (each retry
// is slow more often after a slow call than 0.5). Tolerances: 5 standard
// errors from the sample size (binomialTol).
func TestRetryHonoursCorrelation(t *testing.T) {
	t.Parallel()
	const n = 100_000
	run := func(rho float64) float64 {
		cfg := oneModel(n, bimodal(t), 0)
		cfg.Classes[0].Policy.AttemptTimeout = time.Second
		cfg.Classes[0].Retry = &sim.Retry{MaxAttempts: 3, MaxBackoff: time.Second, Multiplier: 1,
			Jitter: sim.JitterNone, On: sim.RetryAttemptTimeout}
		cfg.Correlation = sim.Correlation{SameModel: rho}
		return float64(mustRun(t, cfg).Classes[0].Answered) / n
	}
	for _, tc := range []struct{ rho, want float64 }{{0, 0.875}, {1, 0.5}} {
		if got := run(tc.rho); math.Abs(got-tc.want) > binomialTol(tc.want, n) {
			t.Errorf("same_model %v: answered %.4f, want %.4f ± %.4f", tc.rho, got, tc.want, binomialTol(tc.want, n))
		}
	}
	if got := run(0.5); !(got > 0.5+binomialTol(0.5, n) && got < 0.875-binomialTol(0.875, n)) {
		t.Errorf("same_model 0.5: answered %.4f, want strictly between 0.5 and 0.875", got)
	}
}

// TestAttemptRetryHonoursCorrelation: the bimodal model failing half its
// calls (the error arrives when the call would have answered), no
// hedging, an attempt retry of 2 calls with no backoff. A request
// answers within 0.6 s when its first call is fast and succeeds (0.25),
// or fails fast and its retry succeeds fast: 0.25·0.5 = 0.125 when the
// retry is exactly as slow as the first call (same_model = 1), 0.25·0.25
// = 0.0625 when it is independent. Tolerances: 5 standard errors.
func TestAttemptRetryHonoursCorrelation(t *testing.T) {
	t.Parallel()
	const n = 100_000
	for _, tc := range []struct{ rho, want float64 }{{0, 0.3125}, {1, 0.375}} {
		cfg := oneModel(n, bimodal(t), 0)
		cfg.Models[0].ErrorRate = 0.5
		cfg.Classes[0].AttemptRetry = &sim.Retry{MaxAttempts: 2, MaxBackoff: time.Second, Multiplier: 1,
			Jitter: sim.JitterNone, On: sim.DefaultRetryOn}
		cfg.Correlation = sim.Correlation{SameModel: tc.rho}
		got := 1 - survivalAt(mustRun(t, cfg).Classes[0].Latencies(), 0.6)
		if math.Abs(got-tc.want) > binomialTol(tc.want, n) {
			t.Errorf("same_model %v: answered within 0.6 s %.4f, want %.4f ± %.4f", tc.rho, got, tc.want, binomialTol(tc.want, n))
		}
	}
}
