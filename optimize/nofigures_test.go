package optimize_test

import (
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// TestClassWithoutRequestsHasNoFigures: a class no request fell in has no
// latencies and no cost either, wherever it is reported: its candidates'
// latencies and costs are empty in the CSV (not NaN, not 0) and its costs
// null in JSON; its spend keeps its rate, its dollars n/a (null in
// spend_usd); its summary row,
// candidate table, why-not lines and rollout-check row show "-", never
// "+0.0%", "$0" or "$0.0000", and its spend line says it rolls out with no
// figures (not "at the sweep's figures for it"); the rollout check's
// predicted added cost is null. So is a class too rare to be simulated:
// its summary row's answered share is "-", not "0.0% → -", and its rollout
// check's predicted answered share null, not 0. The class beside it keeps
// its numbers.
func TestClassWithoutRequestsHasNoFigures(t *testing.T) {
	rep := tinyShare(t)
	if rep.Classes[1].Class != "rare" || rep.Classes[1].Requests != 0 {
		t.Fatalf("class %s with %d requests; want rare with none", rep.Classes[1].Class, rep.Classes[1].Requests)
	}

	var csvOut strings.Builder
	if err := rep.WriteCSV(&csvOut); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(csvOut.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"p50_s", "p90_s", "p95_s", "p99_s", "p99_9_s", "mean_s", "cost_per_1k_usd", "added_cost_pct", "added_calls_pct"}
	for _, row := range rows[1:] {
		for _, k := range keys {
			v := row[slices.Index(optimize.CSVHeader, k)]
			if row[0] == "rare" && v != "" {
				t.Errorf("rare, candidate %s in CSV: %s = %q; want empty", row[1], k, v)
			}
			if row[0] == "big" && v == "" {
				t.Errorf("big, candidate %s in CSV: %s empty; want a number", row[1], k)
			}
		}
	}

	var js strings.Builder
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Classes []struct {
			Candidates []map[string]any `json:"candidates"`
			Spend      map[string]any   `json:"spend_usd"`
		} `json:"classes"`
		Rollout struct {
			Classes []map[string]any `json:"classes"`
		} `json:"rollout_check"`
	}
	if err := json.Unmarshal([]byte(js.String()), &back); err != nil {
		t.Fatal(err)
	}
	for _, c := range back.Classes[1].Candidates {
		for _, k := range []string{"cost_per_1k_usd", "added_cost_pct", "added_calls_pct"} {
			if v, ok := c[k]; !ok || v != nil {
				t.Errorf("rare, candidate %v: %s = %v (present %v); want null", c["label"], k, v, ok)
			}
		}
	}
	if _, ok := back.Classes[0].Candidates[0]["cost_per_1k_usd"].(float64); !ok {
		t.Errorf("big, candidate none: cost_per_1k_usd = %v; want a number", back.Classes[0].Candidates[0]["cost_per_1k_usd"])
	}
	if v, ok := back.Classes[1].Spend["per_month"]; !ok || v != nil {
		t.Errorf("rare's spend_usd %v; want its dollar figures null", back.Classes[1].Spend)
	}
	if _, ok := back.Classes[1].Spend["requests_per_s"].(float64); !ok {
		t.Errorf("rare's spend_usd %v; want its rate", back.Classes[1].Spend)
	}
	if v, ok := back.Rollout.Classes[1]["predicted_added_cost_pct"]; !ok || v != nil {
		t.Errorf("rollout check of rare: predicted_added_cost_pct = %v (present %v); want null", v, ok)
	}

	var text strings.Builder
	if err := rep.WriteText(&text, true); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "rare" && (strings.Contains(line, "+0.0") || strings.Contains(line, "$0")) {
			t.Errorf("a row of rare gives a cost: %q", line)
		}
	}
	section := out[strings.Index(out, "\nrare: "):]
	section = section[:strings.Index(section, "\nrollout check")]
	for _, line := range strings.Split(section, "\n") {
		if strings.Contains(line, "+0.0") || strings.Contains(line, "$0") {
			t.Errorf("rare's section gives a cost: %q", line)
		}
	}
	if !strings.Contains(out, "rare: undecided, so its configured policy rolls out (export and --write-scenario keep it), with no figures: no request of the class fell in the sweep") {
		t.Errorf("the spend lines do not say rare rolls out with no figures:\n%s", out)
	}

	// A class too rare to simulate.
	sc, err := scenario.Parse("tiny.toml", []byte(rareAloneScenario))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 100, 100
	rep = mustRun(t, &sc.Config, s, optimize.Options{Workers: 1})
	text.Reset()
	if err := rep.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(text.String(), "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "rare" && zeroShare.MatchString(line) {
			t.Errorf("a row of the unsimulated rare claims a share: %q", line)
		}
	}
	js.Reset()
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(js.String()), &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"predicted_answered_share", "predicted_added_cost_pct"} {
		if v, ok := back.Rollout.Classes[1][k]; !ok || v != nil {
			t.Errorf("rollout check of the unsimulated rare: %s = %v (present %v); want null", k, v, ok)
		}
	}
}
