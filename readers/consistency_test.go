package readers

import (
	"errors"
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
