package optimize_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// TestUndecidedShowsWhatRollsOut: an undecided class has no pick, and what
// export and --write-scenario roll out is its configured policy. When the
// sweep did not simulate that policy (a fixed 1 s delay the grid does not
// hold), the summary row says "configured" with no after-figures and the
// policy's spend is n/a (JSON null) beside the class's rate and no
// hedging's spend, with a line saying the rollout check has its
// cost, not no hedging's "+0.0%" and "$0 added"; when the sweep has a
// "configured" candidate (breaker-outage's fallback copies), the spend is
// that candidate's at the class's rate; and a class configured without
// hedging rolls out no hedging (TestPickSpendClosedLoop).
func TestUndecidedShowsWhatRollsOut(t *testing.T) {
	sc, err := scenario.Parse("base.toml", []byte(`requests = 2000
[arrivals]
rate = 10
[models.a]
latency = { kind = "lognormal", median = 0.5, p95 = 2.0 }
price_per_request = 0.001
[[classes]]
name = "c"
deadline = "10s"
[classes.hedge]
delay = "1s"
`))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 30, 300
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
	cr := &rep.Classes[0]
	if !cr.Verdict.Undecided || cr.RolledOut() != nil {
		t.Fatalf("verdict %+v, rolled out %v; the test needs an undecided class whose configured policy the sweep did not simulate", cr.Verdict, cr.RolledOut())
	}
	// The class's rate and no hedging's spend are known, the configured
	// policy's is not (TestUnsweptConfiguredSpendKnownFigures).
	if sp := cr.Spend; sp.NoRate || !sp.NoPickCost || sp.RequestsPerSecond != 10 || sp.NoHedgingPerMonth <= 0 {
		t.Errorf("spend %+v; want 10 req/s and no hedging's spend, the policy rolled out n/a: it was not simulated", cr.Spend)
	}
	var text, js bytes.Buffer
	if err := rep.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(text.String(), "\n") {
		if strings.HasPrefix(l, "c ") {
			row = l
			break
		}
	}
	if !strings.Contains(row, "configured") || strings.Contains(row, "+0.0%") || strings.Contains(row, "0.0%  1.000") {
		t.Errorf("summary row %q; want the configured policy, without no hedging's figures", row)
	}
	for _, want := range []string{"undecided, so its configured policy rolls out", "its cost is the rollout check's"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	var out struct {
		Classes []struct {
			Spend struct {
				PerMonth *float64 `json:"per_month"`
			} `json:"spend_usd"`
		} `json:"classes"`
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if out.Classes[0].Spend.PerMonth != nil {
		t.Errorf("JSON spend per month %g; want null", *out.Classes[0].Spend.PerMonth)
	}

	// breaker-outage at 1000 requests: undecided, with a configured
	// candidate (TestRolloutUndecidedRunsConfigured).
	bo, err := scenario.LoadFS(scenarios.FS, "breaker-outage.toml")
	if err != nil {
		t.Fatal(err)
	}
	s = bo.Optimize
	s.Requests, s.CheckRequests = 1000, 1000
	rep = mustRun(t, &bo.Config, s, optimize.Options{Workers: 2})
	for i := range rep.Classes {
		cr := &rep.Classes[i]
		conf := cr.RolledOut()
		if !cr.Verdict.Undecided || conf == nil || !conf.Configured {
			t.Fatalf("class %s: verdict %+v; the test needs it undecided with a configured candidate", cr.Class, cr.Verdict)
		}
		share := 0.0
		for _, cl := range bo.Config.Classes {
			if cl.Name == cr.Class {
				share = cl.Share
			}
		}
		// Exact up to rounding: the spend is the candidate's cost per 1k
		// × the class's rate × 86.4 (thousands of requests a day per req/s).
		want := conf.CostPer1kUSD * bo.Config.Arrivals.Rate * share * 86.4
		if cr.Spend.NoRate || math.Abs(cr.Spend.PerDay-want) > 1e-9*want {
			t.Errorf("class %s: spend %+v; want the configured candidate's $%g a day", cr.Class, cr.Spend, want)
		}
	}
}

// TestUndecidedClosedLoopSpendShowsNoHedging: a class of closed-loop
// clients, undecided, whose configured policy (a 2 s delay to another
// model) the sweep did not simulate: the rate its clients would reach
// under that policy is unknown, and so is its spend (n/a, JSON null), but
// no hedging's throughput and spend were simulated and are shown, as an
// open-loop class's are. Regression: the whole row was n/a.
func TestUndecidedClosedLoopSpendShowsNoHedging(t *testing.T) {
	sc, err := scenario.Parse("closed.toml", []byte(`seed = 3
requests = 3000
[providers.gpu]
concurrency = 8
[providers.api]
[models.m]
provider = "gpu"
latency = { kind = "lognormal", median = 0.8, p95 = 3.0 }
price_input_per_mtok = 0.2
price_output_per_mtok = 0.4
[models.h]
provider = "api"
latency = { kind = "lognormal", median = 1.0, p95 = 2.0 }
price_input_per_mtok = 1.0
price_output_per_mtok = 3.0
[[classes]]
name = "eval"
clients = 12
think_time = "0.5s"
input_tokens = { kind = "constant", value = 1000 }
output_tokens = { kind = "constant", value = 200 }
deadline = "20s"
[classes.hedge]
primary = "m"
targets = ["h"]
delay = "2s"
max_copies = 1
`))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 600, 600
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
	cr := &rep.Classes[0]
	if !cr.Verdict.Undecided || cr.RolledOut() != nil {
		t.Fatalf("verdict %+v, rolled out %v; the test needs an undecided class whose configured policy the sweep did not simulate", cr.Verdict, cr.RolledOut())
	}
	base := cr.Baseline()
	// Exact up to rounding: no hedging's cost per 1k × its throughput × 86.4.
	want := base.CostPer1kUSD * cr.Spend.NoHedgingRequestsPerSecond * 86.4
	if sp := cr.Spend; sp.NoRate || !sp.NoPickCost || !sp.NoPickRate || !(sp.NoHedgingRequestsPerSecond > 0) ||
		!(want > 0) || math.Abs(sp.NoHedgingPerDay-want) > 1e-9*want {
		t.Errorf("spend %+v; want no hedging's throughput and its $%g a day, the configured policy's rate and spend n/a", sp, want)
	}
	var text, js bytes.Buffer
	if err := rep.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var row string
	lines := strings.Split(text.String(), "\n")
	for i, l := range lines {
		if strings.Contains(l, "spend of the pick at throughput") && i+1 < len(lines) {
			row = lines[i+1]
		}
	}
	if f := strings.Fields(row); len(f) != 7 || f[0] != "eval" || f[1] != "n/a" || f[2] != "n/a" || f[3] != "n/a" ||
		f[4] != sim.Dollars(cr.Spend.NoHedgingPerDay) || f[5] != sim.Dollars(cr.Spend.NoHedgingPerMonth) || f[6] != "n/a" {
		t.Errorf("spend row %q; want the configured policy's rate and spend n/a, no hedging's dollars", row)
	}
	var out struct {
		Classes []struct {
			Spend struct {
				Rate     *float64 `json:"requests_per_s"`
				PerMonth *float64 `json:"per_month"`
				NoHedge  *float64 `json:"no_hedging_per_month"`
			} `json:"spend_usd"`
		} `json:"classes"`
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if sp := out.Classes[0].Spend; sp.Rate != nil || sp.PerMonth != nil || sp.NoHedge == nil {
		t.Errorf("JSON spend: rate %v, per month %v, no hedging per month %v; want null, null and no hedging's", sp.Rate, sp.PerMonth, sp.NoHedge)
	}
}
