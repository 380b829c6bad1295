package optimize_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// TestRareClassSweptAloneSaysWhy: a class swept alone runs at its share of
// the arrival rate, so a share of 10⁻⁹ at 10 requests/s puts 100 requests
// 10¹⁰ s apart in simulated time, past the 100 years a run may span. The
// error is a bad configuration (exit 2 in the CLI) that names the class,
// its share and the way out (--classes), not only the simulator's limit.
func TestRareClassSweptAloneSaysWhy(t *testing.T) {
	sc, err := scenario.Parse("tiny.toml", []byte(`requests = 2000
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
`))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 100, 0
	_, err = optimize.Run(&sc.Config, s, optimize.Options{Workers: 1})
	if !errors.Is(err, sim.ErrInvalidConfig) {
		t.Fatalf("error %v; want a sim.ErrInvalidConfig", err)
	}
	for _, want := range []string{`class "rare"`, "share 1e-09", "--classes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}
