package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRetuneAdaptiveWithinCostCap is a user's report: `hedgesim retune
// guard-check --from guard.prom --requests 10000 --check-requests 10000`
// (testdata/retune/guard.prom is the user's file: a Prometheus histogram
// of 3000 llama-guard calls, a quarter on the fast path where the
// scenario has half) changes the current policy because it costs +80.3 %
// on the live models, over the objective's max_added_cost_pct = 80; the
// same report then said "adapt: … let the client adapt" for the default
// adaptive delay at +82.5 % there. Now the adaptive delay over the cap is
// not recommended, and the reason gives the cap with the figure. Every
// adaptive delay the report recommends is within the cap on the live
// models.
func TestRetuneAdaptiveWithinCostCap(t *testing.T) {
	code, stdout, errOut := hedgesim(t, "retune", "guard-check", "--from", "testdata/retune/guard.prom",
		"--requests", "10000", "--check-requests", "10000", "--json", "--quiet")
	if code != exitAction {
		t.Fatalf("exit %d, want %d: %s", code, exitAction, errOut)
	}
	var rep struct {
		Recheck struct {
			Classes []struct {
				Class       string `json:"class"`
				Decision    string `json:"decision"`
				OverCostCap bool   `json:"current_policy_over_cost_cap"`
			} `json:"classes"`
			Adaptive struct {
				Classes []struct {
					Class   string `json:"class"`
					Verdict string `json:"verdict"`
					Why     string `json:"why"`
					Live    struct {
						Adaptive struct {
							AddedCostPct *float64 `json:"added_cost_pct"`
						} `json:"adaptive"`
						OverCaps []struct {
							Code  string  `json:"code"`
							Value float64 `json:"value"`
							Limit float64 `json:"limit"`
						} `json:"adaptive_over_caps"`
					} `json:"live"`
				} `json:"classes"`
			} `json:"adaptive"`
		} `json:"recheck"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	rc := rep.Recheck
	if len(rc.Classes) != 1 || !rc.Classes[0].OverCostCap || rc.Classes[0].Decision != "change" {
		t.Fatalf("not the case: classes %+v, want check changed for being over the cost cap", rc.Classes)
	}
	if len(rc.Adaptive.Classes) != 1 {
		t.Fatalf("adaptive comparison of %d classes, want check's", len(rc.Adaptive.Classes))
	}
	c := rc.Adaptive.Classes[0]
	cost := c.Live.Adaptive.AddedCostPct
	if cost == nil {
		t.Fatal("the adaptive delay's added cost on the live models is null")
	}
	t.Logf("adaptive delay on the live models: added cost %+.2f%%, verdict %s", *cost, c.Verdict)
	over := *cost > 80
	if over == (len(c.Live.OverCaps) == 0) {
		t.Errorf("added cost %+.2f%% against a cap of +80%%: over caps %+v", *cost, c.Live.OverCaps)
	}
	if over && (c.Verdict == "adapt" || c.Verdict == "trade-off" || !strings.Contains(c.Why, "over the cap of +80%") ||
		c.Live.OverCaps[0].Code != "over_cost_cap" || c.Live.OverCaps[0].Limit != 80 || c.Live.OverCaps[0].Value != *cost) {
		t.Errorf("adaptive delay at %+.2f%%, over the cap of +80%%: verdict %q, caps %+v: %s; want it not recommended, saying the cap and the figure",
			*cost, c.Verdict, c.Live.OverCaps, c.Why)
	}
	if !over {
		t.Errorf("not the case: the adaptive delay's added cost %+.2f%% is within the cap", *cost)
	}
}
