package optimize_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// pipelineReport optimises help-chat-turn.toml, a pipeline class, on
// 2000 requests a candidate, without the rollout check.
func pipelineReport(t *testing.T) *optimize.Report {
	t.Helper()
	sc, err := scenario.LoadFS(scenarios.FS, "help-chat-turn.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := optimize.DefaultSettings()
	s.Requests = 2000
	s.CheckRequests = 0
	rep, err := optimize.Run(&sc.Config, s, optimize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestPipelineCandidatesWonByNull: a pipeline's turn is answered by
// several calls, each won in its step, so no candidate of a pipeline class
// has a share won by the primary or by copies: the JSON's
// won_by_primary_share and won_by_copies are null (they read 0 and [],
// "primary 0.0%").
func TestPipelineCandidatesWonByNull(t *testing.T) {
	rep := pipelineReport(t)
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Classes []struct {
			Class      string
			Candidates []map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	hedged := 0
	for _, cr := range got.Classes {
		for _, c := range cr.Candidates {
			if _, ok := c["steps"]; !ok {
				t.Fatalf("class %s, %s: no steps; want a pipeline candidate", cr.Class, c["label"])
			}
			if string(c["hedging"]) == "true" {
				hedged++
			}
			for _, k := range []string{"won_by_primary_share", "won_by_copies"} {
				if v, ok := c[k]; !ok || string(v) != "null" {
					t.Errorf("class %s, %s: %s is %s (present %v); want null", cr.Class, c["label"], k, v, ok)
				}
			}
		}
	}
	if hedged == 0 {
		t.Fatal("no hedged candidate")
	}
	if w := rep.Classes[0].Picked().WhoAnswered(); w != "" {
		t.Errorf("WhoAnswered of the pick is %q; want \"\"", w)
	}
}

// TestPipelineCSVNoDelayCopies: candidates.csv leaves a pipeline
// candidate's delay_s and copies empty (they read 0 and 0 beside
// hedging=true): its policy is per step, in its label.
func TestPipelineCSVNoDelayCopies(t *testing.T) {
	rep := pipelineReport(t)
	var cb bytes.Buffer
	if err := rep.WriteCSV(&cb); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&cb).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int { return slices.Index(rows[0], name) }
	hc, dc, cc, lc := col("hedging"), col("delay_s"), col("copies"), col("label")
	hedged := 0
	for _, r := range rows[1:] {
		if r[hc] == "true" {
			hedged++
		}
		if r[dc] != "" || r[cc] != "" {
			t.Errorf("CSV row %s (hedging %s): delay_s %q, copies %q; want both empty", r[lc], r[hc], r[dc], r[cc])
		}
	}
	if hedged == 0 {
		t.Fatal("no hedged row in the CSV")
	}
}
