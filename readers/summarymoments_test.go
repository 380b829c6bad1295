package readers

import (
	"strings"
	"testing"
)

// TestLLMPerfSummaryMoments: a published mean above the published max or
// below the min, or a min above the max, is refused on the field's line,
// naming both values, as a decreasing percentile is; a mean equal to the
// max (every request alike), or above it by rounding, is accepted.
func TestLLMPerfSummaryMoments(t *testing.T) {
	const q = "{\n\"results_ttft_s_quantiles_p50\": 0.2,\n\"results_ttft_s_quantiles_p99\": 0.5,\n"
	for _, tc := range []badCase{
		{"mean above max", q + "\"results_ttft_s_mean\": 100,\n\"results_ttft_s_max\": 0.56\n}", 4, "results_ttft_s_mean", "100 is above results_ttft_s_max (0.56); the summary is inconsistent"},
		{"mean below min", q + "\"results_ttft_s_min\": 0.18,\n\"results_ttft_s_mean\": 0.01\n}", 5, "results_ttft_s_mean", "0.01 is below results_ttft_s_min (0.18); the summary is inconsistent"},
		{"min above max", q + "\"results_ttft_s_min\": 0.6,\n\"results_ttft_s_max\": 0.56\n}", 5, "results_ttft_s_max", "0.56 is below results_ttft_s_min (0.6)"},
	} {
		_, err := ReadLLMPerfSummary(strings.NewReader(tc.in), "in")
		checkBad(t, tc, err)
	}
	for _, in := range []string{
		q + "\"results_ttft_s_mean\": 0.56,\n\"results_ttft_s_max\": 0.56\n}",
		q + "\"results_ttft_s_mean\": 0.5600000000000002,\n\"results_ttft_s_max\": 0.56,\n\"results_ttft_s_min\": 0.56\n}",
		q + "\"results_ttft_s_mean\": 100\n}",
	} {
		if _, err := ReadLLMPerfSummary(strings.NewReader(in), "in"); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
}
