package sim_test

import (
	"math"
	"testing"

	"github.com/hedgesim/hedgesim/sim"
)

// TestThroughputTextOneFormat: a throughput and its interval print with
// one number of decimals, those of the rate to 4 significant digits,
// trailing zeros kept. Regression: closed.toml printed "7.33 [7.19,
// 7.477]", each number to 4 significant digits with its zeros dropped.
func TestThroughputTextOneFormat(t *testing.T) {
	for _, tc := range []struct {
		th   sim.Throughput
		want string
	}{
		{sim.Throughput{PerSecond: 7.33, CI95: [2]float64{7.19, 7.477}}, "7.330/s [7.190, 7.477]"},
		{sim.Throughput{PerSecond: 11.07, CI95: [2]float64{9.561, 13.16}}, "11.07/s [9.56, 13.16]"},
		{sim.Throughput{PerSecond: 0.25, CI95: [2]float64{0.2, math.Inf(1)}}, "0.2500/s [0.2000, inf]"},
		{sim.Throughput{PerSecond: 1234.6, CI95: [2]float64{987.6, 1500}}, "1235/s [988, 1500]"},
		{sim.Throughput{PerSecond: 6.96, CI95: [2]float64{math.NaN(), math.NaN()}}, "6.960/s"},
	} {
		if got := tc.th.Text(true); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.th, got, tc.want)
		}
	}
}
