package sim_test

import (
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

func TestTraceCSV(t *testing.T) {
	r := sim.AttemptRecord{Request: 3, Class: `a,"b"`, Attempt: 1, Model: "m", Start: 1500 * time.Millisecond,
		End: 2 * time.Second, Outcome: "cancelled", BilledInput: 100, BilledOutput: 7, CostUSD: 0.0001, Round: 2, Try: 3}
	b := []byte(sim.TraceCSVHeader)
	b = r.AppendCSV(b)
	rows, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"3", `a,"b"`, "1", "m", "1.5", "2", "cancelled", "false", "100", "7", "0.0001", "2", "3"}
	if len(rows) != 2 || strings.Join(rows[1], "|") != strings.Join(want, "|") {
		t.Errorf("rows %q, want header and %q", rows, want)
	}
	if len(rows[0]) != len(want) {
		t.Errorf("header has %d columns, row %d", len(rows[0]), len(want))
	}
}
