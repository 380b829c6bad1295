package sim

import (
	"strings"
	"testing"
)

// TestTinyRunTextSaysWhatRan: in run --requests 1, a class no request
// fell in showed "$0" a day and a month in the spend table, as if it cost
// nothing; its dollar figures are now "-" (its rate, known from the
// scenario, stays). A batched row with fewer requests than batches read
// "intervals from 30 batches of fewer than one request each" and warned
// of "batches of fewer than one request each"; it now says no batched
// interval was formed, with the requests kept and the batches.
func TestTinyRunTextSaysWhatRan(t *testing.T) {
	var spend strings.Builder
	writeSpend(&spend, []ClassReport{
		{Class: "guard", Requests: 1, Spend: Spend{RequestsPerSecond: 10, PerDay: 346, PerMonth: 10368, NoHedgingPerDay: 346, NoHedgingPerMonth: 10368}},
		{Class: "batch", Requests: 0, Spend: Spend{RequestsPerSecond: 6}},
	})
	for _, l := range strings.Split(spend.String(), "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "batch" {
			if strings.Contains(l, "$") || len(f) != 7 || f[1] != "6" || f[2] != "-" {
				t.Errorf("spend row of a class without requests %q; want its rate and \"-\" for every dollar figure", l)
			}
		}
	}
	if !strings.Contains(spend.String(), "$10,368") {
		t.Errorf("spend table %q lost the figures of the class with requests", spend.String())
	}

	var batched strings.Builder
	writeBatched(&batched, []ClassReport{{Class: "guard", Requests: 1, WarmUp: &WarmUp{}, Batches: &Batches{Count: 30, Size: 0}}})
	if got, want := batched.String(), "guard: no warm-up cut; no batched intervals: 1 request kept, fewer than the 30 batches\n"; got != want {
		t.Errorf("batches line %q; want %q", got, want)
	}
	w := batchWarnings(&batchSummary{batches: Batches{Count: 30, Size: 0}, kept: 1}, 1)
	if len(w) == 0 || strings.Contains(w[0].Text, "fewer than one request each") || !strings.Contains(w[0].Text, "1 request is fewer than the 30 batches: no batched interval") {
		t.Errorf("warnings %+v; want one saying 1 request is fewer than the 30 batches", w)
	}
}
