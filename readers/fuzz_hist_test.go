package readers

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// checkHistogram checks the guarantees of a histogram a reader returned:
// adjacent, increasing buckets from 0, counts finite and ≥ 0.
func checkHistogram(t *testing.T, h *Histogram) {
	t.Helper()
	n := len(h.Counts)
	if n == 0 || len(h.Lower) != n || len(h.Upper) != n {
		t.Fatalf("%d counts, %d lower, %d upper bounds", n, len(h.Lower), len(h.Upper))
	}
	if h.Lower[0] != 0 {
		t.Fatalf("first bucket starts at %v", h.Lower[0])
	}
	for i := range n {
		if i > 0 && h.Lower[i] != h.Upper[i-1] {
			t.Fatalf("bucket %d starts at %v, the previous ends at %v", i, h.Lower[i], h.Upper[i-1])
		}
		if !(h.Upper[i] > h.Lower[i]) || math.IsNaN(h.Upper[i]) || i < n-1 && math.IsInf(h.Upper[i], 1) {
			t.Fatalf("bucket %d: (%v, %v]", i, h.Lower[i], h.Upper[i])
		}
		if c := h.Counts[i]; !(c >= 0) || math.IsInf(c, 0) {
			t.Fatalf("bucket %d: count %v", i, c)
		}
	}
}

// checkFileErr fails unless err names the file "fuzz" and says something;
// an *InputError must also carry a line ≥ 1.
func checkFileErr(t *testing.T, err error) {
	t.Helper()
	var ie *InputError
	if errors.As(err, &ie) {
		if ie.File != "fuzz" || ie.Line < 0 || ie.Msg == "" {
			t.Fatalf("error %q lacks file or message", ie.Error())
		}
		return
	}
	if !strings.Contains(err.Error(), "fuzz") {
		t.Fatalf("error %v (%T) does not name the file", err, err)
	}
}

// The histogram readers' fuzz targets: any input gives a histogram with
// the guarantees above or an error naming the file, never a panic.

func FuzzReadPrometheusText(f *testing.F) {
	f.Add(promText)
	f.Add("# TYPE x histogram\nx_bucket{le=\"1\"} 1\nx_bucket{le=\"+Inf\"} 2\n")
	f.Add("x_bucket{le=\"0.5\"} 3\nx_bucket{le=\"0.1\"} 5\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, in string) {
		h, err := ReadPrometheusText(strings.NewReader(in), "fuzz", HistogramQuery{Unit: Seconds})
		if err != nil {
			checkFileErr(t, err)
			return
		}
		checkHistogram(t, h)
	})
}

func FuzzReadPrometheusAPI(f *testing.F) {
	f.Add(promAPI)
	f.Add(`{"status":"success","data":{"resultType":"vector","result":[]}}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, in string) {
		h, err := ReadPrometheusAPI(strings.NewReader(in), "fuzz", HistogramQuery{Unit: Seconds})
		if err != nil {
			checkFileErr(t, err)
			return
		}
		checkHistogram(t, h)
	})
}

func FuzzReadOTLP(f *testing.F) {
	f.Add(otlpJSON)
	f.Add(`{"resourceMetrics": 3}`)
	f.Add(`{}`)
	f.Fuzz(func(t *testing.T, in string) {
		for _, metric := range []string{"", "llm.duration", "llm.exp"} {
			h, err := ReadOTLP(strings.NewReader(in), "fuzz", HistogramQuery{Metric: metric, Unit: Seconds})
			if err != nil {
				checkFileErr(t, err)
				continue
			}
			checkHistogram(t, h)
		}
	})
}
