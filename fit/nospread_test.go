package fit

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/readers"
)

// TestConstantDecodeSpeed: a streamed log whose every request decodes at
// 50 tokens/s, written to 4 decimals, gives speeds tokens ÷ (latency −
// ttft) that differ only by rounding (about 1e-14 relatively). They are
// refused as the constant they are, with the advice a constant latency
// gets, not fitted as a lognormal with σ near 1e-15 whose percentiles
// fall outside their own intervals.
func TestConstantDecodeSpeed(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 1))
	var b strings.Builder
	b.WriteString("ttft_s,total_s,out\n")
	for i := 0; i < 300; i++ {
		ttft := 0.3 + rng.Float64()
		out := 1 + rng.IntN(300)
		fmt.Fprintf(&b, "%.4f,%.4f,%d\n", ttft, ttft+float64(out)/50, out)
	}
	l, err := readers.ReadCSV(strings.NewReader(b.String()), "tt.csv", readers.Columns{Latency: "total_s", TTFT: "ttft_s", OutputTokens: "out"})
	if err != nil {
		t.Fatal(err)
	}
	sp := l.DecodeSpeeds()
	lo, hi := sp[0], sp[0]
	for _, v := range sp {
		lo, hi = min(lo, v), max(hi, v)
	}
	if lo == hi {
		t.Fatalf("the speeds are exactly equal (%v); the test needs the rounding spread it is about", lo)
	}
	_, err = FitLog(l, Options{})
	for _, want := range []string{`tokens_per_s: all 300 observations are 50 tokens/s`, `fit model "empirical"`, `kind = "constant", value = 50`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("FitLog: %v\nwant an error containing %q", err, want)
		}
	}
	r, err := FitLog(l, Options{Model: ModelEmpirical})
	if err != nil {
		t.Fatal(err)
	}
	if q := r.Speed.Dist.Quantile(0.5); q < 50*(1-spreadTol) || q > 50*(1+spreadTol) {
		t.Errorf("--model empirical: speed median %v; want 50", q)
	}
}

// TestSpreadTolKeepsRealSpread: values that differ in their 9th
// significant digit, as a log written to 9 digits can record, are fitted,
// not refused as one value.
func TestSpreadTolKeepsRealSpread(t *testing.T) {
	if noSpread(1.00000000, 1.00000001) {
		t.Error("1 and 1.00000001 (a relative 1e-8) count as one value")
	}
	if !noSpread(49.999999999999815, 50.000000000000234) {
		t.Error("49.999999999999815 and 50.000000000000234 (rounding) count as two values")
	}
}
