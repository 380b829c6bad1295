package optimize_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// TestAdaptiveCSVHasNoDelay pins the bug where candidates.csv gave the
// "adaptive pNN" rows delay_s = the class's configured static delay (2 s
// in noise-cut), which their adaptive delay replaces: the row's delay_s is
// now empty, as its text row shows its label in the delay column, and
// every candidate whose JSON has an adaptive object has an empty delay_s,
// every other its JSON delay_s.
func TestAdaptiveCSVHasNoDelay(t *testing.T) {
	sc, err := scenario.Load("testdata/noise-cut.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 1000, 0
	s.Search.Adaptive = []float64{0.9, 0.95}
	rep, err := optimize.Run(&sc.Config, s, optimize.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Classes []struct {
			Candidates []struct {
				Label    string          `json:"label"`
				Adaptive json.RawMessage `json:"adaptive"`
				DelayS   float64         `json:"delay_s"`
			} `json:"candidates"`
		} `json:"classes"`
	}
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(rows[0], "delay_s")
	cands := back.Classes[0].Candidates
	if col < 0 || len(rows) != 1+len(cands) {
		t.Fatalf("CSV header %v, %d rows; want delay_s and %d candidates", rows[0], len(rows)-1, len(cands))
	}
	adaptive := 0
	for i, c := range cands {
		got := rows[1+i][col]
		if len(c.Adaptive) > 0 {
			adaptive++
			if got != "" {
				t.Errorf("%s: delay_s %q; want empty (its delay is adaptive, JSON delay_s %g is the static one it replaces)", c.Label, got, c.DelayS)
			}
			continue
		}
		if want := strconv.FormatFloat(c.DelayS, 'g', 12, 64); got != want {
			t.Errorf("%s: delay_s %q; want the JSON's %s", c.Label, got, want)
		}
	}
	if adaptive != 2 {
		t.Errorf("%d adaptive candidates; want 2 (p90, p95)", adaptive)
	}
}
