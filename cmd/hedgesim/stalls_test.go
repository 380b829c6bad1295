package main

import (
	"strings"
	"testing"
)

// TestRunStreamStalls: the shipped stream-stalls scenario reports the
// attempts its stream cuts ended (a scenario without stalls does not); a
// bad stall value is bad input (exit 2)
// named by file, line and key.
func TestRunStreamStalls(t *testing.T) {
	code, out, errOut := hedgesim(t, "run", "--wide", "--requests", "20000", "stream-stalls")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "agent: ") || !strings.Contains(out, "attempts cut for stalls") {
		t.Errorf("no stall line for the agent class:\n%s", out)
	}
	if !strings.Contains(out, "timed out  stalled  cancelled") {
		t.Errorf("no stalled column in the provider table:\n%s", out)
	}
	// A scenario without stalls prints neither.
	if code, out, _ := hedgesim(t, "run", "--requests", "2000", "guard-check"); code != 0 || strings.Contains(out, "stall") {
		t.Errorf("guard-check: exit %d, a stall figure printed:\n%s", code, out)
	}
	path := writeScenario(t, `
[arrivals]
rate = 1
[models.m]
ttft = { kind = "constant", value = 0.5 }
tokens_per_s = { kind = "constant", value = 50 }
stalls = { rate = 0.1, duration = { kind = "constant", value = 5 }, at = "end" }
[[classes]]
name = "c"
`)
	code, _, errOut = hedgesim(t, "run", path)
	if code != 2 || !strings.Contains(errOut, "lognormal.toml:7: models.m.stalls.at: unknown value \"end\"") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}
