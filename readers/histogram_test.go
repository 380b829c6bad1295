package readers

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

const promText = `# HELP llm_request_duration_seconds Time to a complete answer.
# TYPE llm_request_duration_seconds histogram
llm_request_duration_seconds_bucket{model="a",le="0.1"} 3
llm_request_duration_seconds_bucket{model="a",le="0.25"} 10
llm_request_duration_seconds_bucket{model="a",le="0.5"} 40
llm_request_duration_seconds_bucket{model="a",le="1"} 80
llm_request_duration_seconds_bucket{model="a",le="+Inf"} 100
llm_request_duration_seconds_sum{model="a"} 61.5
llm_request_duration_seconds_count{model="a"} 100
llm_request_duration_seconds_bucket{model="b",le="0.1"} 0
llm_request_duration_seconds_bucket{model="b",le="1"} 5
llm_request_duration_seconds_bucket{model="b",le="+Inf"} 7
llm_request_duration_seconds_sum{model="b"} 9
llm_request_duration_seconds_count{model="b"} 7
# TYPE other_total counter
other_total 4
`

// wantBuckets checks h against per-bucket counts and upper bounds in seconds.
func wantBuckets(t *testing.T, h *Histogram, upper, counts []float64) {
	t.Helper()
	if len(h.Counts) != len(counts) {
		t.Fatalf("%d buckets %v; want %d %v", len(h.Counts), h.Counts, len(counts), counts)
	}
	lower := 0.0
	for i := range counts {
		if h.Lower[i] != lower || math.Abs(h.Upper[i]-upper[i]) > 1e-12*upper[i] && !math.IsInf(upper[i], 1) || h.Counts[i] != counts[i] {
			t.Errorf("bucket %d: (%g, %g] %g; want (%g, %g] %g", i, h.Lower[i], h.Upper[i], h.Counts[i], lower, upper[i], counts[i])
		}
		lower = h.Upper[i]
	}
}

func TestReadPrometheusText(t *testing.T) {
	h, err := ReadPrometheusText(strings.NewReader(promText), "m.prom", HistogramQuery{Metric: "llm_request_duration_seconds", Labels: map[string]string{"model": "a"}})
	if err != nil {
		t.Fatal(err)
	}
	inf := math.Inf(1)
	wantBuckets(t, h, []float64{0.1, 0.25, 0.5, 1, inf}, []float64{3, 7, 30, 40, 20})
	if h.Unit != Seconds || !h.Whole || h.Total() != 100 || h.Labels["model"] != "a" || !h.HasSum || h.Sum != 61.5 {
		t.Errorf("got %+v; want 100 observations in seconds summing to 61.5 s", h)
	}
	// Without a TYPE line: the _bucket samples are grouped by their labels.
	untyped := strings.ReplaceAll(promText, "# TYPE llm_request_duration_seconds histogram\n", "")
	h, err = ReadPrometheusText(strings.NewReader(untyped), "m.prom", HistogramQuery{Metric: "llm_request_duration_seconds_bucket", Labels: map[string]string{"model": "b"}})
	if err != nil {
		t.Fatal(err)
	}
	wantBuckets(t, h, []float64{0.1, 1, inf}, []float64{0, 5, 2})
	if !h.HasSum || h.Sum != 9 {
		t.Errorf("untyped: sum %v (known %v); want the _sum sample of the same labels, 9 s", h.Sum, h.HasSum)
	}
	// Milliseconds from the name, or stated.
	ms := strings.ReplaceAll(promText, "_seconds", "_milliseconds")
	h, err = ReadPrometheusText(strings.NewReader(ms), "m.prom", HistogramQuery{Labels: map[string]string{"model": "b"}})
	if err != nil {
		t.Fatal(err)
	}
	wantBuckets(t, h, []float64{0.0001, 0.001, inf}, []float64{0, 5, 2})
	if !h.HasSum || math.Abs(h.Sum-0.009) > 1e-15 {
		t.Errorf("milliseconds: sum %v s; want 9 ms in seconds", h.Sum)
	}
	// Without _sum samples the sum is unknown.
	var noSum []string
	for _, l := range strings.Split(promText, "\n") {
		if !strings.Contains(l, "_sum") {
			noSum = append(noSum, l)
		}
	}
	h, err = ReadPrometheusText(strings.NewReader(strings.Join(noSum, "\n")), "m.prom", HistogramQuery{Labels: map[string]string{"model": "a"}})
	if err != nil || h.HasSum {
		t.Errorf("no _sum: %+v, %v; want the sum unknown", h, err)
	}
}

func TestReadPrometheusTextBad(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		q        HistogramQuery
		msg      string
	}{
		{"two series", promText, HistogramQuery{}, `2 series match; choose one by its labels (hedgesim fit --metric NAME --label KEY=VALUE): llm_request_duration_seconds{model="a"}`},
		{"no such metric", promText, HistogramQuery{Metric: "latency"}, `no such histogram; the file has: "llm_request_duration_seconds"`},
		{"no such labels", promText, HistogramQuery{Labels: map[string]string{"model": "c"}}, `no series has the labels {model="c"}`},
		{"no unit", strings.ReplaceAll(promText, "_seconds", "_time"), HistogramQuery{Labels: map[string]string{"model": "a"}}, "--unit"},
		{"syntax", "x_bucket{le=\"1\" 3\n", HistogramQuery{}, ""},
		{"decreasing", "# TYPE x_seconds histogram\nx_seconds_bucket{le=\"1\"} 5\nx_seconds_bucket{le=\"2\"} 3\nx_seconds_bucket{le=\"+Inf\"} 6\nx_seconds_count 6\nx_seconds_sum 1\n", HistogramQuery{}, "falls from 5 to 3"},
		{"empty", "", HistogramQuery{}, "no histogram in the file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadPrometheusText(strings.NewReader(tt.in), "m.prom", tt.q)
			if err == nil || !strings.Contains(err.Error(), tt.msg) || !strings.HasPrefix(err.Error(), "m.prom") {
				t.Errorf("got %v; want an error starting with m.prom containing %q", err, tt.msg)
			}
		})
	}
}

const promAPI = `{"status":"success","data":{"resultType":"vector","result":[
 {"metric":{"le":"0.5"},"value":[1700000000,"12"]},
 {"metric":{"le":"+Inf"},"value":[1700000000,"20"]},
 {"metric":{"le":"0.1"},"value":[1700000000,"2"]}
]}}`

func TestReadPrometheusAPI(t *testing.T) {
	h, err := ReadPrometheusAPI(strings.NewReader(promAPI), "q.json", HistogramQuery{Metric: "llm_request_duration_seconds"})
	if err != nil {
		t.Fatal(err)
	}
	wantBuckets(t, h, []float64{0.1, 0.5, math.Inf(1)}, []float64{2, 10, 8})
	rate := strings.ReplaceAll(promAPI, `"12"`, `"12.5"`)
	if h, err = ReadPrometheusAPI(strings.NewReader(rate), "q.json", HistogramQuery{Unit: Seconds}); err != nil || h.Whole {
		t.Errorf("fractional counts: whole %v, err %v; want Whole false", h != nil && h.Whole, err)
	}
	for _, bad := range []struct{ in, msg string }{
		{`{"status":"error","errorType":"bad_data","error":"parse error"}`, "the query failed"},
		{`{"status":"success","data":{"resultType":"scalar","result":[1,"2"]}}`, `"scalar"`},
		{strings.ReplaceAll(promAPI, `"+Inf"`, `"1"`), `no le="+Inf" bucket`},
		{`[]`, "not the JSON of a Prometheus API query"},
	} {
		if _, err := ReadPrometheusAPI(strings.NewReader(bad.in), "q.json", HistogramQuery{Unit: Seconds}); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("%s: got %v; want …%s…", bad.in, err, bad.msg)
		}
	}
}

const otlpJSON = `{"resourceMetrics":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"gateway"}}]},
 "scopeMetrics":[{"metrics":[
  {"name":"llm.duration","unit":"ms","histogram":{"aggregationTemporality":2,"dataPoints":[
    {"attributes":[{"key":"model","value":{"stringValue":"a"}}],"timeUnixNano":"1000","count":"4","bucketCounts":["1","3","0"],"explicitBounds":[100,500]},
    {"attributes":[{"key":"model","value":{"stringValue":"a"}}],"timeUnixNano":"2000","count":"10","sum":3500,"bucketCounts":["2","6","2"],"explicitBounds":[100,500]}
  ]}},
  {"name":"llm.exp","unit":"s","exponentialHistogram":{"aggregationTemporality":1,"dataPoints":[
    {"scale":0,"zeroCount":"0","positive":{"offset":-2,"bucketCounts":["1","2","3"]},"timeUnixNano":"1"},
    {"scale":0,"zeroCount":"0","positive":{"offset":-2,"bucketCounts":["1","0","1"]},"timeUnixNano":"2"}
  ]}}
 ]}]}]}`

func TestReadOTLP(t *testing.T) {
	// Cumulative: the latest data point; bounds in ms.
	h, err := ReadOTLP(strings.NewReader(otlpJSON), "m.json", HistogramQuery{Metric: "llm.duration", Labels: map[string]string{"model": "a", "service.name": "gateway"}})
	if err != nil {
		t.Fatal(err)
	}
	wantBuckets(t, h, []float64{0.1, 0.5, math.Inf(1)}, []float64{2, 6, 2})
	if !h.HasSum || math.Abs(h.Sum-3.5) > 1e-12 {
		t.Errorf("sum %v s (known %v); want the latest point's 3500 ms", h.Sum, h.HasSum)
	}
	// Delta exponential, scale 0 (base 2), offset -2: (0.25, 0.5], (0.5, 1], (1, 2], added over both points.
	h, err = ReadOTLP(strings.NewReader(otlpJSON), "m.json", HistogramQuery{Metric: "llm.exp"})
	if err != nil {
		t.Fatal(err)
	}
	wantBuckets(t, h, []float64{0.25, 0.5, 1, 2}, []float64{0, 2, 2, 4})
	if h.HasSum {
		t.Errorf("delta points without a sum: sum %v known; want unknown", h.Sum)
	}
	if _, err := ReadOTLP(strings.NewReader(`{"resourceMetrics": 3}`), "m.json", HistogramQuery{}); err == nil || !strings.Contains(err.Error(), "not OTLP JSON") {
		t.Errorf("got %v", err)
	}
	zero := strings.Replace(otlpJSON, `"zeroCount":"0"`, `"zeroCount":"5"`, 1)
	if _, err := ReadOTLP(strings.NewReader(zero), "m.json", HistogramQuery{Metric: "llm.exp"}); err == nil || !strings.Contains(err.Error(), "zero bucket") {
		t.Errorf("got %v", err)
	}
}

// TestReadOTLPExponentialBounds: more buckets than MaxHistogramBuckets,
// and bounds past what a float64 holds, are errors, not slow or invented
// fits.
func TestReadOTLPExponentialBounds(t *testing.T) {
	exp := func(scale, offset, n int) string {
		counts := strings.TrimSuffix(strings.Repeat(`"1",`, n), ",")
		return fmt.Sprintf(`{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"llm.exp","unit":"s","exponentialHistogram":{"dataPoints":[{"scale":%d,"positive":{"offset":%d,"bucketCounts":[%s]}}]}}]}]}]}`, scale, offset, counts)
	}
	for _, tc := range []struct {
		doc, want string
	}{
		{exp(8, -1000, MaxHistogramBuckets+1), "buckets; at most"},
		{exp(20, 2000000000, 3), "outside the numbers"},
	} {
		if _, err := ReadOTLP(strings.NewReader(tc.doc), "m.json", HistogramQuery{Metric: "llm.exp"}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v; want %q", err, tc.want)
		}
	}
	if _, err := ReadOTLP(strings.NewReader(exp(3, -8, 20)), "m.json", HistogramQuery{Metric: "llm.exp"}); err != nil {
		t.Errorf("a usual histogram: %v", err)
	}
}

// TestReadLabelSkipsBrokenSeries: a series whose cumulative counts fall
// beside the one --label selects does not stop the read (the field
// report's fit --label model=a failed on model="b"), in the text format
// with and without a TYPE line; asked for, the broken series is an error
// naming its labels.
func TestReadLabelSkipsBrokenSeries(t *testing.T) {
	good := `llm_request_duration_seconds_bucket{model="a",le="0.1"} 10
llm_request_duration_seconds_bucket{model="a",le="0.5"} 700
llm_request_duration_seconds_bucket{model="a",le="+Inf"} 2000
llm_request_duration_seconds_count{model="a"} 2000
llm_request_duration_seconds_bucket{model="b",le="0.1"} 10
llm_request_duration_seconds_bucket{model="b",le="0.25"} 5
llm_request_duration_seconds_bucket{model="b",le="+Inf"} 20
llm_request_duration_seconds_count{model="b"} 20
`
	for _, in := range []string{"# TYPE llm_request_duration_seconds histogram\n" + good, good} {
		h, err := ReadPrometheusText(strings.NewReader(in), "m.prom", HistogramQuery{Metric: "llm_request_duration_seconds", Labels: map[string]string{"model": "a"}})
		if err != nil || h.Total() != 2000 {
			t.Errorf("model a: %v, %v; want its 2000 observations", h, err)
		}
		_, err = ReadPrometheusText(strings.NewReader(in), "m.prom", HistogramQuery{Metric: "llm_request_duration_seconds", Labels: map[string]string{"model": "b"}})
		if err == nil || !strings.Contains(err.Error(), `llm_request_duration_seconds{model="b"}: cumulative count falls from 10 to 5 at le=0.25`) {
			t.Errorf("model b: %v; want the fall named with the series' labels", err)
		}
	}
}

// TestReadLabelSkipsBrokenNeighbour: a series beside the one --label
// selects, broken in a way the readers stopped on — in the text format a
// negative bucket population (which the parser refuses for the whole
// file), in Prometheus API JSON a bucket bound that is not a number or a
// series without le="+Inf" — no longer stops the read; asked for, the
// broken series' error names it with its labels. Before, each stopped
// the read of model a with exit 2, and the text and le="abc" errors named
// no series.
func TestReadLabelSkipsBrokenNeighbour(t *testing.T) {
	const name = "llm_request_duration_seconds"
	text := `# TYPE llm_request_duration_seconds histogram
llm_request_duration_seconds_bucket{model="a",le="0.1"} 10
llm_request_duration_seconds_bucket{model="a",le="0.5"} 700
llm_request_duration_seconds_bucket{model="a",le="+Inf"} 2000
llm_request_duration_seconds_count{model="a"} 2000
llm_request_duration_seconds_bucket{model="x",le="0.1"} -3
llm_request_duration_seconds_bucket{model="x",le="+Inf"} 5
llm_request_duration_seconds_count{model="x"} 5
`
	api := func(bad string) string {
		return `{"status":"success","data":{"resultType":"vector","result":[
{"metric":{"__name__":"llm_request_duration_seconds_bucket","model":"a","le":"0.1"},"value":[1,"10"]},
{"metric":{"__name__":"llm_request_duration_seconds_bucket","model":"a","le":"0.5"},"value":[1,"700"]},
{"metric":{"__name__":"llm_request_duration_seconds_bucket","model":"a","le":"+Inf"},"value":[1,"2000"]},
` + bad + `]}}`
	}
	for _, tc := range []struct {
		name, in, broken, want string
		read                   func(string, HistogramQuery) (*Histogram, error)
	}{
		{"text, negative bucket", text, "x", `m.prom:6: llm_request_duration_seconds{model="x"}: negative bucket population`,
			func(in string, q HistogramQuery) (*Histogram, error) {
				return ReadPrometheusText(strings.NewReader(in), "m.prom", q)
			}},
		{"api, le=abc", api(`{"metric":{"__name__":"llm_request_duration_seconds_bucket","model":"z","le":"abc"},"value":[1,"3"]}`), "z",
			`series llm_request_duration_seconds{model="z"} has a bucket bound "abc", not a number`,
			func(in string, q HistogramQuery) (*Histogram, error) {
				return ReadPrometheusAPI(strings.NewReader(in), "q.json", q)
			}},
		{"api, no +Inf", api(`{"metric":{"__name__":"llm_request_duration_seconds_bucket","model":"y","le":"0.5"},"value":[1,"3"]}`), "y",
			`series llm_request_duration_seconds{model="y"} has no le="+Inf" bucket`,
			func(in string, q HistogramQuery) (*Histogram, error) {
				return ReadPrometheusAPI(strings.NewReader(in), "q.json", q)
			}},
	} {
		h, err := tc.read(tc.in, HistogramQuery{Metric: name, Labels: map[string]string{"model": "a"}})
		if err != nil || h.Total() != 2000 {
			t.Errorf("%s: model a: %v, %v; want its 2000 observations", tc.name, h, err)
		}
		_, err = tc.read(tc.in, HistogramQuery{Metric: name, Labels: map[string]string{"model": tc.broken}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: model %s: %v; want %q", tc.name, tc.broken, err, tc.want)
		}
	}
}

// TestUnitContradictsName: a unit given (--unit) that contradicts the
// one the metric's name states used to be taken silently, so that a
// _seconds histogram read with --unit ms put every latency at 1/1000 of
// what it was and retune called every model shifted by −100 %. The unit
// given still wins (a misnamed metric can only be read with it), but the
// histogram now carries a warning naming both units and the factor; a
// unit that agrees, or a name that states none, gives no warning.
func TestUnitContradictsName(t *testing.T) {
	q := HistogramQuery{Labels: map[string]string{"model": "a"}, Unit: Milliseconds}
	h, err := ReadPrometheusText(strings.NewReader(promText), "m.txt", q)
	if err != nil {
		t.Fatal(err)
	}
	wantBuckets(t, h, []float64{1e-4, 2.5e-4, 5e-4, 1e-3, math.Inf(1)}, []float64{3, 7, 30, 40, 20})
	want := "the unit given (--unit ms) contradicts the metric's name llm_request_duration_seconds, which says s: the bucket bounds are read as ms, 1/1000 of what the name says; if the name is right, drop --unit"
	if len(h.Warnings) != 1 || h.Warnings[0] != want {
		t.Errorf("warnings %q; want [%q]", h.Warnings, want)
	}
	for _, u := range []Unit{Seconds, 0} {
		q.Unit = u
		if h, err := ReadPrometheusText(strings.NewReader(promText), "m.txt", q); err != nil || len(h.Warnings) != 0 {
			t.Errorf("unit %s: warnings %q, error %v; want none", u, h.Warnings, err)
		}
	}
	unnamed := strings.ReplaceAll(promText, "llm_request_duration_seconds", "llm_latency")
	q.Unit = Milliseconds
	if h, err := ReadPrometheusText(strings.NewReader(unnamed), "m.txt", q); err != nil || len(h.Warnings) != 0 {
		t.Errorf("a name without a unit: warnings %q, error %v; want none", h.Warnings, err)
	}
}
