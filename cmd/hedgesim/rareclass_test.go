package main

import (
	"strings"
	"testing"
)

// TestRareClassOptimizeWarns: optimize of a scenario whose class "rare"
// (share 10⁻⁹ at 10 requests/s) is too rare to sweep alone optimizes the
// other class, reports rare undecided and says on stderr that it was not
// simulated and why: exit 0. Asked for alone (--classes rare), it cannot
// be optimized: exit 2, naming the class and its share.
func TestRareClassOptimizeWarns(t *testing.T) {
	p := writeTestFile(t, t.TempDir(), "rare.toml", `requests = 200
[arrivals]
rate = 10
[models.m]
latency = { kind = "lognormal", median = 1.0, p95 = 3.0 }
price_per_request = 0.001
[[classes]]
name = "big"
share = 1.0
[classes.hedge]
delay = "2s"
[[classes]]
name = "rare"
share = 1e-9
[classes.hedge]
delay = "1s"
`)
	code, out, errOut := hedgesim(t, "optimize", "--requests", "200", "--check-requests", "200", "--delays", "1s,2s", p)
	if code != 0 {
		t.Fatalf("exit %d; want 0: %s", code, errOut)
	}
	want := `hedgesim optimize: warning: class "rare": the class was not simulated: swept alone at its share 1e-09 of 10 requests/s (1e-08 per second), its 200 requests would span 2e+10 s (634 years) of simulated time, past the 100 years a run may span; it is reported undecided`
	if !strings.Contains(errOut, want) {
		t.Errorf("stderr lacks %q:\n%s", want, errOut)
	}
	if !strings.Contains(out, "200 requests per candidate (rare: not simulated)") || !strings.Contains(out, "rare   undecided") {
		t.Errorf("stdout does not report rare undecided, not simulated:\n%s", out)
	}
	code, _, errOut = hedgesim(t, "optimize", "--requests", "200", "--classes", "rare", p)
	if code != 2 || !strings.Contains(errOut, `class "rare" is swept alone at its share 1e-09`) {
		t.Errorf("--classes rare: exit %d; want 2, naming the class and its share: %s", code, errOut)
	}
}
