package scenario

import (
	"fmt"
	"testing"

	"github.com/hedgesim/hedgesim/sim"
)

// TestSharesAtTheTolerance: shares written to sum to 1 − 0.001 or
// 1 + 0.001 in decimal are both valid — 0.4995 + 0.4995 sums to
// 0.9989999999999999 in float64, past 1 − 10⁻³ by rounding alone — for
// the scenario and for the simulator it builds, while 0.499 + 0.4995
// (0.9985) is refused.
func TestSharesAtTheTolerance(t *testing.T) {
	const base = `
[arrivals]
rate = 1
[models.m]
latency = { kind = "constant", value = 1 }
[[classes]]
name = "a"
share = %s
[[classes]]
name = "b"
share = 0.4995
`
	for _, c := range []struct {
		a  string
		ok bool
	}{{"0.4995", true}, {"0.5025", false}, {"0.5015", true}, {"0.499", false}} {
		sc, err := Parse("s.toml", []byte(fmt.Sprintf(base, c.a)))
		if (err == nil) != c.ok {
			t.Errorf("share %s + 0.4995: error %v, want valid %v", c.a, err, c.ok)
			continue
		}
		if c.ok {
			cfg := sc.Config
			cfg.Requests = 10
			if _, err := sim.Run(&cfg); err != nil {
				t.Errorf("share %s + 0.4995: the simulator refuses it: %v", c.a, err)
			}
		}
	}
}
