package optimize_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// TestEveryCandidateHasAFate: on shared-rate-limit (two classes hedging
// into one rate-limited model, optimized jointly), every candidate of
// every class has a status — exactly one picked, the others eligible or
// rejected with at least one reason of a known code —, the JSON carries
// status and reasons, the CSV their codes, and the text a "why not" list
// of the best rejected candidates with their codes, and a note on the
// overloaded rate limit.
func TestEveryCandidateHasAFate(t *testing.T) {
	if testing.Short() {
		t.Skip("a 20 000-request joint sweep of shared-rate-limit: not in -short")
	}
	sc, err := scenario.LoadFS(scenarios.FS, "shared-rate-limit.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests = 20_000
	s.CheckRequests = 0
	rep := mustRun(t, &sc.Config, s, optimize.Options{})
	known := []string{optimize.ReasonCostCap, optimize.ReasonHedgedCap, optimize.ReasonAboveSLA, optimize.ReasonFewerAnswers,
		optimize.ReasonOverload, optimize.ReasonUnstable, optimize.ReasonFewerThanConfigured, optimize.ReasonFewerInCheck, optimize.ReasonFailsRule,
		optimize.ReasonTooFew, optimize.ReasonSlower, optimize.ReasonMoreUnanswered, optimize.ReasonCostlier, optimize.ReasonFewerWithin,
		optimize.ReasonNotKnee, optimize.ReasonCIOverlap}
	rejected := 0
	for _, cr := range rep.Classes {
		picked := 0
		for i, c := range cr.Candidates {
			switch c.Status {
			case optimize.StatusPicked:
				picked++
				if i != cr.Pick || len(c.Reasons) != 0 {
					t.Errorf("%s: candidate %s picked, with reasons %v; the pick is %d", cr.Class, c.Label, c.Reasons, cr.Pick)
				}
				continue
			case optimize.StatusRejected:
				rejected++
			case optimize.StatusEligible:
			default:
				t.Errorf("%s: candidate %s has status %q", cr.Class, c.Label, c.Status)
			}
			if len(c.Reasons) == 0 {
				t.Errorf("%s: candidate %s is %s without a reason", cr.Class, c.Label, c.Status)
			}
			for _, r := range c.Reasons {
				if !slices.Contains(known, r.Code) || r.Text == "" || r.Unit == "" {
					t.Errorf("%s: candidate %s: reason %+v", cr.Class, c.Label, r)
				}
			}
		}
		if picked != 1 {
			t.Errorf("%s: %d candidates picked; want 1", cr.Class, picked)
		}
	}
	if rejected == 0 {
		t.Fatal("no candidate rejected: the scenario's rate limit should refuse some")
	}
	var js, csvOut, text bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Classes []struct {
			Candidates []struct {
				Status  string `json:"status"`
				Reasons []struct {
					Code  string   `json:"code"`
					Value *float64 `json:"value"`
					Limit *float64 `json:"limit"`
					Unit  string   `json:"unit"`
					Text  string   `json:"text"`
				} `json:"reasons"`
			} `json:"candidates"`
		} `json:"classes"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if c := doc.Classes[0].Candidates[0]; c.Status == "" || c.Reasons == nil {
		t.Errorf("JSON candidate 0: %+v; want a status and a reasons array", c)
	}
	if err := rep.WriteCSV(&csvOut); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&csvOut).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if h := rows[0]; h[len(h)-2] != "status" || h[len(h)-1] != "reasons" {
		t.Errorf("CSV header ends %v", h[len(h)-2:])
	}
	if err := rep.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	// The sweep spans thousands of seconds, many refills of model b's
	// bucket: the candidates that overload it are judged on their measured
	// 429s, which cost answers.
	if !strings.Contains(text.String(), "  why not: ") || !strings.Contains(text.String(), "[fewer_answers]") ||
		!strings.Contains(text.String(), "overload the rate limit of model b") {
		t.Errorf("text has no why-not list, or no note on the overloaded rate limit:\n%s", text.String())
	}
}
