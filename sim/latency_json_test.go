package sim

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestLatencyNoIntervalIsNull: a percentile's interval marked not ok is
// written as [null, null], and read back as NaN bounds, not numbers that
// mean nothing nor +Inf (a miss); an ok interval keeps its bounds, a miss
// among them null.
func TestLatencyNoIntervalIsNull(t *testing.T) {
	l := Latency{P95: 1, P99: 2, P95CI95: [2]float64{0.9, 1.2}, P99CI95: [2]float64{1.5, math.Inf(1)}, P95CIOK: false, P99CIOK: true}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, `"p95_ci95":[null,null]`) || !strings.Contains(s, `"p99_ci95":[1.5,null]`) {
		t.Errorf("wrote %s; want p95_ci95 [null,null] (not ok) and p99_ci95 [1.5,null] (ok, its high bound a miss)", s)
	}
	var back Latency
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(back.P95CI95[0]) || !math.IsNaN(back.P95CI95[1]) || back.P99CI95 != [2]float64{1.5, math.Inf(1)} {
		t.Errorf("read back p95_ci95 %v, p99_ci95 %v; want NaN bounds and [1.5, +Inf]", back.P95CI95, back.P99CI95)
	}
}
