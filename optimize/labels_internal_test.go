package optimize

import (
	"strings"
	"testing"
)

// TestVerdictLabels: the label says what a pick is — a hedge, no hedging,
// a hedge whose copies go out for under 1 % of requests, or the configured
// fallback policy — and the text's verdict line puts the hedged share and
// calls per request beside the delay.
func TestVerdictLabels(t *testing.T) {
	for _, tt := range []struct {
		name     string
		hedge    bool
		pick     Candidate
		want     string
		wantHead string
	}{
		{"hedge", true, altCand("1.85s", 3.3, 128, 0.287, 0.999), LabelHedge, "hedge 0s (28.7% hedged, 1.287 attempts/request)"},
		{"don't", false, altCand("1.85s", 3.3, 128, 0.287, 0.999), LabelNoHedge, "don't hedge"},
		{"rarely", true, altCand("12.6s", 5.9, 101, 0.006, 0.999), LabelRarely, "effectively no hedging: a copy after 0s goes out for 0.6% of requests (1.006 attempts/request)"},
		{"just 1%", true, altCand("12s", 5.9, 101, 0.01, 0.999), LabelHedge, "hedge 0s (1.0% hedged"},
		{"fallback", true, func() Candidate {
			c := altCand("configured", 3, 120, 0.3, 0.99)
			c.Configured, c.fallback = true, true
			return c
		}(), LabelFallback, "fallback: the configured policy's copies go out only after a failure (30.0% hedged, 1.300 attempts/request)"},
	} {
		cr := ClassReport{Candidates: []Candidate{altCand("none", 6, 100, 0, 0.999), tt.pick}, Pick: 1}
		cr.Candidates[1].Copies = 1
		cr.Verdict.Hedge = tt.hedge
		if !tt.hedge {
			cr.Pick = 0
		}
		label(&cr)
		if cr.Verdict.Label != tt.want {
			t.Errorf("%s: label %q; want %q", tt.name, cr.Verdict.Label, tt.want)
		}
		if h := verdictHead(&cr); !strings.HasPrefix(h, tt.wantHead) {
			t.Errorf("%s: verdict line starts %q; want %q", tt.name, h, tt.wantHead)
		}
	}
}
