package readers

import (
	"errors"
	"strings"
	"testing"
)

// TestPrometheusAPIUnidentifiedSeries: in a Prometheus API query result a
// bucket is a series with an le label and a _count one named NAME_count
// (docs/fit.md). A series with neither le nor __name__ — the count of
// sum(increase(x_count[1d])) beside sum by (le) buckets, which used to be
// dropped without a word, so that its disagreement with the +Inf bucket
// went unseen — is an input error naming the series; so is a NAME_count
// whose labels match no bucket series. A named series of no bucket
// (NAME_sum) is not read, as before.
func TestPrometheusAPIUnidentifiedSeries(t *testing.T) {
	read := func(results ...string) (*Histogram, error) {
		doc := `{"status":"success","data":{"resultType":"vector","result":[` + strings.Join(results, ",") + `]}}`
		return ReadPrometheusAPI(strings.NewReader(doc), "q.json", HistogramQuery{Unit: Seconds})
	}
	buckets := []string{
		`{"metric":{"le":"0.1"},"value":[1700000000,"10"]}`,
		`{"metric":{"le":"1"},"value":[1700000000,"100"]}`,
		`{"metric":{"le":"+Inf"},"value":[1700000000,"120"]}`,
	}
	if _, err := read(buckets...); err != nil {
		t.Fatalf("sum by (le) buckets alone: %v", err)
	}
	for _, tc := range []struct {
		name, extra, want string
	}{
		{"a count without __name__", `{"metric":{},"value":[1700000000,"500"]}`, `series {} has neither an le label nor a __name__`},
		{"a labelled count without __name__", `{"metric":{"job":"api"},"value":[1700000000,"500"]}`, `series {job="api"} has neither an le label nor a __name__`},
		{"a _count of other labels", `{"metric":{"__name__":"x_seconds_count","job":"api"},"value":[1700000000,"120"]}`, `series x_seconds_count{job="api"} is the _count of no bucket series in the result`},
	} {
		_, err := read(append(append([]string(nil), buckets...), tc.extra)...)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != "data.result" || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an input error at data.result: %q", tc.name, err, tc.want)
		}
	}
	h, err := read(append(append([]string(nil), buckets...), `{"metric":{"__name__":"x_seconds_sum"},"value":[1700000000,"30"]}`)...)
	if err != nil || h.Total() != 120 {
		t.Errorf("buckets and a named _sum: %v (total %v); want the buckets read", err, h)
	}
}
