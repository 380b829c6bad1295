package htmlreport

import "testing"

// TestChangeKeepsItsSign: the page's added-cost and change cells print a
// change that one decimal would round to zero with the digits that keep
// its sign (sim.SignedChange): an added cost of −0.03 % is "-0.03%", and
// a p95 from 1.2000 s to 1.1996 s is "-0.03%", not "+0.0%".
func TestChangeKeepsItsSign(t *testing.T) {
	for x, want := range map[float64]string{-0.03: "-0.03%", 0.03: "+0.03%", 0: "+0.0%", -12.34: "-12.3%"} {
		if got := signedPct(x); got != want {
			t.Errorf("signedPct(%v) = %q; want %q", x, got, want)
		}
	}
	if got := change(1.2, 1.1996); got != "-0.03%" {
		t.Errorf("change(1.2, 1.1996) = %q; want \"-0.03%%\"", got)
	}
}
