package retune

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/hedgesim/hedgesim/readers"
	"github.com/hedgesim/hedgesim/sim"
)

// Source is the text of a histogram source: a Prometheus text-format file
// or /metrics page ("prometheus"), the JSON of a Prometheus HTTP API query
// ("prometheus-api") or OTLP JSON ("otlp").
type Source struct {
	// Name is where the data came from (a path or URL), for messages.
	Name string
	// Format is "prometheus", "prometheus-api" or "otlp".
	Format string
	// Data is the whole text.
	Data []byte
}

// Formats are the source formats Read understands.
var Formats = []string{"prometheus", "prometheus-api", "otlp"}

// DefaultModelLabel is the label whose value names a scenario model when
// Query.ModelLabel is empty.
const DefaultModelLabel = "model"

// Query says which series of a source is which model's histogram.
type Query struct {
	// Metric is the histogram's name; empty means the source's only
	// histogram metric.
	Metric string
	// Labels must all match the series (--label KEY=VALUE).
	Labels map[string]string
	// ModelLabel is the label naming the model (default "model"): model
	// M's series is the one whose ModelLabel is M and whose other labels
	// match Labels. When Labels sets ModelLabel itself, Models must name
	// exactly one model, whose series that is. NoModelLabel matches
	// series by Metric and Labels alone (a saved sum by (le) result has
	// no labels): then, too, one model only.
	ModelLabel   string
	NoModelLabel bool
	// Models restricts the read to these scenario models; empty means
	// every model of the scenario.
	Models []string
	// Unit is the unit of the bucket bounds; zero means from the source
	// (see readers.HistogramQuery).
	Unit readers.Unit
}

// Live is one model's live histogram.
type Live struct {
	// Model is the scenario model's name and Index its position in
	// sim.Config.Models.
	Model string
	Index int
	// Key is the scenario key the histogram stands for: "latency" for a
	// whole-call model, "ttft" for a streamed one (its time to first token).
	Key string
	// Query says in words which series was asked for ("NAME{model="x"}").
	Query string
	// Hist is the histogram, in seconds.
	Hist *readers.Histogram
}

// InputError is a source that cannot give a model its histogram: the
// model, the query and why. It is bad input (exit status 2).
type InputError struct {
	Model, Query, Source string
	Err                  error
}

func (e *InputError) Error() string {
	return fmt.Sprintf("model %s: query %s in %s: %v", e.Model, e.Query, e.Source, e.Err)
}

func (e *InputError) Unwrap() error { return e.Err }

// Read returns the live histogram of every model q names (every model of
// cfg by default), in cfg's model order. Every error is an *InputError
// naming the model and its query, or an error about q itself (a model
// that cfg does not define, an unknown format): all of them bad input.
func Read(src Source, cfg *sim.Config, q Query) ([]Live, error) {
	if !slices.Contains(Formats, src.Format) {
		return nil, fmt.Errorf("%s: format %q: want %s", src.Name, src.Format, strings.Join(Formats, ", "))
	}
	key := q.ModelLabel
	if key == "" {
		key = DefaultModelLabel
	}
	want, err := q.wanted(cfg)
	if err != nil {
		return nil, err
	}
	if _, fixed := q.Labels[key]; fixed && len(want) != 1 {
		return nil, fmt.Errorf("--label %s=%s names one series, but %d models want one each (%s): choose the model with --model NAME, or drop the label to match each model by its %s label",
			key, q.Labels[key], len(want), strings.Join(want, ", "), key)
	}
	var out []Live
	for i, m := range cfg.Models {
		if !slices.Contains(want, m.Name) {
			continue
		}
		labels := maps.Clone(q.Labels)
		if labels == nil {
			labels = map[string]string{}
		}
		if _, fixed := labels[key]; !fixed && !q.NoModelLabel {
			labels[key] = m.Name
		}
		hq := readers.HistogramQuery{Metric: q.Metric, Labels: labels, Unit: q.Unit}
		desc := describeQuery(q.Metric, labels)
		var h *readers.Histogram
		var err error
		r := bytes.NewReader(src.Data)
		switch src.Format {
		case "prometheus":
			h, err = readers.ReadPrometheusText(r, src.Name, hq)
		case "prometheus-api":
			h, err = readers.ReadPrometheusAPI(r, src.Name, hq)
		case "otlp":
			h, err = readers.ReadOTLP(r, src.Name, hq)
		}
		if err != nil {
			return nil, &InputError{Model: m.Name, Query: desc, Source: src.Name, Err: err}
		}
		desc = describeQuery(h.Metric, labels) // the metric found, when not named
		k := "latency"
		if m.Latency == nil {
			k = "ttft"
		}
		out = append(out, Live{Model: m.Name, Index: i, Key: k, Query: desc, Hist: h})
	}
	if len(out) == 0 {
		return nil, errors.New("no model to read")
	}
	return out, nil
}

// describeQuery writes a query as NAME{k="v", …}, keys sorted; for an
// empty metric, "the only histogram's series {k="v", …}" (or "the only
// histogram" without labels).
func describeQuery(metric string, labels map[string]string) string {
	keys := slices.Collect(maps.Keys(labels))
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%q", k, labels[k])
	}
	set := "{" + strings.Join(parts, ", ") + "}"
	switch {
	case metric != "":
		return metric + set
	case len(parts) == 0:
		return "the only histogram"
	}
	return "the only histogram's series " + set
}

// wanted returns the scenario models q asks for (every model of cfg when
// q names none); an error when q names a model cfg lacks, or when without
// a model label more than one model would get the same series.
func (q Query) wanted(cfg *sim.Config) ([]string, error) {
	names := make([]string, len(cfg.Models))
	for i, m := range cfg.Models {
		names[i] = m.Name
	}
	for _, m := range q.Models {
		if !slices.Contains(names, m) {
			return nil, fmt.Errorf("model %q is not in the scenario; its models: %s", m, strings.Join(names, ", "))
		}
	}
	want := q.Models
	if len(want) == 0 {
		want = names
	}
	if q.NoModelLabel && len(want) != 1 {
		return nil, fmt.Errorf("without a model label every model would get the same series, and %d models want one each (%s): choose the model with --model NAME", len(want), strings.Join(want, ", "))
	}
	return want, nil
}
