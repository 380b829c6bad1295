package compare

import (
	"math"
	"strings"
	"testing"
)

// TestParseRejectsMissingLatency: a class (or an optimize pick) without
// latency_s, or with it null, or with it lacking p50, p95 or p99, is refused like a missing requests or cost,
// not read as percentiles of 0 s; a class whose every request missed (run
// --json writes its percentiles null) still parses, as misses.
func TestParseRejectsMissingLatency(t *testing.T) {
	const fields = `"requests": 100, "answered": 0, "answered_share": 0, "cost_per_1k_usd": {"total": 1}`
	for _, tt := range []struct{ latency, want string }{
		{``, "latency_s: missing or null; every report gives it"},
		{`, "latency_s": null`, "latency_s: missing or null; every report gives it"},
		// An empty object is no class whose every request missed: run
		// --json writes every percentile, null for a miss.
		{`, "latency_s": {}`, "latency_s.p50: missing or null; every report gives it"},
		{`, "latency_s": {"p50": 1, "p99": 2}`, "latency_s.p95: missing or null"},
	} {
		_, err := Parse([]byte(`{"scenario": "s", "seed": 1, "classes": [{"class": "chat", ` + fields + tt.latency + `}]}`))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("run report with %q: got %v; want …%s…", tt.latency, err, tt.want)
		}
	}
	r := mustParse(t, []byte(`{"scenario": "s", "seed": 1, "classes": [{"class": "chat", `+fields+`,
	  "latency_s": {"mean": null, "p50": null, "p90": null, "p95": null, "p99": null, "p99_9": null, "p95_ci95": [null, null], "p99_ci95": [null, null], "p95_ci95_ok": false, "p99_ci95_ok": false}}]}`))
	if c := r.Classes[0]; !math.IsInf(c.P50, 1) || !math.IsInf(c.P95, 1) || !math.IsInf(c.P99, 1) {
		t.Errorf("a class without answers: p50 %g, p95 %g, p99 %g; want misses (+Inf)", c.P50, c.P95, c.P99)
	}

	_, err := Parse([]byte(`{"scenario": "g", "seed": 3, "requests_per_candidate": 100, "classes": [
	  {"class": "chat", "requests": 100, "pick": 0, "candidates": [
	    {"hedging": false, "p95_ci95_ok": true, "p99_ci95_ok": true, "answered_share": 0.9, "cost_per_1k_usd": 1}]}]}`))
	if want := "candidates[pick].latency_s: missing or null"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("optimize pick without latency_s: got %v; want …%s…", err, want)
	}
}
