package optimize_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// TestWithinShareNullWithoutTarget pins the bug where, under objective
// p95, every candidate's JSON had "answered_within_target_share": 0
// although the objective has no target: the share is now null there, and
// a number under objective answered, which has one. candidates.csv says
// the same: an empty field where the JSON has null, and the JSON's number
// where it has one.
func TestWithinShareNullWithoutTarget(t *testing.T) {
	sc, err := scenario.Load("testdata/noise-cut.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		objective string
		target    time.Duration
		null      bool
	}{{"p95", 0, true}, {"answered", 3 * time.Second, false}} {
		s := sc.Optimize
		s.Requests, s.CheckRequests = 1000, 0
		if err := s.Search.Objective.SetName(tc.objective); err != nil {
			t.Fatal(err)
		}
		s.Search.Objective.Target = tc.target
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
				Candidates []map[string]json.RawMessage `json:"candidates"`
			} `json:"classes"`
		}
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		for _, c := range back.Classes[0].Candidates {
			v, ok := c["answered_within_target_share"]
			if !ok {
				t.Fatalf("%s: a candidate has no answered_within_target_share", tc.objective)
			}
			if isNull := string(v) == "null"; isNull != tc.null {
				t.Errorf("%s: candidate %s has answered_within_target_share %s; want null %v", tc.objective, c["label"], v, tc.null)
			}
		}
		var buf bytes.Buffer
		if err := rep.WriteCSV(&buf); err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(&buf).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		col := slices.Index(rows[0], "answered_within_target_share")
		if col < 0 || len(rows)-1 != len(back.Classes[0].Candidates) {
			t.Fatalf("%s: csv header %v, %d rows for %d candidates", tc.objective, rows[0], len(rows)-1, len(back.Classes[0].Candidates))
		}
		for i, row := range rows[1:] {
			want := string(back.Classes[0].Candidates[i]["answered_within_target_share"])
			if want == "null" {
				want = ""
			}
			got := row[col]
			if got != want && !(want != "" && got != "" && sameFloat(t, got, want)) {
				t.Errorf("%s: candidate %s: csv answered_within_target_share %q, JSON %s", tc.objective, row[1], got, want)
			}
		}
		// A report read back (as export and compare read it) keeps its
		// figures: null reads as no share.
		var cr struct {
			Classes []optimize.ClassReport `json:"classes"`
		}
		if err := json.Unmarshal(data, &cr); err != nil {
			t.Fatalf("%s: reading the report back: %v", tc.objective, err)
		}
	}
}

// sameFloat reports whether the decimal texts a and b (the CSV's 12
// significant digits and the JSON's shortest form) are the same number
// to 12 significant digits.
func sameFloat(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y float64
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatalf("%q: %v", a, err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatalf("%q: %v", b, err)
	}
	return strconv.FormatFloat(x, 'g', 12, 64) == strconv.FormatFloat(y, 'g', 12, 64)
}
