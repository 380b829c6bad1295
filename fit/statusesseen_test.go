package fit

import (
	"errors"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/readers"
)

// TestNoSuccessNamesStatuses: a log none of whose rows is a success is
// refused with ErrNoData, and the error names the most common status
// values it saw (three at most, with counts) and how to mark one as
// success.
func TestNoSuccessNamesStatuses(t *testing.T) {
	var b strings.Builder
	b.WriteString("lat,st\n")
	for i, v := range []struct {
		st string
		n  int
	}{{"done", 5}, {"500", 3}, {"timeout", 2}, {"oops", 1}} {
		for k := 0; k < v.n; k++ {
			b.WriteString("1.")
			b.WriteByte(byte('0' + i))
			b.WriteString("," + v.st + "\n")
		}
	}
	l, err := readers.ReadCSV(strings.NewReader(b.String()), "s.csv", readers.Columns{Latency: "lat", Status: "st", Unit: readers.Seconds})
	if err != nil {
		t.Fatal(err)
	}
	_, err = FitLog(l, Options{})
	if !errors.Is(err, ErrNoData) {
		t.Fatalf("FitLog: %v; want ErrNoData", err)
	}
	for _, want := range []string{
		"0 of 11 requests succeeded",
		`status values seen: "done" ×5, "500" ×3, "timeout" ×2 and 1 other value`,
		"list it with --ok (e.g. --ok done)",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q\nlacks %q", err, want)
		}
	}
	// An llmperf log's error codes are read by llmperf's rule, which --ok
	// does not change: the values are named, --ok is not suggested.
	l.Format = "llmperf"
	if _, err = FitLog(l, Options{}); !strings.Contains(err.Error(), `"done" ×5`) || strings.Contains(err.Error(), "--ok") {
		t.Errorf("llmperf: %v; want the values seen and no --ok", err)
	}
}
