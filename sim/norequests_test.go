package sim_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

// TestClassWithoutRequestsNullInJSON: a class no request fell in (a share
// of 10⁻⁹ over 1000 requests) has no latencies and no shares: run's JSON
// writes its latency figures, end latencies, answered and hedged shares,
// attempts per request and no hedging's latencies and answered share as
// null, not 0, while the class beside it keeps its numbers.
func TestClassWithoutRequestsNullInJSON(t *testing.T) {
	_, rare, big := rareBesideBig(t)
	for _, k := range []string{"answered_share", "hedged_share", "attempts_per_request"} {
		if v, ok := rare[k]; !ok || v != nil {
			t.Errorf("rare: %s = %v (present %v); want null", k, v, ok)
		}
		if _, ok := big[k].(float64); !ok {
			t.Errorf("big: %s = %v; want a number", k, big[k])
		}
	}
	nh := rare["no_hedging"].(map[string]any)
	if v, ok := nh["answered_share"]; !ok || v != nil {
		t.Errorf("rare: no_hedging.answered_share = %v (present %v); want null", v, ok)
	}
	for _, f := range []struct {
		name string
		m    any
		keys []string
	}{
		{"latency_s", rare["latency_s"], []string{"mean", "p50", "p90", "p95", "p99", "p99_9"}},
		{"end_latency_s", rare["end_latency_s"], []string{"mean", "p50", "p95", "p99"}},
		{"no_hedging.latency_s", nh["latency_s"], []string{"mean", "p50", "p90", "p95", "p99", "p99_9"}},
	} {
		m := f.m.(map[string]any)
		for _, k := range f.keys {
			if v, ok := m[k]; !ok || v != nil {
				t.Errorf("rare: %s.%s = %v (present %v); want null", f.name, k, v, ok)
			}
		}
	}
	if p95, ok := big["latency_s"].(map[string]any)["p95"].(float64); !ok || !(p95 > 0) {
		t.Errorf("big: latency_s.p95 = %v; want seconds > 0", big["latency_s"].(map[string]any)["p95"])
	}
}

// TestClassWithoutRequestsHasNoCost: a class no request fell in has no
// cost per request, so none per 1000 requests: its cost_per_1k_usd and
// no_hedging.cost_per_1k_usd are null in JSON, and so are its spend's
// dollar figures (its rate stays), while the class beside it keeps
// figures; its row of the text's cost table is "-", as its spend row is.
// Before, both were $0.0000 and 0.
func TestClassWithoutRequestsHasNoCost(t *testing.T) {
	r, rare, big := rareBesideBig(t)
	for _, row := range []struct {
		name string
		m    map[string]any
	}{{"cost_per_1k_usd", rare}, {"no_hedging.cost_per_1k_usd", rare["no_hedging"].(map[string]any)}} {
		if v, ok := row.m["cost_per_1k_usd"]; !ok || v != nil {
			t.Errorf("rare: %s = %v (present %v); want null", row.name, v, ok)
		}
	}
	if _, ok := big["cost_per_1k_usd"].(map[string]any)["total"].(float64); !ok {
		t.Errorf("big: cost_per_1k_usd = %v; want figures", big["cost_per_1k_usd"])
	}
	spend := rare["spend_usd"].(map[string]any)
	for _, k := range []string{"per_day", "per_month", "no_hedging_per_day", "no_hedging_per_month"} {
		if v, ok := spend[k]; !ok || v != nil {
			t.Errorf("rare: spend_usd.%s = %v (present %v); want null", k, v, ok)
		}
	}
	if v, ok := spend["requests_per_s"].(float64); !ok || !(v > 0) {
		t.Errorf("rare: spend_usd.requests_per_s = %v; want its rate", spend["requests_per_s"])
	}
	if v, ok := big["spend_usd"].(map[string]any)["per_day"].(float64); !ok || !(v > 0) {
		t.Errorf("big: spend_usd.per_day = %v; want dollars", big["spend_usd"].(map[string]any)["per_day"])
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^ +rare( +-){6}\s*$`).MatchString(text.String()) {
		t.Errorf("rare's cost per 1k row: want every figure \"-\":\n%s", text.String())
	}
	if !regexp.MustCompile(`(?m)^ +big +\$0\.\d{4} +\$0\.\d{4} +\$0\.\d{4} +\$0\.\d{4} +[+-]\d+\.\d%`).MatchString(text.String()) {
		t.Errorf("big's cost per 1k row: want its figures:\n%s", text.String())
	}
}

// rareBesideBig runs 1000 requests of two classes, "big" and "rare",
// where rare's share of 10⁻⁹ gets no request, and returns the report and
// both classes' rows of its JSON read back as maps.
func rareBesideBig(t *testing.T) (r *sim.Report, rare, big map[string]any) {
	t.Helper()
	sc, err := scenario.Parse("tiny.toml", []byte(`seed = 1
requests = 1000
[arrivals]
rate = 100.0
[models.m]
latency = { kind = "lognormal", median = 0.5, p95 = 2.0 }
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
	cfg := &sc.Config
	r = sim.NewReport(cfg, mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg)))
	if r.Classes[1].Requests != 0 || r.Classes[0].Requests != 1000 {
		t.Fatalf("requests big %d, rare %d; want 1000 and 0", r.Classes[0].Requests, r.Classes[1].Requests)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Classes []map[string]any `json:"classes"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return r, back.Classes[1], back.Classes[0]
}
