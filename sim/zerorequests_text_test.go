package sim_test

import (
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// TestOutcomesOfClassWithoutRequests: a class whose share is too small to
// get a request in the run (10⁻⁹ of 2 000) has no answered or hedged share
// and no attempts per request: its outcomes row prints "-" for them, as
// its latency row does, not 0.0 % and 0.000.
func TestOutcomesOfClassWithoutRequests(t *testing.T) {
	const toml = `requests = 2000
[arrivals]
rate = 10
[models.a]
latency = { kind = "lognormal", median = 0.5, p95 = 2.0 }
price_per_request = 0.001
[[classes]]
name = "big"
share = 0.999999999
[classes.hedge]
delay = "1s"
[[classes]]
name = "tiny"
share = 0.000000001
[classes.hedge]
delay = "1s"
`
	s, err := scenario.LoadFS(fstest.MapFS{"zero.toml": {Data: []byte(toml)}}, "zero.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &s.Config
	rep := sim.NewReport(cfg, mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg)))
	if n := rep.Classes[1].Requests; n != 0 {
		t.Fatalf("class tiny got %d requests; the test needs 0", n)
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	tiny := regexp.MustCompile(`(?m)^ +tiny +0 +- +- +0/0 +0 +0 +0 +0 +- +-\s*$`)
	big := regexp.MustCompile(`(?m)^ +big +2000 +[0-9.]+% +[0-9.]+% .* [0-9]\.[0-9]{3}\s*$`)
	if !tiny.MatchString(text.String()) || !big.MatchString(text.String()) {
		t.Errorf("outcomes rows: want tiny's shares as \"-\" and big's as figures:\n%s", text.String())
	}
}
