package sim

import "testing"

// TestDollarsPer1k: four decimals with thousands separators, three
// significant digits below a cent, so that no non-zero cost reads
// $0.0000. Regression: a cost of $4.5e-8 per 1k printed as $0.0000 and
// $7749210000 as $7749210000.0000.
func TestDollarsPer1k(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{0, "$0.0000"},
		{1.4315, "$1.4315"},
		{0.0709, "$0.0709"},
		{0.01, "$0.0100"},
		{0.0099, "$0.00990"},
		{0.00123456, "$0.00123"},
		{4.5e-8, "$0.0000000450"},
		{999.99994, "$999.9999"},
		{1000, "$1,000.0000"},
		{7749210000, "$7,749,210,000.0000"},
		{-0.5, "-$0.5000"},
		{-0.00002, "-$0.0000200"},
	} {
		if got := DollarsPer1k(tc.x); got != tc.want {
			t.Errorf("DollarsPer1k(%g) = %s, want %s", tc.x, got, tc.want)
		}
	}
}
