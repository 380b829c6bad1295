package sim

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestPrecisionJSON: a Reached that is +Inf (no interval: a p95 that is
// a miss) is written as null, which encoding/json refuses to write for a
// bare float, and reads back as +Inf; a finite one reads back exactly.
func TestPrecisionJSON(t *testing.T) {
	for _, p := range []Precision{
		{Asked: 0.02, Reached: math.Inf(1), Requests: 4000, MaxRequests: 128000, Unreachable: "the p95 is a miss"},
		{Asked: 0.02, Reached: 0.0173, Requests: 8000, MaxRequests: 128000, Met: true},
	} {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		if math.IsInf(p.Reached, 1) != strings.Contains(string(b), `"reached":null`) {
			t.Errorf("%+v written as %s", p, b)
		}
		var got Precision
		if err := json.Unmarshal(b, &got); err != nil || got != p {
			t.Errorf("%s read back as %+v (%v); want %+v", b, got, err, p)
		}
	}
}
