package readers

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// checkHistogram checks the guarantees of a histogram reader's result: an
// *InputError for file "fuzz" with a message, or at least two adjacent
// buckets from 0 with finite counts ≥ 0 and a positive total.
func checkHistogram(t *testing.T, h *Histogram, err error) {
	t.Helper()
	if err != nil {
		var ie *InputError
		if !errors.As(err, &ie) || ie.File != "fuzz" || ie.Msg == "" || ie.Line < 0 {
			t.Fatalf("error %v (%T) is not an *InputError for the file", err, err)
		}
		return
	}
	n := len(h.Counts)
	if n < 2 || len(h.Lower) != n || len(h.Upper) != n || h.Lower[0] != 0 {
		t.Fatalf("buckets %v %v %v", h.Lower, h.Upper, h.Counts)
	}
	for i := range n {
		if !(h.Upper[i] > h.Lower[i]) || i > 0 && h.Lower[i] != h.Upper[i-1] {
			t.Fatalf("bucket %d: (%v, %v]", i, h.Lower[i], h.Upper[i])
		}
		if !(h.Counts[i] >= 0) || math.IsInf(h.Counts[i], 0) {
			t.Fatalf("bucket %d: count %v", i, h.Counts[i])
		}
	}
	if !(h.Total() > 0) {
		t.Fatalf("total %v", h.Total())
	}
}

func FuzzReadPrometheusText(f *testing.F) {
	f.Add(promText, "model=a")
	f.Add("x_seconds_bucket{le=\"0.5\"} 1\nx_seconds_bucket{le=\"+Inf\"} 3\n", "")
	f.Add("# TYPE y_ms histogram\ny_ms_bucket{le=\"-1\"} 0\ny_ms_bucket{le=\"NaN\"} 2\ny_ms_count 2\ny_ms_sum 1\n", "")
	f.Fuzz(func(t *testing.T, in, label string) {
		q := HistogramQuery{Unit: Seconds}
		if k, v, ok := strings.Cut(label, "="); ok {
			q.Labels = map[string]string{k: v}
		}
		h, err := ReadPrometheusText(strings.NewReader(in), "fuzz", q)
		checkHistogram(t, h, err)
	})
}

func FuzzReadPrometheusAPI(f *testing.F) {
	f.Add(promAPI)
	f.Add(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"le":"1"},"values":[[1,"2"],[2,"3"]]},{"metric":{"le":"+Inf"},"values":[[2,"5"]]}]}}`)
	f.Fuzz(func(t *testing.T, in string) {
		h, err := ReadPrometheusAPI(strings.NewReader(in), "fuzz", HistogramQuery{Unit: Seconds})
		checkHistogram(t, h, err)
	})
}

// FuzzReadOTLP's seeds are one short data point of each kind: Go
// minimizes every new interesting input by trying to remove each run of
// its bytes, executions quadratic in its length, and with the 1 KB
// otlpJSON as both seeds a 30 s run made 12 executions.
func FuzzReadOTLP(f *testing.F) {
	f.Add(otlpExplicitSeed, "d")
	f.Add(otlpExpSeed, "e")
	f.Fuzz(func(t *testing.T, in, metric string) {
		h, err := ReadOTLP(strings.NewReader(in), "fuzz", HistogramQuery{Metric: metric, Unit: Seconds})
		checkHistogram(t, h, err)
	})
}

// Short OTLP seeds: a cumulative explicit-bounds histogram in ms with an
// attribute, and a delta exponential histogram in s.
const (
	otlpExplicitSeed = `{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"d","unit":"ms","histogram":{"aggregationTemporality":2,"dataPoints":[{"attributes":[{"key":"m","value":{"stringValue":"a"}}],"count":"4","sum":900,"bucketCounts":["1","3","0"],"explicitBounds":[100,500]}]}}]}]}]}`
	otlpExpSeed      = `{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"e","unit":"s","exponentialHistogram":{"aggregationTemporality":1,"dataPoints":[{"scale":0,"zeroCount":"0","positive":{"offset":-2,"bucketCounts":["1","2","3"]}}]}}]}]}]}`
)

// TestOTLPFuzzSeeds: the short seeds are read, so that fuzzing starts
// from inputs that reach the buckets.
func TestOTLPFuzzSeeds(t *testing.T) {
	for _, c := range []struct{ in, metric string }{{otlpExplicitSeed, "d"}, {otlpExpSeed, "e"}} {
		h, err := ReadOTLP(strings.NewReader(c.in), "seed", HistogramQuery{Metric: c.metric, Unit: Seconds})
		if err != nil || len(h.Counts) < 2 || !(h.Total() > 0) {
			t.Errorf("%s: %v, %+v", c.metric, err, h)
		}
	}
}

// BenchmarkFuzzReadOTLP times one execution of FuzzReadOTLP's body on
// otlpJSON and on the short seeds.
func BenchmarkFuzzReadOTLP(b *testing.B) {
	for _, c := range []struct{ name, in, metric string }{{"otlpJSON", otlpJSON, "llm.exp"}, {"explicit", otlpExplicitSeed, "d"}, {"exp", otlpExpSeed, "e"}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := ReadOTLP(strings.NewReader(c.in), "fuzz", HistogramQuery{Metric: c.metric, Unit: Seconds}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
