package optimize_test

import (
	"encoding/csv"
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
)

// zeroShare matches a share of 0 as the text prints it ("0.0%", "0.00%"),
// not an added cost ("+0.0%").
var zeroShare = regexp.MustCompile(`(^|\s)0\.0+%`)

// TestClassWithoutRequestsHasNoShares: a class no request fell in has no
// answered, hedged or met share and no attempts per request — a share of
// nothing is not 0: its candidates write them null in JSON, empty in the
// CSV and "-" in the text (the summary row, the candidate table, who
// answered), and so does the rollout check for its answered shares; the
// class beside it keeps its numbers.
func TestClassWithoutRequestsHasNoShares(t *testing.T) {
	rep := tinyShare(t)
	if rep.Classes[1].Class != "rare" || rep.Classes[1].Requests != 0 {
		t.Fatalf("class %s with %d requests; want rare with none", rep.Classes[1].Class, rep.Classes[1].Requests)
	}

	var js strings.Builder
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Classes []struct {
			Candidates []map[string]any `json:"candidates"`
		} `json:"classes"`
		Rollout struct {
			Classes []map[string]any `json:"classes"`
		} `json:"rollout_check"`
	}
	if err := json.Unmarshal([]byte(js.String()), &back); err != nil {
		t.Fatal(err)
	}
	shares := []string{"answered_share", "hedged_share", "attempts_per_request", "answered_within_target_share", "won_by_primary_share", "met_share"}
	for _, c := range back.Classes[1].Candidates {
		for _, k := range shares {
			if v, ok := c[k]; !ok || v != nil {
				t.Errorf("rare, candidate %v: %s = %v (present %v); want null", c["label"], k, v, ok)
			}
		}
	}
	for _, k := range shares {
		if k == "answered_within_target_share" {
			// big's objective, p95, has no target: no share within it
			// (TestWithinShareNullWithoutTarget).
			if v, ok := back.Classes[0].Candidates[0][k]; !ok || v != nil {
				t.Errorf("big, candidate none: %s = %v (present %v); want null: its objective has no target", k, v, ok)
			}
			continue
		}
		if _, ok := back.Classes[0].Candidates[0][k].(float64); !ok {
			t.Errorf("big, candidate none: %s = %v; want a number", k, back.Classes[0].Candidates[0][k])
		}
	}
	for _, k := range []string{"answered_share", "no_hedging_answered_share", "predicted_answered_share"} {
		if v, ok := back.Rollout.Classes[1][k]; !ok || v != nil {
			t.Errorf("rollout check of rare: %s = %v (present %v); want null", k, v, ok)
		}
	}
	// big is undecided at 2000 requests, and the sweep did not simulate
	// its configured 1 s delay: the check's shares are numbers, its
	// prediction null (TestUnsweptConfiguredSpendKnownFigures).
	if back.Rollout.Classes[0]["unswept"] != true {
		t.Fatalf("rollout check of big: %v; want its configured policy, unswept", back.Rollout.Classes[0])
	}
	for _, k := range []string{"answered_share", "no_hedging_answered_share"} {
		if _, ok := back.Rollout.Classes[0][k].(float64); !ok {
			t.Errorf("rollout check of big: %s = %v; want a number", k, back.Rollout.Classes[0][k])
		}
	}
	if v, ok := back.Rollout.Classes[0]["predicted_answered_share"]; !ok || v != nil {
		t.Errorf("rollout check of big: predicted_answered_share = %v (present %v); want null: nothing predicted", v, ok)
	}

	var csvOut strings.Builder
	if err := rep.WriteCSV(&csvOut); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(csvOut.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[1:] {
		if row[0] != "rare" {
			continue
		}
		for _, k := range []string{"answered_share", "hedged_share", "attempts_per_request", "answered_within_target_share"} {
			if v := row[slices.Index(optimize.CSVHeader, k)]; v != "" {
				t.Errorf("rare, candidate %s in CSV: %s = %q; want empty", row[1], k, v)
			}
		}
	}

	var text strings.Builder
	if err := rep.WriteText(&text, true); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	section := out[strings.Index(out, "\nrare: "):]
	section = section[:strings.Index(section, "\nrollout check")]
	for _, line := range strings.Split(section, "\n") {
		if zeroShare.MatchString(line) || strings.Contains(line, "0.000 ") {
			t.Errorf("rare's section claims a share: %q", line)
		}
	}
	if !strings.Contains(section, "who answered: -; answered: - → -") {
		t.Errorf("rare's section lacks %q:\n%s", "who answered: -; answered: - → -", section)
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == "rare" && zeroShare.MatchString(line) {
			t.Errorf("summary row of rare claims a share: %q", line)
		}
		if len(f) > 1 && f[0] == "rare" && f[1] == "configured" && zeroShare.MatchString(line) {
			t.Errorf("rollout check row of rare claims an answered share: %q", line)
		}
	}
}

// TestClassWithoutRequestsHasNoGain: the verdict of a class no request
// fell in has no gain — a fall of nothing is unknown, not 0 — so its
// gain_pct is null in JSON, like its unanswered shares, while the class
// beside it keeps a number. (The text, the CSV and the HTML page print
// no gain_pct.) So has a class too rare to be swept alone, which was not
// simulated. Before, both were 0.
func TestClassWithoutRequestsHasNoGain(t *testing.T) {
	for _, src := range []string{tinyShareScenario, rareAloneScenario} {
		checkNoGain(t, src)
	}
}

// checkNoGain optimizes the scenario src, whose second class, rare, gets
// no requests, and checks that its verdict's figures are null.
func checkNoGain(t *testing.T, src string) {
	t.Helper()
	sc, err := scenario.Parse("tiny.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 2000, 0
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
	if rep.Classes[1].Class != "rare" || rep.Classes[1].Requests != 0 {
		t.Fatalf("class %s with %d requests; want rare with none", rep.Classes[1].Class, rep.Classes[1].Requests)
	}
	var js strings.Builder
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Classes []struct {
			Verdict map[string]any `json:"verdict"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(js.String()), &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"gain_pct", "unanswered_share_before", "unanswered_share_after"} {
		if v, ok := back.Classes[1].Verdict[k]; !ok || v != nil {
			t.Errorf("rare's verdict (swept alone: %v): %s = %v (present %v); want null", rep.Classes[1].NotSimulated() != "", k, v, ok)
		}
		if _, ok := back.Classes[0].Verdict[k].(float64); !ok {
			t.Errorf("big's verdict: %s = %v; want a number", k, back.Classes[0].Verdict[k])
		}
	}
}

// TestVerdictJSONKeepsItsFields: Verdict.MarshalJSON, which writes the
// NaN figures null, writes every field of Verdict with its JSON name and
// in the struct's order, as encoding/json would.
func TestVerdictJSONKeepsItsFields(t *testing.T) {
	var want []string
	rt := reflect.TypeOf(optimize.Verdict{})
	for i := range rt.NumField() {
		if tag := rt.Field(i).Tag.Get("json"); tag != "" && tag != "-" {
			want = append(want, strings.Split(tag, ",")[0])
		}
	}
	b, err := json.Marshal(optimize.Verdict{Undecided: true, SLAMissed: true, GainPct: 1, UnansweredBefore: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	var got []string
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, k.(string))
		var skip any
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("keys %q; want %q", got, want)
	}
}
