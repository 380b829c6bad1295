package compare

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMissOnBothSidesHasNoChange: a percentile that is a miss in A and in
// B (two-model-gateway's strict-sla p99 at 513 requests, +∞ on both
// sides) has no change, since ∞ − ∞ has no value: the text prints "n/a",
// as for another change without a ratio, not "+0.0%", and the JSON's
// change is null.
func TestMissOnBothSidesHasNoChange(t *testing.T) {
	report := []byte(`{"scenario": "s", "seed": 1, "requests": 513, "classes": [
	  {"class": "strict-sla", "requests": 513, "answered": 506, "answered_share": 0.9863547758284601, "hedged_share": 0.986, "attempts_per_request": 1.986,
	   "cost_per_1k_usd": {"total": 3.7493},
	   "latency_s": {"p50": 0.845, "p95": 1.58, "p99": null, "p95_ci95": [1.45, 1.82], "p99_ci95": [null, null], "p95_ci95_ok": true, "p99_ci95_ok": false}}]}`)
	a, err := Parse(report)
	if err != nil {
		t.Fatal(err)
	}
	c := Compare(a, a)
	var text strings.Builder
	if err := c.WriteText(&text, "a.json", "b.json"); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, line := range strings.Split(text.String(), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "strict-sla" || f[1] != "p99" {
			continue
		}
		found = true
		if got := strings.Join(f[2:], " "); got != "miss miss n/a ?" {
			t.Errorf("p99 row %q; want miss miss n/a ?", line)
		}
	}
	if !found {
		t.Fatalf("no strict-sla p99 row:\n%s", text.String())
	}
	var js strings.Builder
	if err := c.WriteJSON(&js, "a.json", "b.json"); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Rows []struct {
			Metrics []map[string]any `json:"metrics"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(js.String()), &out); err != nil || len(out.Rows) != 1 {
		t.Fatalf("%v: JSON %s", err, js.String())
	}
	seen := false
	for _, m := range out.Rows[0].Metrics {
		if m["metric"] == "p99" {
			seen = true
			if ch, ok := m["change"]; !ok || ch != nil {
				t.Errorf("JSON p99 change %v (present: %t); want null", ch, ok)
			}
		}
	}
	if !seen {
		t.Fatalf("no p99 metric in the JSON:\n%s", js.String())
	}
}
