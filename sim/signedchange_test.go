package sim

import (
	"math"
	"strings"
	"testing"
)

// TestSignedChange: a change that dec decimals would print as zero gets
// up to three more digits, so that its sign is true: an added cost of
// −0.03% prints "-0.03", not "+0.0". Zero has no sign; a change too small
// for dec+3 decimals keeps its sign at dec.
func TestSignedChange(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		dec  int
		want string
	}{
		{-0.03, 1, "-0.03"},
		{0.03, 1, "+0.03"},
		{-0.04, 1, "-0.04"},
		{0.0004, 1, "+0.0004"},
		{-0.00004, 1, "-0.0"},
		{0.00004, 1, "+0.0"},
		{0, 1, "+0.0"},
		{math.Copysign(0, -1), 1, "+0.0"},
		{-0.05000001, 1, "-0.1"},
		{9.84, 1, "+9.8"},
		{-40.66, 1, "-40.7"},
		{-0.004, 2, "-0.004"},
		{10.04, 2, "+10.04"},
		{0, 2, "+0.00"},
		{-0.0002, 2, "-0.0002"},
		{-0.0000002, 3, "-0.000"},
		{-0.0002, 3, "-0.0002"},
		{0.0000006, 3, "+0.000001"},
		{math.NaN(), 1, "+NaN"},
	} {
		if got := SignedChange(tc.x, tc.dec); got != tc.want {
			t.Errorf("SignedChange(%g, %d) = %q; want %q", tc.x, tc.dec, got, tc.want)
		}
	}
}

// TestAddedCostKeepsItsSign: run's cost table and batched line print an
// added cost that one decimal would round to zero with the digits that
// keep its sign (SignedChange): −0.03 % is "-0.03%", not "+0.0%".
func TestAddedCostKeepsItsSign(t *testing.T) {
	added, lo, hi := -0.03, -0.04, -0.02
	c := ClassReport{Class: "chat", Requests: 1000, AddedCostPct: &added}
	var text strings.Builder
	if err := (&Report{Scenario: "s", Requests: 1000, Classes: []ClassReport{c}}).WriteText(&text); err != nil {
		t.Fatal(err)
	}
	var row []string
	inCost := false
	for _, l := range strings.Split(text.String(), "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && f[0] == "cost" {
			inCost = true
		}
		if inCost && len(f) > 0 && f[0] == "chat" {
			row = f
			break
		}
	}
	if len(row) < 6 || row[5] != "-0.03%" {
		t.Errorf("cost row %q; want added -0.03%%\n%s", row, text.String())
	}

	c.WarmUp, c.Batches = &WarmUp{}, &Batches{Count: 30, Size: 33}
	c.AddedCostPctCI95 = &[2]*float64{&lo, &hi}
	var batched strings.Builder
	writeBatched(&batched, []ClassReport{c})
	if want := "; added cost -0.03% [-0.04%, -0.02%]"; !strings.Contains(batched.String(), want) {
		t.Errorf("batched line %q; want it to hold %q", batched.String(), want)
	}
}
