package fit

import (
	"math"
	"strings"
	"testing"
)

// TestHistogramTTFTKey: a histogram of the time to first token is written
// as the streamed form's ttft, with a reminder of the tokens_per_s it
// needs, so that the block pastes into a streamed model; any other
// histogram is a whole-call latency.
func TestHistogramTTFTKey(t *testing.T) {
	x := lognormalSample(3, -1, 0.4, 4000)
	for _, tc := range []struct{ metric, key string }{
		{"vllm:time_to_first_token_seconds", "ttft"},
		{"gateway_ttft_ms", "ttft"},
		{"llm_request_duration_seconds", "latency"},
		{"", "latency"},
	} {
		h := binValues("m.txt", x, typicalBuckets)
		h.Metric = tc.metric
		hf, err := FitHistogram(h, Options{Model: ModelLogNormal})
		if err != nil {
			t.Fatal(err)
		}
		block := hf.Block(BlockOptions{Name: "chat"})
		if hf.Key() != tc.key || !strings.Contains(block, "\n"+tc.key+" = { kind = \"lognormal\"") {
			t.Errorf("%q: key %q, block:\n%s", tc.metric, hf.Key(), block)
		}
		if hasTokens := strings.Contains(block, "# tokens_per_s = "); hasTokens != (tc.key == "ttft") {
			t.Errorf("%q: tokens_per_s reminder %v, block:\n%s", tc.metric, hasTokens, block)
		}
	}
}

// TestHistogramPercentileOutside: where the model's percentile falls
// outside the bucket that holds the data's, the warning says so — on
// coarse buckets too, where it would otherwise say the model places the
// percentile inside them.
func TestHistogramPercentileOutside(t *testing.T) {
	// Bimodal: 85 % near 0.3 s, 15 % near 8 s. A single lognormal cannot
	// follow both modes, so its p95 misses the bucket of the data's p95.
	x := append(lognormalSample(1, math.Log(0.3), 0.2, 8500), lognormalSample(2, math.Log(8), 0.2, 1500)...)
	var fine []float64
	for b := 0.05; b < 100; b *= 1.25 {
		fine = append(fine, b)
	}
	fine = append(fine, math.Inf(1))
	for _, tc := range []struct {
		name string
		ub   []float64
		want string
	}{
		{"fine buckets", fine, "the model's p95 ("},
		{"coarse buckets", typicalBuckets, "the model's p95 ("},
	} {
		hf, err := FitHistogram(binValues("bimodal", x, tc.ub), Options{Model: ModelLogNormal})
		if err != nil {
			t.Fatal(err)
		}
		var p95 *BinnedPercentile
		for i := range hf.Percentiles {
			if hf.Percentiles[i].P == 0.95 {
				p95 = &hf.Percentiles[i]
			}
		}
		if p95 == nil || p95.Inside {
			t.Fatalf("%s: p95 %+v; the test wants a lognormal p95 outside the data's bucket", tc.name, p95)
		}
		all := strings.Join(hf.Warnings, "\n")
		if !strings.Contains(all, "s) lies outside it: the fit does not reproduce the data's p95") || strings.Contains(all, "p95 ("+fmtNum(p95.Model)+" s) lies in it") {
			t.Errorf("%s: warnings %q", tc.name, hf.Warnings)
		}
	}
}

// TestHistogramCountsWhole: counts print as whole numbers, however large;
// a fractional count keeps one decimal.
func TestHistogramCountsWhole(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{{5000, "5000"}, {123456, "123456"}, {2.5e9, "2500000000"}, {12.25, "12.2"}, {0, "0"}} {
		if got := FormatCount(tc.v); got != tc.want {
			t.Errorf("FormatCount(%v) = %q; want %q", tc.v, got, tc.want)
		}
	}
	h := binValues("big", lognormalSample(4, 0, 0.5, 2000), typicalBuckets)
	for i := range h.Counts {
		h.Counts[i] *= 100 // 200 000 observations
	}
	hf, err := FitHistogram(h, Options{Model: ModelLogNormal})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	hf.WriteText(&text)
	if !strings.Contains(text.String(), "200000 observations in 8 buckets") || strings.Contains(text.String(), "e+0") {
		t.Errorf("text:\n%s", text.String())
	}
	if !strings.Contains(hf.Block(BlockOptions{}), "): 200000 observations.") {
		t.Errorf("block:\n%s", hf.Block(BlockOptions{}))
	}
}
