package optimize_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// tinyShareScenario has two classes coupled by a provider's concurrency
// limit, optimized jointly on their shared traffic: "rare" has a share of
// 10⁻⁹, so no request of 2 × 2000 falls in it.
const tinyShareScenario = `seed = 1
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
`

// advised returns the N of "rerun with --requests ≥ N" in reason, or 0.
func advised(t *testing.T, reason string) int {
	t.Helper()
	m := regexp.MustCompile(`rerun with --requests ≥ (\d+)`).FindStringSubmatch(reason)
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRerunAdviceSuffices: the advised --requests accounts for the
// warm-up cut and the class's share: loaded-provider at 6000 requests
// keeps fewer than the 6000 a batched p95 interval needs after its cut
// (it advised 6000, which fails again), and big, coupled with rare, gets
// its share of twice the requests asked (it advised 6000, twice what is
// needed). Rerun with the advice, neither verdict is undecided.
func TestRerunAdviceSuffices(t *testing.T) {
	if testing.Short() {
		t.Skip("four sweeps")
	}
	loaded, err := scenario.LoadFS(scenarios.FS, "loaded-provider.toml")
	if err != nil {
		t.Fatal(err)
	}
	tiny, err := scenario.Parse("tiny.toml", []byte(tinyShareScenario))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sc        *scenario.Scenario
		requests  int
		class     int
		cut, over bool // a warm-up cut below the need; advice above what the class needs
	}{{loaded, 6000, 0, true, false}, {tiny, 2000, 0, false, true}} {
		s := c.sc.Optimize
		s.Requests, s.CheckRequests = c.requests, 0
		cr := mustRun(t, &c.sc.Config, s, optimize.Options{Workers: 2}).Classes[c.class]
		n := advised(t, cr.Verdict.Reason)
		if !cr.Verdict.Undecided || n == 0 {
			t.Fatalf("%s at %d requests: verdict %+v; want undecided, with advice", cr.Class, c.requests, cr.Verdict)
		}
		if c.cut && (n <= 6000 || !strings.Contains(cr.Verdict.Reason, "after the warm-up cut")) {
			t.Errorf("%s: advice %d with its warm-up cut (%q); want more than 6000, the need", cr.Class, n, cr.Verdict.Reason)
		}
		if c.over && n >= 6000 {
			t.Errorf("%s: advice %d; want less than 6000, as it gets twice the requests asked", cr.Class, n)
		}
		s.Requests = n
		again := mustRun(t, &c.sc.Config, s, optimize.Options{Workers: 2}).Classes[c.class]
		if again.Verdict.Undecided || advised(t, again.Verdict.Reason) != 0 {
			t.Errorf("%s rerun with --requests %d: verdict %+v; want decided", cr.Class, n, again.Verdict)
		}
	}
}
