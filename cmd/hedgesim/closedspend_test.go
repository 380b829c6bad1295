package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestClosedLoopSpendSaysWhatItHolds: with closed-loop clients the
// no-hedging spend is at its own throughput, so the spend tables' added
// per month holds the extra requests' spend too: run's and optimize's
// tables say so, and optimize's verdict gives hedging's own figure with
// the bill's change apart (TestMonthlyClosedLoopIsHedgingsOwn has the
// arithmetic). An open-arrival scenario's tables carry no such note.
func TestClosedLoopSpendSaysWhatItHolds(t *testing.T) {
	unwrap := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	const note = "closed-loop clients send more requests when answered sooner: their no-hedging figures are at their own throughput, so added per month holds the spend of the extra requests as well as hedging's own."
	scen := filepath.Join("testdata", "closed-loop-spend.toml")
	for _, args := range [][]string{{"run", "--requests", "4000", scen}, {"optimize", "--requests", "20000", "--check-requests", "0", scen}} {
		code, out, errOut := hedgesim(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", args[0], code, errOut)
		}
		if !strings.Contains(unwrap(out), note) {
			t.Errorf("%s lacks the spend note:\n%s", args[0], out)
		}
		if args[0] == "optimize" && !strings.Contains(unwrap(out), "req/s with it, so the bill changes") {
			t.Errorf("optimize's verdict lacks the bill's change apart:\n%s", out)
		}
	}
	if _, out, _ := hedgesim(t, "run", "--requests", "4000", "guard-check"); strings.Contains(unwrap(out), "closed-loop clients send more") {
		t.Errorf("an open-arrival run carries the closed-loop note:\n%s", out)
	}
}
