package optimize_test

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestPipelineSharesNoneAndHedged: a pipeline class's runs are not paired
// request by request with no hedging, so a hedging candidate's
// rescued_share and harmed_share are null and their intervals absent;
// its no-hedging candidate ("none") is no hedging itself, which rescues
// and harms nothing: 0 and 0, with intervals. met_share is measured for
// every candidate (here, without an SLO, the answered share), never null,
// and has its interval.
func TestPipelineSharesNoneAndHedged(t *testing.T) {
	rep := pipelineReport(t)
	if rep.Classes[0].SLOSeconds != 0 {
		t.Fatalf("slo %v; the test reads met_share as the answered share", rep.Classes[0].SLOSeconds)
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Classes []struct {
			Candidates []map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	hedged := 0
	for i, c := range got.Classes[0].Candidates {
		label := string(c["label"])
		if _, ok := c["steps"]; !ok {
			t.Fatalf("%s: no steps; want a pipeline candidate", label)
		}
		if string(c["met_share"]) != string(c["answered_share"]) || string(c["met_share"]) == "null" {
			t.Errorf("%s: met_share %s, answered_share %s; want the same share", label, c["met_share"], c["answered_share"])
		}
		if ci, ok := c["met_share_ci95"]; !ok || string(ci) == "null" {
			t.Errorf("%s: met_share_ci95 %s (present %v); want an interval", label, ci, ok)
		}
		if i == 0 {
			if string(c["hedging"]) != "false" {
				t.Fatalf("the first candidate %s hedges; want none", label)
			}
			for _, k := range []string{"rescued_share", "harmed_share"} {
				if string(c[k]) != "0" {
					t.Errorf("none: %s is %s; want 0 (no hedging against itself)", k, c[k])
				}
				if ci, ok := c[k+"_ci95"]; !ok || string(ci) == "null" {
					t.Errorf("none: %s_ci95 %s (present %v); want an interval", k, ci, ok)
				}
			}
			continue
		}
		if string(c["hedging"]) != "true" {
			continue
		}
		hedged++
		for _, k := range []string{"rescued_share", "harmed_share"} {
			if v, ok := c[k]; !ok || string(v) != "null" {
				t.Errorf("%s: %s is %s (present %v); want null, the runs not paired", label, k, v, ok)
			}
			if ci, ok := c[k+"_ci95"]; ok {
				t.Errorf("%s: %s_ci95 is %s; want it absent", label, k, ci)
			}
		}
	}
	if hedged == 0 {
		t.Fatal("no hedged candidate")
	}
}
