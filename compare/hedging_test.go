package compare

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// hedgedRunReport is runReport with the policy, hedged share and calls
// per request that run reports give.
func hedgedRunReport(t *testing.T, policy string, hedged, calls float64) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(runReport(2.0, [2]float64{1.9, 2.1}, 0.9, 2000, 1), &m); err != nil {
		t.Fatal(err)
	}
	c := m["classes"].([]any)[0].(map[string]any)
	c["policy"], c["hedged_share"], c["attempts_per_request"] = policy, hedged, calls
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPolicyHedgedAndCalls: run reports show their class's policy (not
// "-"), and the table adds the hedged share — compared as a proportion,
// in percentage points — and the calls per request.
func TestPolicyHedgedAndCalls(t *testing.T) {
	a := mustParse(t, hedgedRunReport(t, "1.20s ×1 → large-b", 0.166, 1.166))
	b := mustParse(t, hedgedRunReport(t, "400ms ×1 → large-b", 0.57, 1.57))
	c := Compare(a, b)
	var text bytes.Buffer
	if err := c.WriteText(&text, "a.json", "b.json"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"chat   policy        1.20s ×1 → large-b",
		"400ms ×1 → large-b",
		"chat   hedged        16.6%",
		"57.0%",
		"+40.40 pt",
		"chat   attempts/req  1.166",
		"1.570",
		"+34.6%",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, text.String())
		}
	}
	// Order: the hedging figures between answered and cost.
	var metrics []string
	for _, d := range c.Rows[0].Deltas {
		metrics = append(metrics, d.Metric)
	}
	if got := strings.Join(metrics, " "); got != "p50 p95 p99 answered hedged attempts/req cost/1k" {
		t.Errorf("metrics %s", got)
	}
	if d := c.Rows[0].Deltas[4]; d.Mark != Significant {
		t.Errorf("hedged 16.6%% → 57.0%% of 2000 requests: mark %v; want significant", d.Mark)
	}
	var js bytes.Buffer
	if err := c.WriteJSON(&js, "a", "b"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"metric": "hedged"`) || !strings.Contains(js.String(), `"a_policy": "1.20s ×1 → large-b"`) {
		t.Errorf("JSON:\n%s", js.String())
	}
	// A report without the hedging figures (an older build) compares without them.
	old := mustParse(t, runReport(2.0, [2]float64{1.9, 2.1}, 0.9, 2000, 1))
	if n := len(Compare(old, b).Rows[0].Deltas); n != 5 {
		t.Errorf("without hedging figures: %d metrics; want 5", n)
	}
	// A hedged share outside [0, 1] is no hedgesim report's.
	if _, err := Parse(hedgedRunReport(t, "x", 1.5, 2)); err == nil || !strings.Contains(err.Error(), "hedged_share: 1.5; want a share in [0, 1]") {
		t.Errorf("hedged share 1.5: %v", err)
	}
}
