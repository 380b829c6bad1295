package retune

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"google.golang.org/protobuf/proto"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/readers"
	"github.com/hedgesim/hedgesim/sim"
)

// promText writes the histograms as one Prometheus text-format family
// named metric, each series labelled model=NAME, with the official
// encoder (expfmt).
func promText(t *testing.T, metric string, hs map[string]*readers.Histogram) []byte {
	t.Helper()
	fam := &dto.MetricFamily{Name: proto.String(metric), Type: dto.MetricType_HISTOGRAM.Enum()}
	for name, h := range hs {
		hist := &dto.Histogram{}
		cum := uint64(0)
		for i, c := range h.Counts {
			cum += uint64(c)
			if math.IsInf(h.Upper[i], 1) {
				break
			}
			hist.Bucket = append(hist.Bucket, &dto.Bucket{UpperBound: proto.Float64(h.Upper[i]), CumulativeCount: proto.Uint64(cum)})
		}
		hist.SampleCount = proto.Uint64(uint64(h.Total()))
		hist.SampleSum = proto.Float64(0)
		fam.Metric = append(fam.Metric, &dto.Metric{
			Label:     []*dto.LabelPair{{Name: proto.String("model"), Value: proto.String(name)}},
			Histogram: hist,
		})
	}
	var b bytes.Buffer
	if _, err := expfmt.MetricFamilyToText(&b, fam); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func twoModels() *sim.Config {
	return &sim.Config{Models: []sim.Model{
		{Name: "a", Latency: dist.LogNormal{Mu: 0, Sigma: 0.5}},
		{Name: "b", TTFT: dist.LogNormal{Mu: -1, Sigma: 0.5}},
	}}
}

// TestReadByModelLabel: each model gets the series whose model label
// names it, with the counts the file holds.
func TestReadByModelLabel(t *testing.T) {
	ha := histogramOf(dist.LogNormal{Mu: 0, Sigma: 0.5}, 1000, expBounds(0.1, 1.5, 10), 1)
	hb := histogramOf(dist.LogNormal{Mu: -1, Sigma: 0.5}, 500, expBounds(0.1, 1.5, 10), 2)
	src := Source{Name: "metrics.txt", Format: "prometheus", Data: promText(t, "req_duration_seconds", map[string]*readers.Histogram{"a": ha, "b": hb})}
	live, err := Read(src, twoModels(), Query{Metric: "req_duration_seconds"})
	if err != nil {
		t.Fatal(err)
	}
	if len(live) != 2 || live[0].Model != "a" || live[1].Model != "b" {
		t.Fatalf("got %+v", live)
	}
	if live[0].Hist.Total() != 1000 || live[1].Hist.Total() != 500 {
		t.Errorf("totals %g, %g; want 1000, 500", live[0].Hist.Total(), live[1].Hist.Total())
	}
	if live[0].Key != "latency" || live[1].Key != "ttft" {
		t.Errorf("keys %s, %s; want latency, ttft", live[0].Key, live[1].Key)
	}
}

// TestReadNoModelLabel: without a model label the one model asked for
// gets the series its metric and labels choose; two models are an error.
func TestReadNoModelLabel(t *testing.T) {
	ha := histogramOf(dist.LogNormal{Mu: 0, Sigma: 0.5}, 1000, expBounds(0.1, 1.5, 10), 1)
	src := Source{Name: "metrics.txt", Format: "prometheus", Data: promText(t, "req_duration_seconds", map[string]*readers.Histogram{"other-name": ha})}
	live, err := Read(src, twoModels(), Query{NoModelLabel: true, Models: []string{"a"}})
	if err != nil || len(live) != 1 || live[0].Hist.Total() != 1000 {
		t.Fatalf("got %+v, %v", live, err)
	}
	if _, err := Read(src, twoModels(), Query{NoModelLabel: true}); err == nil || !strings.Contains(err.Error(), "--model NAME") {
		t.Errorf("two models without a model label: error %v", err)
	}
}

// TestReadBadInput: a model without a series, an unknown metric and a
// --label model=… for several models are errors naming the model and the
// query.
func TestReadBadInput(t *testing.T) {
	ha := histogramOf(dist.LogNormal{Mu: 0, Sigma: 0.5}, 1000, expBounds(0.1, 1.5, 10), 1)
	src := Source{Name: "metrics.txt", Format: "prometheus", Data: promText(t, "req_duration_seconds", map[string]*readers.Histogram{"a": ha})}
	for _, c := range []struct {
		name string
		q    Query
		want []string
	}{
		{"no series for b", Query{Metric: "req_duration_seconds"}, []string{"model b", `req_duration_seconds{model="b"}`, "metrics.txt", "no series has the labels"}},
		{"wrong metric", Query{Metric: "other_seconds"}, []string{"model a", `other_seconds{model="a"}`, "no such histogram"}},
		{"fixed label, two models", Query{Labels: map[string]string{"model": "a"}}, []string{"--label model=a", "--model NAME"}},
		{"unknown model", Query{Models: []string{"c"}}, []string{`model "c" is not in the scenario`}},
	} {
		_, err := Read(src, twoModels(), c.q)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.name, err, w)
			}
		}
	}
	_, err := Read(src, twoModels(), Query{Metric: "req_duration_seconds"})
	var ie *InputError
	if !errors.As(err, &ie) || ie.Model != "b" {
		t.Errorf("error %v is not an *InputError for model b", err)
	}
}

// TestDescribeQuery: a query names the metric and labels as PromQL does;
// without a metric it reads as words, not "(the only histogram){…}".
func TestDescribeQuery(t *testing.T) {
	for _, c := range []struct {
		metric string
		labels map[string]string
		want   string
	}{
		{"x_seconds", map[string]string{"model": "a", "az": "1"}, `x_seconds{az="1", model="a"}`},
		{"", map[string]string{"model": "embed-a"}, `the only histogram's series {model="embed-a"}`},
		{"", nil, "the only histogram"},
	} {
		if got := describeQuery(c.metric, c.labels); got != c.want {
			t.Errorf("describeQuery(%q, %v) = %q, want %q", c.metric, c.labels, got, c.want)
		}
	}
}
