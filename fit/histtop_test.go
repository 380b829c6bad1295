package fit

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/readers"
)

func readProm(t *testing.T, text string) *readers.Histogram {
	t.Helper()
	h, err := readers.ReadPrometheusText(strings.NewReader(text), "h.prom", readers.HistogramQuery{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestHistogramAllAboveTop: a histogram with every observation in its
// +Inf bucket is refused, naming the count and the top bound, not fitted
// to a lognormal whose median and σ come from the fit's starting values.
func TestHistogramAllAboveTop(t *testing.T) {
	h := readProm(t, `# TYPE lat_seconds histogram
lat_seconds_bucket{le="0.1"} 0
lat_seconds_bucket{le="1"} 0
lat_seconds_bucket{le="+Inf"} 100
lat_seconds_count 100
`)
	for _, model := range []string{ModelAuto, ModelLogNormal} {
		hf, err := FitHistogram(h, Options{Model: model})
		if err == nil {
			t.Fatalf("model %s: fitted (median %g s); want an error", model, hf.Best().Dist.Quantile(0.5))
		}
		for _, want := range []string{"every one of its 100 observations above its top bound 1 s", "export buckets above 1 s"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("model %s: %v\nwant it to contain %q", model, err, want)
			}
		}
	}
	// One observation below the top bound bounds the fit from below: it
	// is fitted (with the few-buckets warning), not refused.
	h.Counts[1], h.Counts[2] = 1, 99
	if _, err := FitHistogram(h, Options{}); err != nil {
		t.Errorf("with 1 of 100 in (0.1, 1]: %v", err)
	}
}

// TestHistogramDFNotNegative: a lognormal (2 parameters) checked against
// buckets that pool to one cell has no degree of freedom left: the table
// and the JSON say 0, never cells − 1 − parameters = −2.
func TestHistogramDFNotNegative(t *testing.T) {
	h := readProm(t, `# TYPE lat_seconds histogram
lat_seconds_bucket{le="0.1"} 0
lat_seconds_bucket{le="1"} 100
lat_seconds_bucket{le="+Inf"} 100
lat_seconds_count 100
`)
	hf, err := FitHistogram(h, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range hf.Candidates {
		if c.DF != 0 {
			t.Errorf("%s: df %d; want 0", c.Name, c.DF)
		}
	}
	var text, js bytes.Buffer
	if err := hf.WriteTOML(&text, BlockOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := hf.WriteJSON(&js, BlockOptions{}); err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`lognormal \*\s+\S+\s+\S+\s+\S+\s+(\S+)`).FindStringSubmatch(text.String()); m == nil || m[1] != "0" {
		t.Errorf("table row %q; want df 0\n%s", m, text.String())
	}
	if !strings.Contains(js.String(), `"df": 0`) || strings.Contains(js.String(), `"df": -`) {
		t.Errorf("JSON df not 0:\n%s", js.String())
	}
}
