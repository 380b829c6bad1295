package htmlreport

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// TestClassWithoutRequestsNoShares: the page shows a class no request
// fell in (a share of 10⁻⁹ beside a class it shares a concurrency limit
// with, swept jointly) with "-" for its answered and hedged shares and
// attempts per request, in the summary and in the rollout check — a share
// of nothing is not 0.0% — and no cost: "-" for its added cost in the
// summary and its spend in the rollout check, not "+0.0% calls" or "$0".
func TestClassWithoutRequestsNoShares(t *testing.T) {
	sc, err := scenario.Parse("tiny.toml", []byte(`seed = 1
requests = 2000
[arrivals]
rate = 1000.0
[providers.api]
concurrency = 2000
[models.m]
provider = "api"
latency = { kind = "lognormal", median = 0.8, p95 = 2.0 }
price_per_request = 0.0001
[[classes]]
name = "big"
share = 0.999999999
[classes.hedge]
primary = "m"
delay = "1s"
[[classes]]
name = "rare"
share = 0.000000001
[classes.hedge]
primary = "m"
delay = "1s"
`))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 2000, 2000
	rep, err := optimize.Run(&sc.Config, s, optimize.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Classes[1].Requests != 0 {
		t.Fatalf("rare has %d requests; want none", rep.Classes[1].Requests)
	}
	var b bytes.Buffer
	if err := Write(&b, rep, Options{NoFigures: true}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	summary := regexp.MustCompile(`<tr class="class-row"><td><a href="#[^"]*">rare</a></td>.*</tr>`).FindString(page)
	if summary == "" {
		t.Fatal("no summary row of rare")
	}
	if !strings.Contains(summary, "<td>- → -</td><td></td><td>-</td><td>-</td>") {
		t.Errorf("summary row of rare: %s; want answered - → - with no change, hedged - and attempts -", summary)
	}
	rollout := regexp.MustCompile(`<tr><td>rare</td><td>configured</td>.*</tr>`).FindString(page)
	if rollout == "" || strings.Contains(rollout, "0.0%") {
		t.Errorf("rollout row of rare: %q; want no answered share", rollout)
	}
	// Nor a cost (as TestClassWithoutRequestsHasNoFigures in the text).
	if strings.Contains(summary, "+0.0") || strings.Contains(rollout, "$0") {
		t.Errorf("rare's rows give a cost: summary %s, rollout check %s; want -", summary, rollout)
	}
}
