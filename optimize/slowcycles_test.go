package optimize_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// brownoutScenario has a provider slowed 6× for 2 minutes in every 12 on
// average: 5000 requests at 20/s are 250 s of traffic, about 0.3 of a
// cycle.
const brownoutScenario = `name = "brownout"
seed = 12
requests = 5000
[arrivals]
rate = 20
[providers.azure]
[providers.azure.degraded]
mean_normal = "10m"
mean_degraded = "2m"
slowdown = 6
[providers.bedrock]
[models.gpt-az]
provider = "azure"
latency = { kind = "lognormal", median = 0.6, p95 = 1.5 }
price_per_request = 0.003
[models.gpt-az-2]
provider = "azure"
latency = { kind = "lognormal", median = 0.6, p95 = 1.5 }
price_per_request = 0.003
[models.claude-br]
provider = "bedrock"
latency = { kind = "lognormal", median = 0.9, p95 = 2.0 }
price_per_request = 0.004
[[classes]]
name = "api"
deadline = "30s"
[classes.hedge]
primary = "gpt-az"
targets = ["gpt-az-2"]
delay = "1.5s"
`

// TestShortSweepOfSlowPeriodsUndecided: a sweep that covers less than one
// slow-period cycle of a provider the class uses (0.3 of azure's at 5000
// requests) gives no firm "don't hedge" — it may have seen none of the
// slow periods — but an undecided verdict, and it and the warning give
// the --requests that cover 3 cycles (3 × 720 s × 20/s = 43200) and the
// 100 at which the warning stops (1440000). Rerun with 43200, the verdict
// is no longer held undecided by the cycles. Before, the verdict was
// "don't hedge" and the warning said "about 0 slow-period cycles …; raise
// --requests" with no number.
func TestShortSweepOfSlowPeriodsUndecided(t *testing.T) {
	sc, err := scenario.Parse("brownout.toml", []byte(brownoutScenario))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 5000, 0
	s.Search.Targets = []string{"gpt-az-2", "claude-br"}
	s.Search.Delays = []time.Duration{638 * time.Millisecond, 1500 * time.Millisecond}
	cr := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2}).Classes[0]
	v := cr.Verdict
	if !v.Undecided || v.Label != optimize.LabelUndecided || !strings.Contains(v.Reason, "about 0.3 slow-period cycles of provider azure") ||
		!strings.Contains(v.Reason, "rerun with --requests ≥ 43200 (3 cycles") {
		t.Fatalf("at 5000 requests: verdict %+v; want undecided for 0.3 cycles, with --requests ≥ 43200", v)
	}
	warned := false
	for _, w := range cr.Warnings {
		warned = warned || strings.Contains(w, "about 0.3 slow-period cycles") && strings.Contains(w, "≥ 43200 covers 3 cycles") && strings.Contains(w, "≥ 1440000 the 100")
	}
	if !warned {
		t.Errorf("warnings %q; want the cycles covered and the --requests for 3 and for 100", cr.Warnings)
	}
	s.Requests = 43200
	again := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2}).Classes[0].Verdict
	if again.Undecided || strings.Contains(again.Reason, "slow-period") {
		t.Errorf("rerun with --requests 43200: verdict %+v; want it decided", again)
	}
}
