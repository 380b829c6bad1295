package sim_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// TestClassAdviceInRunRequests: requests counts every class's requests,
// so a class row's advice to simulate more is in the run's requests, not
// the class's. A closed-loop class of 3 clients thinking 5 s beside open
// arrivals at 2/s gets about a fifth of the run's 2000 requests, and
// behind a shared concurrency limit (requests interact: batched
// intervals) its batches are too short for a batched p95 interval.
// Followed, the advice gives it enough: rerun at the requests advised, its
// p95 warning is gone. (Before, it asked for the class's own 6029
// requests, at which the class got 1288 and the warning stayed.)
func TestClassAdviceInRunRequests(t *testing.T) {
	sc, err := scenario.Parse("closed.toml", []byte(`seed = 1
requests = 2000
[arrivals]
rate = 2.0
[providers.api]
concurrency = 40
[models.m]
provider = "api"
latency = { kind = "lognormal", median = 0.5, p95 = 2.0 }
price_per_request = 0.001
[[classes]]
name = "open"
[classes.hedge]
primary = "m"
delay = "1s"
[[classes]]
name = "eval"
clients = 3
think_time = "5s"
[classes.hedge]
primary = "m"
delay = "1s"
`))
	if err != nil {
		t.Fatal(err)
	}
	const p95Short = "too short for a batched p95 interval"
	evalWarnings := func(cfg *sim.Config) (string, int64) {
		rep := sim.NewReport(cfg, mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg)))
		return strings.Join(rep.Classes[1].Warnings, "\n"), rep.Classes[1].Requests
	}
	cfg := &sc.Config
	w, got := evalWarnings(cfg)
	m := regexp.MustCompile(p95Short + `[^\n]*; simulate at least (\d+) requests( \(the class got (\d+) of 2000\))?`).FindStringSubmatch(w)
	if m == nil {
		t.Fatalf("eval's warnings lack the p95 batch warning with its advice:\n%s", w)
	}
	if m[3] != strconv.FormatInt(got, 10) {
		t.Errorf("the advice does not say the class got its %d requests of the run's 2000:\n%s", got, w)
	}
	n, _ := strconv.Atoi(m[1])
	cfg.Requests = n
	w, got = evalWarnings(cfg)
	if strings.Contains(w, p95Short) {
		t.Errorf("rerun at the %d requests advised, eval (%d requests) still warns:\n%s", n, got, w)
	}
}
