package readers

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestPrometheusTextInconsistent: what does not add up in a Prometheus
// histogram is said, not passed over — with a TYPE line and without:
// a _count other than the +Inf bucket's is warned about (the buckets are
// read); a missing +Inf bucket is added, holding the _count, or the last
// bucket's count when there is none, with a warning saying which; a bucket
// bound of NaN (which the parser drops) is an error naming its line.
func TestPrometheusTextInconsistent(t *testing.T) {
	for _, typed := range []bool{true, false} {
		head := "# TYPE x_seconds histogram\n"
		if !typed {
			head = ""
		}
		read := func(body string) (*Histogram, error) {
			return ReadPrometheusText(strings.NewReader(head+body), "p.txt", HistogramQuery{})
		}
		h, err := read("x_seconds_bucket{le=\"0.1\"} 10\nx_seconds_bucket{le=\"0.5\"} 50\nx_seconds_bucket{le=\"1\"} 100\nx_seconds_bucket{le=\"+Inf\"} 120\nx_seconds_count 500\n")
		if err != nil {
			t.Fatal(err)
		}
		if h.Total() != 120 || len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], "x_seconds_count is 500 but the +Inf bucket holds 120") {
			t.Errorf("typed %v, _count 500 against 120: total %g, warnings %q", typed, h.Total(), h.Warnings)
		}
		h, err = read("x_seconds_bucket{le=\"0.1\"} 10\nx_seconds_bucket{le=\"0.5\"} 50\nx_seconds_bucket{le=\"1\"} 100\nx_seconds_count 130\n")
		if err != nil {
			t.Fatal(err)
		}
		if h.Total() != 130 || !math.IsInf(h.Upper[len(h.Upper)-1], 1) || len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], "no +Inf bucket: x_seconds_count (130) taken as the +Inf bucket's count, 30 observations above le=1") {
			t.Errorf("typed %v, no +Inf bucket, _count 130: total %g, warnings %q", typed, h.Total(), h.Warnings)
		}
		h, err = read("x_seconds_bucket{le=\"0.1\"} 10\nx_seconds_bucket{le=\"0.5\"} 50\nx_seconds_bucket{le=\"1\"} 100\n")
		if err != nil {
			t.Fatal(err)
		}
		if h.Total() != 100 || len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], "assumed no observation above le=1") {
			t.Errorf("typed %v, no +Inf bucket nor _count: total %g, warnings %q", typed, h.Total(), h.Warnings)
		}
		h, err = read("x_seconds_bucket{le=\"0.1\"} 10\nx_seconds_bucket{le=\"1\"} 100\nx_seconds_bucket{le=\"+Inf\"} 120\nx_seconds_count 120\n")
		if err != nil || len(h.Warnings) != 0 {
			t.Errorf("typed %v, a consistent histogram: %v, warnings %q", typed, err, h.Warnings)
		}
		_, err = read("x_seconds_bucket{le=\"0.1\"} 10\nx_seconds_bucket{le=\"NaN\"} 10\nx_seconds_bucket{le=\"+Inf\"} 120\n")
		var ie *InputError
		line := 2
		if typed {
			line = 3
		}
		if !errors.As(err, &ie) || ie.Line != line || !strings.Contains(err.Error(), "NaN") {
			t.Errorf("typed %v, le=\"NaN\": %v, want an input error at line %d", typed, err, line)
		}
	}
}

// TestCSVDuplicateColumn: a header naming the latency column twice is an
// error naming both columns, not a silent read of the first.
func TestCSVDuplicateColumn(t *testing.T) {
	_, err := ReadCSV(strings.NewReader("latency_ms,latency_ms\n500,600\n700,800\n"), "dup.csv", Columns{Latency: "latency_ms"})
	if err == nil || !strings.Contains(err.Error(), "latency_ms") || !strings.Contains(err.Error(), "columns 1 and 2") {
		t.Errorf("duplicate latency column: %v, want an error naming columns 1 and 2", err)
	}
}

// TestUnitErrorsNameTheFlag: a missing unit is explained with the flag a
// user sets (--unit), not the Go API's field.
func TestUnitErrorsNameTheFlag(t *testing.T) {
	_, err := ReadPrometheusText(strings.NewReader("x_bucket{le=\"1\"} 1\nx_bucket{le=\"+Inf\"} 2\n"), "u.txt", HistogramQuery{})
	_, err2 := ReadCSV(strings.NewReader("latency\n250\n"), "u.csv", Columns{Latency: "latency"})
	for _, e := range []error{err, err2} {
		if e == nil || !strings.Contains(e.Error(), "--unit") || strings.Contains(e.Error(), ".Unit") {
			t.Errorf("unit error %v: want --unit named, no Go field", e)
		}
	}
}

// promAPIOf returns a Prometheus API vector result of x_seconds: the
// bucket samples (le, cumulative count) and, unless count is "", an
// x_seconds_count sample, all with the label model="a".
func promAPIOf(count string, buckets ...[2]string) string {
	var rs []string
	for _, b := range buckets {
		rs = append(rs, fmt.Sprintf(`{"metric":{"__name__":"x_seconds_bucket","model":"a","le":%q},"value":[1700000000,%q]}`, b[0], b[1]))
	}
	if count != "" {
		rs = append(rs, fmt.Sprintf(`{"metric":{"__name__":"x_seconds_count","model":"a"},"value":[1700000000,%q]}`, count))
	}
	return `{"status":"success","data":{"resultType":"vector","result":[` + strings.Join(rs, ",") + `]}}`
}

// TestPrometheusAPIInconsistent: a Prometheus API query result gets the
// text format's checks. A NAME_count sample beside the buckets (a query
// that keeps __name__, such as {__name__=~"x_seconds_(bucket|count)"})
// that disagrees with the +Inf bucket is warned about (the buckets are
// read); without a +Inf bucket it is taken as the +Inf bucket's count,
// with a warning; without either, the result cannot say what lies above
// the last bound, which stays an error; a bucket bound of NaN is an error
// naming the series.
func TestPrometheusAPIInconsistent(t *testing.T) {
	read := func(doc string) (*Histogram, error) {
		return ReadPrometheusAPI(strings.NewReader(doc), "q.json", HistogramQuery{})
	}
	h, err := read(promAPIOf("500", [2]string{"0.1", "10"}, [2]string{"1", "100"}, [2]string{"+Inf", "120"}))
	if err != nil {
		t.Fatal(err)
	}
	if h.Total() != 120 || len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], "x_seconds_count is 500 but the +Inf bucket holds 120") {
		t.Errorf("_count 500 against 120: total %g, warnings %q", h.Total(), h.Warnings)
	}
	h, err = read(promAPIOf("130", [2]string{"0.1", "10"}, [2]string{"1", "100"}))
	if err != nil {
		t.Fatal(err)
	}
	if h.Total() != 130 || !math.IsInf(h.Upper[len(h.Upper)-1], 1) || len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], "no +Inf bucket: x_seconds_count (130) taken as the +Inf bucket's count, 30 observations above le=1") {
		t.Errorf("no +Inf bucket, _count 130: total %g, warnings %q", h.Total(), h.Warnings)
	}
	if _, err = read(promAPIOf("", [2]string{"0.1", "10"}, [2]string{"1", "100"})); err == nil || !strings.Contains(err.Error(), `no le="+Inf" bucket`) {
		t.Errorf("no +Inf bucket nor _count: %v; want an error", err)
	}
	h, err = read(promAPIOf("120", [2]string{"0.1", "10"}, [2]string{"1", "100"}, [2]string{"+Inf", "120"}))
	if err != nil || len(h.Warnings) != 0 {
		t.Errorf("a consistent histogram: %v, warnings %q", err, h.Warnings)
	}
	_, err = read(promAPIOf("", [2]string{"0.1", "10"}, [2]string{"NaN", "10"}, [2]string{"+Inf", "120"}))
	var ie *InputError
	if !errors.As(err, &ie) || ie.Field != "le" || !strings.Contains(err.Error(), "NaN") || !strings.Contains(err.Error(), `x_seconds{model="a"}`) {
		t.Errorf("le=\"NaN\": %v; want an input error naming the series and its NaN bound", err)
	}
}

// otlpOf returns OTLP JSON of one explicit-bucket histogram "d" in ms with
// the given data points (JSON objects) and temporality (1 delta, 2
// cumulative).
func otlpOf(temporality int, points ...string) string {
	return fmt.Sprintf(`{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"d","unit":"ms","histogram":{"aggregationTemporality":%d,"dataPoints":[%s]}}]}]}]}`, temporality, strings.Join(points, ","))
}

// TestOTLPInconsistent: OTLP histograms get the text format's checks. A
// data point's count that disagrees with its buckets' total is warned
// about (the buckets are read), over the points added under delta
// temporality and for an exponential histogram's buckets too; a count of
// 0, which OTLP JSON cannot tell from no count, says nothing. An
// explicit-bucket point always has its +Inf bucket (one count more than
// bounds): one without is an error, as before. A bound of NaN is an error
// naming the metric, the data point and the bound.
func TestOTLPInconsistent(t *testing.T) {
	read := func(doc string) (*Histogram, error) {
		return ReadOTLP(strings.NewReader(doc), "m.json", HistogramQuery{})
	}
	for _, tc := range []struct {
		name, doc string
		total     float64
		warn      string
	}{
		{"cumulative, count 12 against 10", otlpOf(2, `{"count":"12","bucketCounts":["2","6","2"],"explicitBounds":[100,500]}`), 10,
			"d: count is 12 but the buckets hold 10: the buckets are fitted"},
		{"cumulative, consistent", otlpOf(2, `{"count":"10","bucketCounts":["2","6","2"],"explicitBounds":[100,500]}`), 10, ""},
		{"no count", otlpOf(2, `{"bucketCounts":["2","6","2"],"explicitBounds":[100,500]}`), 10, ""},
		{"delta, counts 4 + 7 against 4 + 6", otlpOf(1, `{"count":"4","bucketCounts":["1","3","0"],"explicitBounds":[100,500]}`, `{"count":"7","bucketCounts":["2","2","2"],"explicitBounds":[100,500]}`), 10,
			"d: count is 11 but the buckets hold 10"},
		{"delta, consistent", otlpOf(1, `{"count":"4","bucketCounts":["1","3","0"],"explicitBounds":[100,500]}`, `{"count":"6","bucketCounts":["2","2","2"],"explicitBounds":[100,500]}`), 10, ""},
		{"exponential, count 9 against 6", `{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"e","unit":"s","exponentialHistogram":{"aggregationTemporality":2,"dataPoints":[{"scale":0,"count":"9","positive":{"offset":-2,"bucketCounts":["1","2","3"]}}]}}]}]}]}`, 6,
			"e: count is 9 but the buckets hold 6"},
	} {
		h, err := read(tc.doc)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if h.Total() != tc.total {
			t.Errorf("%s: total %g; want the buckets' %g", tc.name, h.Total(), tc.total)
		}
		if tc.warn == "" && len(h.Warnings) != 0 || tc.warn != "" && (len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], tc.warn)) {
			t.Errorf("%s: warnings %q; want %q", tc.name, h.Warnings, tc.warn)
		}
	}
	if _, err := read(otlpOf(2, `{"count":"10","bucketCounts":["2","8"],"explicitBounds":[100,500]}`)); err == nil || !strings.Contains(err.Error(), "want one more count than bounds") {
		t.Errorf("no +Inf bucket count: %v; want an error", err)
	}
	_, err := read(otlpOf(2, `{"count":"10","bucketCounts":["2","6","2"],"explicitBounds":[100,500]}`, `{"count":"10","bucketCounts":["2","6","2"],"explicitBounds":[100,"NaN"]}`))
	var ie *InputError
	if !errors.As(err, &ie) || ie.Field != "d" || !strings.Contains(err.Error(), "data point 2") || !strings.Contains(err.Error(), "explicitBounds[1] is NaN") {
		t.Errorf("a NaN bound: %v; want an input error naming the metric, data point 2 and explicitBounds[1]", err)
	}
}

// TestPrometheusTextNoCountFloatBuckets: a typed histogram without a
// _count line gets no warning about its _count, whatever its bucket counts
// are. Regression: the parser gives a series whose counts are not whole
// uint64s (1e301, or fractional ones) a _count of 0, and the warning
// "_count is 0 but the +Inf bucket holds 1e+301" followed; a _count line
// that says 0 is still warned about.
func TestPrometheusTextNoCountFloatBuckets(t *testing.T) {
	for _, c := range []struct {
		name, buckets string
	}{
		{"huge", "x_seconds_bucket{le=\"0.1\"} 1e300\nx_seconds_bucket{le=\"1\"} 9e300\nx_seconds_bucket{le=\"+Inf\"} 1e301\n"},
		{"fractional", "x_seconds_bucket{le=\"0.1\"} 1.5\nx_seconds_bucket{le=\"1\"} 9.5\nx_seconds_bucket{le=\"+Inf\"} 10.5\n"},
	} {
		h, err := ReadPrometheusText(strings.NewReader("# TYPE x_seconds histogram\n"+c.buckets), "p.txt", HistogramQuery{})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range h.Warnings {
			if strings.Contains(w, "_count") {
				t.Errorf("%s, no _count line: warning %q", c.name, w)
			}
		}
		h, err = ReadPrometheusText(strings.NewReader("# TYPE x_seconds histogram\n"+c.buckets+"x_seconds_count 0\n"), "p.txt", HistogramQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], "x_seconds_count is 0 but the +Inf bucket holds") {
			t.Errorf("%s, _count 0: warnings %q, want the _count's", c.name, h.Warnings)
		}
	}
}
