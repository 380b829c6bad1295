package optimize_test

import (
	"bytes"
	"encoding/csv"
	"slices"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// TestCSVLeavesUnsupportedIntervalsEmpty pins candidates.csv giving p95
// and p99 bounds that too few requests support (p95_ci95_ok false in
// JSON, "n/a" in the text) as if they were intervals: their bounds are
// now empty, and a supported interval keeps its bounds.
func TestCSVLeavesUnsupportedIntervalsEmpty(t *testing.T) {
	lat := sim.Latency{P50: 1, P90: 2, P95: 3, P95CI95: [2]float64{2.5, 3.5}, P99: 4, P99CI95: [2]float64{3.9, 4}, P999: 5, Mean: 1.5}
	rep := &optimize.Report{Classes: []optimize.ClassReport{{
		Class: "c", CostBasis: optimize.CostCalls,
		Candidates: []optimize.Candidate{
			{Label: "none", Requests: 400, Latency: lat, P95CIOK: true, P99CIOK: false},
			{Label: "1s", Hedging: true, Requests: 400, Latency: lat, P95CIOK: false, P99CIOK: false},
		},
	}}}
	var b bytes.Buffer
	if err := rep.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int { return slices.Index(optimize.CSVHeader, name) }
	want := [][4]string{
		{"2.5", "3.5", "", ""}, // p95 supported, p99 not
		{"", "", "", ""},
	}
	for i, w := range want {
		r := rows[1+i]
		got := [4]string{r[col("p95_ci_lo_s")], r[col("p95_ci_hi_s")], r[col("p99_ci_lo_s")], r[col("p99_ci_hi_s")]}
		if got != w {
			t.Errorf("%s: p95 and p99 bounds %q; want %q", r[col("label")], got, w)
		}
		if r[col("p95_s")] != "3" || r[col("p99_s")] != "4" {
			t.Errorf("%s: p95 %s, p99 %s; the percentiles themselves stay", r[col("label")], r[col("p95_s")], r[col("p99_s")])
		}
	}
}
