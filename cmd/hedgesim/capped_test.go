package main

import (
	"strings"
	"testing"
)

// cappedScenario draws a TTFT of 1e300 s on one model and a prefill of
// 1e-300 tokens/s on the other: every latency saturates at the
// simulator's cap of 2⁵⁸ ns.
const cappedScenario = `seed = 1
requests = 500

[arrivals]
rate = 20.0

[models.a]
provider = "pa"
ttft = { kind = "constant", value = 1e300 }
tokens_per_s = { kind = "uniform", min = 40.0, max = 90.0 }

[models.b]
provider = "pb"
ttft = { kind = "lognormal", median = 0.5, p95 = 1.4 }
prefill_tokens_per_s = { kind = "constant", value = 1e-300 }
tokens_per_s = { kind = "uniform", min = 45.0, max = 85.0 }

[[classes]]
name = "chat"
input_tokens = { kind = "uniform", min = 200, max = 2000 }
output_tokens = { kind = "uniform", min = 50, max = 400 }

[classes.hedge]
primary = "a"
targets = ["b"]
delay = "800ms"
`

// TestRunWarnsCapped: run counts the requests whose latency reached the
// cap, and optimize warns that its candidates' percentiles did.
func TestRunWarnsCapped(t *testing.T) {
	p := writeTestFile(t, t.TempDir(), "capped.toml", cappedScenario)
	code, out, errOut := hedgesim(t, "run", p)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out+errOut, "500 of 500 requests reached the simulator's cap") {
		t.Errorf("run: no count of capped latencies:\n%s%s", out, errOut)
	}
	code, out, errOut = hedgesim(t, "optimize", "--delays", "0s,1s", "--check-requests", "0", p)
	if code != 0 {
		t.Fatalf("optimize: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out+errOut, "candidates have percentiles at the simulator's cap") {
		t.Errorf("optimize: no warning of capped latencies:\n%s%s", out, errOut)
	}
}
