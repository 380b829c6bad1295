package main

import (
	"strings"
	"testing"
)

// TestSearchFlagErrorsNameTheFlag: a bad value of a search flag is a usage
// error (exit 2) naming the flag and the value, before any simulation, for
// optimize and retune alike. Regression: they were reported as the value
// of the first class's objective ("class "check": max added cost -1%"),
// --objective answered without --target did not mention --target, and
// delays all at or past the deadline failed with exit 1 after the
// baseline was simulated.
func TestSearchFlagErrorsNameTheFlag(t *testing.T) {
	opt := []string{"optimize", "--requests", "200", "--quiet"}
	ret := []string{"retune", "guard-check", "--from", "testdata/docs/guard-metrics-80.txt", "--quiet"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(cloneArgs(opt), "--max-cost", "-1", "guard-check"), "--max-cost -1: must be ≥ 0"},
		{append(cloneArgs(opt), "--max-hedged", "200", "guard-check"), "--max-hedged 200: must be in [0, 100]"},
		{append(cloneArgs(opt), "--max-hedged", "-0.5", "guard-check"), "--max-hedged -0.5: must be in [0, 100]"},
		{append(cloneArgs(opt), "--copies", "0", "guard-check"), "--copies 0: must be in [1, 7]"},
		{append(cloneArgs(opt), "--copies", "1,8", "guard-check"), "--copies 8: must be in [1, 7]"},
		{append(cloneArgs(opt), "--objective", "answered", "two-model-gateway"), `--objective answered needs --target LATENCY`},
		{append(cloneArgs(opt), "--objective", "cost", "guard-check"), `--objective cost needs --sla LATENCY`},
		{append(cloneArgs(opt), "--delays", "5s,100s", "guard-check"), `--delays 5s,100s: every delay is at or past class "check"'s 3s deadline`},
		{append(cloneArgs(opt), "--from", "3s", "--to", "10s", "--step", "1s", "guard-check"), `--from 3s --to 10s --step 1s: every delay is at or past class "check"'s 3s deadline`},
		{append(cloneArgs(ret), "--max-cost", "-1"), "--max-cost -1: must be ≥ 0"},
		{append(cloneArgs(ret), "--copies", "0"), "--copies 0: must be in [1, 7]"},
		{append(cloneArgs(ret), "--objective", "cost"), `--objective cost needs --sla LATENCY`},
		// guard-check's [optimize] table has a target: a 0s one is the flag's fault.
		{append(cloneArgs(opt), "--objective", "answered", "--target", "0s", "guard-check"), "--target 0s: must be > 0"},
		{append(cloneArgs(opt), "--objective", "cost", "--sla", "0s", "guard-check"), "--sla 0s: must be > 0"},
		{append(cloneArgs(ret), "--objective", "answered", "--target", "0s"), "--target 0s: must be > 0"},
	} {
		code, stdout, errOut := hedgesim(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || stdout != "" {
			t.Errorf("%q: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
		if strings.Contains(errOut, "class \"check\": max") || strings.Contains(errOut, "class \"check\": copies") {
			t.Errorf("%q: %q blames a class for a flag's value", tc.args, errOut)
		}
	}
	// A delay list with one delay before the deadline is fine: that one is
	// tried (--check-requests 0 and 200 requests keep the run short).
	if code, _, errOut := hedgesim(t, "optimize", "--requests", "200", "--check-requests", "0", "--quiet", "--delays", "1s,100s", "guard-check"); code != 0 {
		t.Errorf("--delays 1s,100s: exit %d, %q; want 0", code, errOut)
	}
	// The scenario's own target serves --objective answered.
	if code, _, errOut := hedgesim(t, "optimize", "--requests", "200", "--check-requests", "0", "--quiet", "--delays", "1s", "--objective", "answered", "guard-check"); code != 0 {
		t.Errorf("--objective answered on guard-check: exit %d, %q; want 0", code, errOut)
	}
}
