package sim_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
)

// fromZero is a pool autoscaled from zero replicas up at time 0
// (initial_replicas = 0), that fails an attempt finding no replica: a
// request every 20 s, each replica 20–60 s to start. The first requests
// fail while the first replica starts; after that one replica stays up
// (the grace outlasts the gap between requests), so MSER would take the
// failures for a warm-up and cut them.
const fromZero = `seed = 1
requests = 200
[arrivals]
process = "constant"
rate = 0.05
[providers.gpu.pool]
concurrency = 4
[providers.gpu.pool.autoscale]
min_replicas = 0
initial_replicas = 0
max_replicas = 2
target_concurrency = 1
scale_to_zero_grace = "59.6s"
no_capacity = "fail"
[providers.gpu.pool.cold_start]
latency = { kind = "uniform", min = 20.0, max = 60.0 }
[models.m]
provider = "gpu"
latency = { kind = "constant", value = 0.5 }
[[classes]]
name = "c"
`

// TestPoolFromZeroIsNotCut: a pool the scenario starts at zero replicas
// is in the state it asks about from the start — its cold-start failures
// are the figures, not a warm-up — so no warm-up is cut, and the answered
// share is that of all 200 requests: the failed ones are misses.
func TestPoolFromZeroIsNotCut(t *testing.T) {
	sc, err := scenario.Parse("s.toml", []byte(fromZero))
	if err != nil {
		t.Fatal(err)
	}
	r := report(t, &sc.Config)
	c := r.Classes[0]
	if c.Errors == 0 {
		t.Fatalf("no request failed for want of capacity: the scenario no longer tests the cut")
	}
	if c.WarmUp == nil || c.WarmUp.Requests != 0 {
		t.Fatalf("warm-up %+v: want a batched row with no cut", c.WarmUp)
	}
	// The rule says what was done, here and overall: no cut, and why.
	// Regression: it named MSER on 1000 arrival sections, never applied.
	const why = "none: a pool autoscaled from zero replicas starts in the state the scenario asks about"
	if o := r.Overall; c.WarmUp.Rule != why || o.WarmUp == nil || o.WarmUp.Rule != why {
		t.Errorf("warm-up rule %q, overall %+v: want %q", c.WarmUp.Rule, o.WarmUp, why)
	}
	want := float64(c.Answered) / float64(c.Requests)
	if c.AnsweredShare != want || c.Answered+c.Errors != c.Requests {
		t.Errorf("answered share %v of %d requests, %d answered, %d errors: want %v, every request counted",
			c.AnsweredShare, c.Requests, c.Answered, c.Errors, want)
	}
	if c.Latency.P99 < 1e300 && c.Errors*100 > c.Requests {
		t.Errorf("p99 %v with %d of %d requests failed: want a miss", c.Latency.P99, c.Errors, c.Requests)
	}
}

// TestOutcomesRowCountsOneRun: the text report's outcomes row gives the
// answered shares of the requests it counts — the whole run's — beside
// its errors, also when a warm-up cut leaves some requests out of the
// latency figures (a fixed pool starts warm, so the kserve example of
// pools.md, a request every 4 minutes to a replica that goes cold after
// 2, answers its first request and cuts it). The share after the cut is
// on the row's batched line.
func TestOutcomesRowCountsOneRun(t *testing.T) {
	sc, err := scenario.Parse("s.toml", []byte(`seed = 1
requests = 40
[arrivals]
process = "constant"
rate = 0.004166666666666667
[providers.gpu.pool]
replicas = 1
[providers.gpu.pool.cold_start]
keep_warm = "2m"
latency = { kind = "constant", value = 180.0 }
give_up = "scale_to_zero"
[models.llm]
provider = "gpu"
latency = { kind = "constant", value = 0.1 }
[[classes]]
name = "chat"
deadline = "30s"
`))
	if err != nil {
		t.Fatal(err)
	}
	r := report(t, &sc.Config)
	c := r.Classes[0]
	if c.Requests != 40 || c.Answered != 1 || c.TimeoutsFailOpen+c.TimeoutsFailClosed != 39 || c.WarmUp == nil || c.WarmUp.Requests != 1 ||
		c.WarmUp.Rule != "MSER (White) on the means of 1000 arrival sections" {
		t.Fatalf("%d requests, %d answered, %d+%d timed out, warm-up %+v: want 40, 1 (the first, cut), 39",
			c.Requests, c.Answered, c.TimeoutsFailOpen, c.TimeoutsFailClosed, c.WarmUp)
	}
	if c.NoHedging.Requests != 40 || c.NoHedging.Answered != 1 {
		t.Errorf("no hedging: %d requests, %d answered: want 40 and 1", c.NoHedging.Requests, c.NoHedging.Answered)
	}
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(buf.String(), "\n") {
		if f := strings.Fields(l); len(f) > 3 && f[0] == "chat" && f[1] == "40" {
			row = l
		}
	}
	if f := strings.Fields(row); len(f) < 4 || f[2] != "2.5%" || f[3] != "2.5%" {
		t.Errorf("outcomes row %q: want answered 2.5%% (1 of 40) with and without hedging\n%s", row, buf.String())
	}
	if !strings.Contains(buf.String(), "chat: warm-up cut: the first 1 requests") || !strings.Contains(buf.String(), "answered 0.0% [") {
		t.Errorf("want the cut and the share after it on the batched line:\n%s", buf.String())
	}
	// The footnote said the answered share leaves out the warm-up cut —
	// true of the batched line and the JSON, not of the outcomes row
	// above it (2.5 % here, 0.0 % after the cut). It now says which
	// counts which; the JSON's rule, right for the JSON, is unchanged.
	note := "the outcomes table counts every request of the run, its answered shares too; " +
		"the answered share after the warm-up cut (JSON answered_share) is on each class's warm-up line below, with its interval."
	if text := strings.Join(strings.Fields(buf.String()), " "); !strings.Contains(text, "leave out the warm-up cut, and each ci95 comes from batch means of arrival-ordered requests; "+note) {
		t.Errorf("the footnote does not say what the outcomes row counts; want %q:\n%s", note, buf.String())
	}
	if strings.Contains(r.QuantileRule, "outcomes table") {
		t.Errorf("JSON quantile_rule %q names the text's outcomes table", r.QuantileRule)
	}
}
