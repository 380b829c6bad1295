package plots

import (
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
)

// TestCostWordKeepsItsSign: a plot's legend prints an added cost that one
// decimal would round to zero with the digits that keep its sign
// (sim.SignedChange): −0.03 % is "-0.03% cost", not "+0.0% cost".
func TestCostWordKeepsItsSign(t *testing.T) {
	for _, tc := range []struct {
		basis string
		x     float64
		want  string
	}{
		{optimize.CostUSD, -0.03, "-0.03% cost"},
		{optimize.CostUSD, 9.84, "+9.8% cost"},
		{optimize.CostUSD, 0, "+0.0% cost"},
		{optimize.CostCalls, -0.04, "-0.04% calls"},
		{optimize.CostCalls, 75, "+75.0% calls"},
	} {
		if got := costWord(&optimize.ClassReport{CostBasis: tc.basis}, tc.x); got != tc.want {
			t.Errorf("costWord(%s, %v) = %q; want %q", tc.basis, tc.x, got, tc.want)
		}
	}
}
