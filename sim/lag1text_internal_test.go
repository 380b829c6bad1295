package sim

import (
	"strings"
	"testing"
)

// TestLag1WarningReadsTrue: the warning of correlated batch means prints
// the lag-1 autocorrelation with the digits it takes to stay above its
// limit; at two decimals 0.2004 read "0.20 > 0.20", which is false.
func TestLag1WarningReadsTrue(t *testing.T) {
	for _, c := range []struct {
		r    float64
		want string
	}{{0.2004, "lag-1 autocorrelation 0.2004 > 0.20"}, {0.20000001, "lag-1 autocorrelation 0.20000001 > 0.20"},
		{0.2051, "lag-1 autocorrelation 0.21 > 0.20"}, {0.32, "lag-1 autocorrelation 0.32 > 0.20"}} {
		b := &batchSummary{kept: 30000, batches: Batches{Count: numBatches, Size: 1000, Lag1: c.r}}
		var w string
		for _, n := range batchWarnings(b, 30000) {
			w += n.Text + "\n"
		}
		if !strings.Contains(w, c.want) {
			t.Errorf("lag-1 %v: warnings %q lack %q", c.r, w, c.want)
		}
	}
}
