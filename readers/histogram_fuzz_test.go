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

func FuzzReadOTLP(f *testing.F) {
	f.Add(otlpJSON, "llm.exp")
	f.Add(otlpJSON, "llm.duration")
	f.Fuzz(func(t *testing.T, in, metric string) {
		h, err := ReadOTLP(strings.NewReader(in), "fuzz", HistogramQuery{Metric: metric, Unit: Seconds})
		checkHistogram(t, h, err)
	})
}
