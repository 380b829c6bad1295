package compare

import (
	"strings"
	"testing"
)

// TestClassWithoutRequestsReadsNull: run --json writes a class without
// requests with null latencies, shares and cost per 1000 requests (sim's
// TestClassWithoutRequestsNullInJSON, TestClassWithoutRequestsHasNoCost);
// compare reads such a report and shows the class's figures as "-", while
// a class with requests still needs its answered share and its cost.
func TestClassWithoutRequestsReadsNull(t *testing.T) {
	report := func(share string) []byte {
		return []byte(`{"scenario": "s", "seed": 1, "requests": 1000, "classes": [
		  {"class": "big", "requests": 1000, "answered": 1000, "answered_share": 1, "hedged_share": 0.2, "attempts_per_request": 1.2,
		   "cost_per_1k_usd": {"total": 1},
		   "latency_s": {"p50": 0.5, "p95": 1, "p99": 2, "p95_ci95": [0.9, 1.1], "p99_ci95": [1.8, 2.2], "p95_ci95_ok": true, "p99_ci95_ok": true}},
		  {"class": "rare", "requests": ` + share + `, "answered": 0, "answered_share": null, "hedged_share": null, "attempts_per_request": null,
		   "cost_per_1k_usd": null,
		   "latency_s": {"mean": null, "p50": null, "p90": null, "p95": null, "p99": null, "p99_9": null, "p95_ci95": [null, null], "p99_ci95": [null, null], "p95_ci95_ok": false, "p99_ci95_ok": false}}]}`)
	}
	a, err := Parse(report("0"))
	if err != nil {
		t.Fatalf("a class without requests, null figures: %v", err)
	}
	var out strings.Builder
	if err := Compare(a, a).WriteText(&out, "a.json", "a.json"); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == "rare" && (f[1] == "p95" || f[1] == "answered" || f[1] == "cost/1k") && f[2] != "-" {
			t.Errorf("rare shows a figure: %q; want -", line)
		}
	}
	for _, want := range []string{`class "rare"): answered_share: missing or null`, "cost_per_1k_usd.total"} {
		if _, err := Parse(report("5")); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("a class of 5 requests with a null answered share and cost: %v; want it refused, naming %s", err, want)
		}
	}
}
