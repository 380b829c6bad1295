package compare

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/sim"
)

// queueReportData returns the run report JSON of a small M/M/1 at ρ = 0.9
// (2·10⁴ requests on seed 3), whose class gives per_batch, as a map to
// corrupt.
func queueReportData(t *testing.T) map[string]any {
	t.Helper()
	cfg := mm1(20_000, 3, 0.9, 1, "c")
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(sim.NewReportPerBatch(cfg, res, res))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// perBatchOf returns the per_batch object of m's first class.
func perBatchOf(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	pb, ok := m["classes"].([]any)[0].(map[string]any)["per_batch"].(map[string]any)
	if !ok {
		t.Fatal("the queue's run report has no per_batch")
	}
	return pb
}

func marshal(t *testing.T, m map[string]any) []byte {
	t.Helper()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestPerBatchChecked: per_batch figures no run writes are refused, each
// problem naming the JSON field, the value and what is allowed; what runs
// do write — a null linearised percentile in a batch without requests, or
// in every batch when the pooled percentile is a miss — is read.
func TestPerBatchChecked(t *testing.T) {
	if _, err := Parse(marshal(t, queueReportData(t))); err != nil {
		t.Fatalf("a run's own report refused: %v", err)
	}
	nulls := func(n int) []any { return make([]any, n) }
	tests := []struct {
		name   string
		change func(pb map[string]any)
		want   []string // "" when the report is one a run writes
	}{
		{"answered share 7", func(pb map[string]any) { pb["answered_share"].([]any)[2] = 7.0 },
			[]string{`classes[0] (class "c"): per_batch.answered_share[2]: 7; want a share in [0, 1]`}},
		{"p95_linearised short", func(pb map[string]any) { pb["p95_linearised"] = pb["p95_linearised"].([]any)[1:] },
			[]string{"per_batch.p95_linearised: 29 values; want 30, one per batch (count)"}},
		{"p95_linearised null in a batch with requests", func(pb map[string]any) { pb["p95_linearised"].([]any)[5] = nil },
			[]string{"per_batch.p95_linearised[5]: null in a batch with requests"}},
		{"p95_linearised null in every batch (a pooled miss)", func(pb map[string]any) { pb["p95_linearised"] = nulls(30) }, nil},
		{"a batch without requests", func(pb map[string]any) {
			pb["answered_share"].([]any)[5] = nil
			for _, k := range []string{"p50_linearised", "p95_linearised", "p99_linearised", "cost_per_1k_usd"} {
				if xs, ok := pb[k].([]any); ok {
					xs[5] = nil
				}
			}
		}, nil},
		{"count -5", func(pb map[string]any) { pb["count"] = -5 },
			[]string{"per_batch.count: -5; want a number of batches ≥ 1"}},
		{"first_kept 999", func(pb map[string]any) { pb["first_kept"] = 999 },
			[]string{"per_batch.first_kept: 999; want a batch in [0, 30]"}},
		{"p95 below 0", func(pb map[string]any) { pb["p95"].([]any)[1] = -1.0 },
			[]string{"per_batch.p95[1]: -1; want a latency ≥ 0"}},
		{"cost below 0", func(pb map[string]any) { pb["cost_per_1k_usd"].([]any)[3] = -2.0 },
			[]string{"per_batch.cost_per_1k_usd[3]: -2; want a cost ≥ 0 in USD"}},
		{"p99 below p95", func(pb map[string]any) { pb["p99"].([]any)[4] = 0.0 },
			[]string{"per_batch[4]: p50 ", "are out of order"}},
		{"p50 absent", func(pb map[string]any) { delete(pb, "p50") },
			[]string{"per_batch.p50: missing or null; want 30 values"}},
	}
	for _, tc := range tests {
		m := queueReportData(t)
		tc.change(perBatchOf(t, m))
		_, err := Parse(marshal(t, m))
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: refused a report a run writes: %v", tc.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tc.name, err, w)
			}
		}
	}
}

// TestPrecisionChecked: a precision object no run to a precision writes
// is refused, naming each field, its value and what is allowed; a
// precision that is not an object at all too.
func TestPrecisionChecked(t *testing.T) {
	base := runReport(2.0, [2]float64{1.9, 2.1}, 0.9, 2000, 1)
	var m map[string]any
	if err := json.Unmarshal(base, &m); err != nil {
		t.Fatal(err)
	}
	m["precision"] = map[string]any{"asked": -3, "reached": -0.5, "requests": 0, "max_requests": 0, "met": false}
	_, err := Parse(marshal(t, m))
	if err == nil {
		t.Fatal("a precision with asked −3, reached −0.5 and 0 requests accepted")
	}
	for _, w := range []string{"precision.asked: -3; want a relative half-width in (0, 1)", "precision.reached: -0.5; want a relative half-width ≥ 0, or null", "precision.requests: 0; want the last run's requests, ≥ 1"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	m["precision"] = map[string]any{"asked": 0.02, "reached": 0.05, "requests": 4000, "max_requests": 2000, "met": true}
	_, err = Parse(marshal(t, m))
	for _, w := range []string{"precision.max_requests: 2000, below requests 4000", "precision.met: true, but reached ±5% is not within asked ±2%"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v lacks %q", err, w)
		}
	}
	m["precision"] = "garbage"
	if _, err = Parse(marshal(t, m)); err == nil || !strings.Contains(err.Error(), "precision: ") {
		t.Errorf("a string precision: error %v", err)
	}
	m["precision"] = map[string]any{"asked": 0.02, "reached": nil, "requests": 4000, "max_requests": 128000, "met": false, "unreachable": "the p95 is a miss"}
	if _, err = Parse(marshal(t, m)); err != nil {
		t.Errorf("a precision a run writes (no interval) refused: %v", err)
	}
}
