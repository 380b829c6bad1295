package scenario

import (
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// The smallest scenario files of three accounting faults, run end to end:
// each is parsed and simulated, and the numbers checked are those the
// fault got wrong.

func runFile(t *testing.T, src string) *sim.Result {
	t.Helper()
	res, _ := traceFile(t, src)
	return res
}

// traceFile runs the scenario src and returns its result and, per request,
// when its last attempt left, in seconds from its arrival.
func traceFile(t *testing.T, src string) (*sim.Result, []float64) {
	t.Helper()
	sc, err := Parse("fault.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	n := sc.Config.Requests
	arr, end := make([]time.Duration, n), make([]time.Duration, n)
	res, err := sim.RunTrace(&sc.Config, func(r *sim.AttemptRecord) {
		if r.Attempt == 0 {
			arr[r.Request] = r.Start
		}
		end[r.Request] = max(end[r.Request], r.End)
	})
	if err != nil {
		t.Fatal(err)
	}
	ends := make([]float64, n)
	for i := range ends {
		ends[i] = (end[i] - arr[i]).Seconds()
	}
	return res, ends
}

// TestFileTimedOutAttemptFreesSlot: the primary abandoned at its 1 s
// attempt timeout finishes its 2 s of work and frees its slot then, though
// the cancel would land an hour later: local is busy 40 s of the 192 s run
// (utilisation ≈ 0.2), not 100 %.
func TestFileTimedOutAttemptFreesSlot(t *testing.T) {
	res := runFile(t, `
requests = 20
[arrivals]
process = "constant"
rate = 0.1
[providers.local]
concurrency = 1
[providers.remote]
[models.slow]
provider = "local"
latency = { kind = "constant", value = 2.0 }
[models.backup]
provider = "remote"
latency = { kind = "constant", value = 0.5 }
[[classes]]
name = "c"
[classes.hedge]
primary = "slow"
targets = ["backup"]
delay = "fallback"
attempt_timeout = "1s"
on_attempt_timeout = "nonfatal"
cancel_latency = "1h"
`)
	for _, p := range res.Providers {
		if p.Name == "local" {
			if u := *p.Utilisation; math.Abs(u-40.0/192) > 1e-9 {
				t.Errorf("local utilisation %.4f, want 40/192 = %.4f", u, 40.0/192)
			}
			return
		}
	}
	t.Fatal("no provider local")
}

// TestFileQueuedLoserServedAndBilled: with cancels that never reach the
// backend in time, the primary waiting in local's queue when its copy wins
// stays, is served and billed: local completes 2 attempts and is busy 10 s
// (all of the run), and $4 is billed (not $3).
func TestFileQueuedLoserServedAndBilled(t *testing.T) {
	res := runFile(t, `
requests = 2
[arrivals]
process = "constant"
rate = 1
[providers.local]
concurrency = 1
[providers.other]
[models.slow]
provider = "local"
latency = { kind = "constant", value = 5.0 }
price_per_request = 1
[models.fast]
provider = "other"
latency = { kind = "constant", value = 0.5 }
price_per_request = 1
[[classes]]
name = "c"
[classes.hedge]
primary = "slow"
targets = ["fast"]
delay = "2s"
cancel_latency = "1h"
cancel_billing = "full"
`)
	local := res.Providers[0]
	if local.Name != "local" || local.Completed != 2 || math.Abs(*local.Utilisation-1) > 1e-9 {
		t.Errorf("provider %s: completed %d, utilisation %v; want local, 2 and 1", local.Name, local.Completed, *local.Utilisation)
	}
	if got := res.Overall.CostCompletedUSD + res.Overall.CostCancelledUSD; math.Abs(got-4) > 1e-9 {
		t.Errorf("billed $%v, want $4", got)
	}
}

// TestFileDeniedCopyEndsRequest: once the retry throttle is below its
// threshold, a request whose only attempt failed (nothing in flight) and
// whose copy is denied returns its error at 4 ms, not at the next timer
// (3.004 s with four copies a second apart).
func TestFileDeniedCopyEndsRequest(t *testing.T) {
	for _, budget := range []string{
		"retry_throttling = { max_tokens = 10, token_ratio = 0.1 }",
		"hedges_per_second = 0.001\nburst = 1",
	} {
		_, ends := traceFile(t, `
requests = 100
[arrivals]
process = "constant"
rate = 1
[models.m]
latency = { kind = "constant", value = 1.0 }
error_rate = 1.0
error_latency = { kind = "constant", value = 0.004 }
[[classes]]
name = "c"
deadline = "15s"
on_timeout = "fail_open"
[classes.hedge]
delay = "1s"
max_copies = 4
on_error = "nonfatal"
[classes.hedge.budget]
`+budget+"\n")
		for i, e := range ends[1:] {
			if math.Abs(e-0.004) > 1e-9 {
				t.Errorf("%s: request %d ended after %vs, want 4 ms", budget, i+1, e)
				break
			}
		}
	}
}
