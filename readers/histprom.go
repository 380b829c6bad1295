package readers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// ReadPrometheusText reads a histogram from the Prometheus text exposition
// format (what a /metrics endpoint serves, parsed with the official
// github.com/prometheus/common/expfmt): a family of TYPE histogram, or
// NAME_bucket{le="…"} samples without a TYPE line. q chooses the metric and
// the series. Problems are *InputError values.
func ReadPrometheusText(r io.Reader, file string, q HistogramQuery) (*Histogram, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, inputErr(file, 0, "", "%v", err)
	}
	// The parser drops a bucket whose bound is NaN without a word.
	if loc := nanLE.FindIndex(data); loc != nil {
		return nil, inputErr(file, 1+bytes.Count(data[:loc[0]], []byte("\n")), "le", "a bucket bound of NaN; want a number or +Inf")
	}
	fams, broken, err := parseText(data, file)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(fams))
	for n := range fams {
		names = append(names, n)
	}
	sort.Strings(names)
	var all []*series
	for _, name := range names {
		f := fams[name]
		switch f.GetType() {
		case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
			for _, m := range f.GetMetric() {
				h := m.GetHistogram()
				var upper, cum []float64
				for _, b := range h.GetBucket() {
					c := float64(b.GetCumulativeCount())
					if b.CumulativeCountFloat != nil {
						c = b.GetCumulativeCountFloat()
					}
					upper = append(upper, b.GetUpperBound())
					cum = append(cum, c)
				}
				total := float64(h.GetSampleCount())
				if h.SampleCountFloat != nil {
					total = h.GetSampleCountFloat()
				}
				// The parser gives every series with a bucket count that
				// is not a whole uint64 (1.5, 1e301) a _count of 0, with
				// no _count line or with one: only the text tells.
				hasCount := (h.SampleCount != nil || h.SampleCountFloat != nil) && hasCountLine(data, name)
				upper, cum, warn := checkInf(name, upper, cum, total, hasCount)
				s := newSeries(file, name, labelsOf(m.GetLabel(), false), upper, cum)
				s.warnings = warn
				if h.SampleSum != nil {
					s.sum, s.hasSum = h.GetSampleSum(), true
				}
				all = append(all, s)
			}
		case dto.MetricType_UNTYPED, dto.MetricType_COUNTER, dto.MetricType_GAUGE:
			// NAME_bucket{le="…"} samples without a histogram TYPE line.
			if len(name) <= len("_bucket") || name[len(name)-len("_bucket"):] != "_bucket" {
				continue
			}
			groups := map[string]*leGroup{}
			var order []string
			for _, m := range f.GetMetric() {
				labels := labelsOf(m.GetLabel(), false)
				le, ok := leOf(m.GetLabel())
				if !ok {
					continue
				}
				v := m.GetUntyped().GetValue()
				if f.GetType() == dto.MetricType_COUNTER {
					v = m.GetCounter().GetValue()
				} else if f.GetType() == dto.MetricType_GAUGE {
					v = m.GetGauge().GetValue()
				}
				key := labelString(labels)
				g := groups[key]
				if g == nil {
					g = &leGroup{labels: labels}
					groups[key] = g
					order = append(order, key)
				}
				g.add(le, v)
			}
			base := name[:len(name)-len("_bucket")]
			sums, counts := sampleValues(fams[base+"_sum"]), sampleValues(fams[base+"_count"])
			for _, k := range order {
				upper, cum := groups[k].sorted()
				total, hasCount := counts[k]
				upper, cum, warn := checkInf(base, upper, cum, total, hasCount)
				s := newSeries(file, base, groups[k].labels, upper, cum)
				s.warnings = warn
				s.sum, s.hasSum = sums[k]
				all = append(all, s)
			}
		}
	}
	if dups := duplicateBuckets(data, file); dups != nil {
		for _, s := range all {
			if err := dups[s.metric+labelString(s.labels)]; err != nil {
				s.err = err // in place of the fall in counts the repeat reads as
			}
		}
	}
	all = append(all, broken...)
	h, err := choose(file, "prometheus", all, q)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// parseText parses data with expfmt. The parser stops at a histogram
// series with a negative bucket population; that series is set aside
// instead — its lines blanked, so that line numbers hold — and returned
// as a series whose err names it and the line, reported only when it is
// the series chosen (as a series whose counts fall is): a broken series
// beside the one asked for does not stop the read. Other parse errors
// are the file's.
func parseText(data []byte, file string) (map[string]*dto.MetricFamily, []*series, error) {
	var broken []*series
	for {
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := p.TextToMetricFamilies(bytes.NewReader(data))
		if err == nil {
			return fams, broken, nil
		}
		var pe expfmt.ParseError
		if !errors.As(err, &pe) {
			return nil, nil, inputErr(file, 0, "", "%v", err)
		}
		base, labels, ok := negativeSeries(data, pe)
		if !ok {
			return nil, nil, inputErr(file, pe.Line, "", "%s", pe.Msg)
		}
		name := seriesName(base, labels)
		broken = append(broken, &series{metric: base, labels: labels, line: pe.Line,
			err: inputErr(file, pe.Line, name, "%s: a bucket's count is below the one before it, or below 0 (cumulative counts must not decrease)", pe.Msg)})
		blanked := blankSeries(data, base, labels)
		if len(blanked) == len(data) {
			// Nothing set aside: the error stays the file's.
			return nil, nil, inputErr(file, pe.Line, name, "%s", pe.Msg)
		}
		data = blanked
	}
}

// negativeSeries returns the metric (without _bucket) and labels (le
// dropped) of the series at pe's line when pe is the parser's negative
// bucket population; ok false otherwise.
func negativeSeries(data []byte, pe expfmt.ParseError) (base string, labels map[string]string, ok bool) {
	if !strings.Contains(pe.Msg, "negative bucket population") || pe.Line < 1 {
		return "", nil, false
	}
	lines := bytes.Split(data, []byte("\n"))
	if pe.Line > len(lines) {
		return "", nil, false
	}
	m, name, ok := sampleOf(lines[pe.Line-1])
	if !ok {
		return "", nil, false
	}
	for _, suf := range []string{"_bucket", "_count", "_sum"} {
		if b, cut := strings.CutSuffix(name, suf); cut {
			return b, labelsOf(m.GetLabel(), false), true
		}
	}
	return "", nil, false
}

// sampleOf parses one sample line alone: its metric and name.
func sampleOf(line []byte) (*dto.Metric, string, bool) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(append(bytes.TrimSpace(line), '\n')))
	if err != nil || len(fams) != 1 {
		return nil, "", false
	}
	for n, f := range fams {
		if len(f.GetMetric()) == 1 {
			return f.GetMetric()[0], n, true
		}
	}
	return nil, "", false
}

// blankSeries returns data with every sample line of base's series with
// labels (its _bucket, _count and _sum) blanked.
func blankSeries(data []byte, base string, labels map[string]string) []byte {
	lines := bytes.Split(data, []byte("\n"))
	want := labelString(labels)
	for i, l := range lines {
		if !bytes.HasPrefix(bytes.TrimSpace(l), []byte(base)) {
			continue
		}
		m, name, ok := sampleOf(l)
		if !ok || (name != base+"_bucket" && name != base+"_count" && name != base+"_sum") {
			continue
		}
		if labelString(labelsOf(m.GetLabel(), false)) == want {
			lines[i] = nil
		}
	}
	return bytes.Join(lines, []byte("\n"))
}

// hasCountLine reports whether data has a sample of name's _count (a line
// starting NAME_count, with labels or a value after it).
func hasCountLine(data []byte, name string) bool {
	re := regexp.MustCompile(`(?m)^[ \t]*` + regexp.QuoteMeta(name) + `_count[ \t{]`)
	return re.Match(data)
}

// nanLE matches a bucket whose le label is NaN.
var nanLE = regexp.MustCompile(`le\s*=\s*"[+-]?(?i:nan)"`)

// checkInf checks a series' cumulative counts cum at bounds upper (in
// order) against its _count, total when hasCount. A series without a +Inf
// bucket gets one: holding total when there is a _count, else the last
// bucket's count (nothing above the last bound); either way a warning
// says so. A +Inf bucket that holds other than total is warned about (the
// buckets are what is fitted).
func checkInf(metric string, upper, cum []float64, total float64, hasCount bool) ([]float64, []float64, []string) {
	n := len(upper)
	if n == 0 {
		return upper, cum, nil
	}
	last := cum[n-1]
	switch {
	case math.IsInf(upper[n-1], 1) && hasCount && total != last && !math.IsNaN(total):
		return upper, cum, []string{fmt.Sprintf("%s_count is %g but the +Inf bucket holds %g: the buckets are fitted; the two should agree (a _count from another scrape or window, or an exporter that drops buckets?)", metric, total, last)}
	case math.IsInf(upper[n-1], 1):
		return upper, cum, nil
	case hasCount && total >= last:
		return append(upper, math.Inf(1)), append(cum, total), []string{fmt.Sprintf("no +Inf bucket: %s_count (%g) taken as the +Inf bucket's count, %g observations above le=%g", metric, total, total-last, upper[n-1])}
	}
	return append(upper, math.Inf(1)), append(cum, last), []string{fmt.Sprintf("no +Inf bucket (nor a %s_count to stand for it): assumed no observation above le=%g", metric, upper[n-1])}
}

// sampleValues returns the values of the samples of family f (untyped,
// counter or gauge: NAME_sum without a histogram TYPE line) by their
// labels as labelString writes them; nil for no family.
func sampleValues(f *dto.MetricFamily) map[string]float64 {
	if f == nil {
		return nil
	}
	out := map[string]float64{}
	for _, m := range f.GetMetric() {
		v := m.GetUntyped().GetValue()
		switch f.GetType() {
		case dto.MetricType_COUNTER:
			v = m.GetCounter().GetValue()
		case dto.MetricType_GAUGE:
			v = m.GetGauge().GetValue()
		}
		out[labelString(labelsOf(m.GetLabel(), false))] = v
	}
	return out
}

// leGroup collects the buckets of one series from le-labelled samples.
type leGroup struct {
	labels map[string]string
	le     []float64
	v      []float64
}

func (g *leGroup) add(le, v float64) { g.le, g.v = append(g.le, le), append(g.v, v) }

// sorted returns the bounds and cumulative values in bound order.
func (g *leGroup) sorted() ([]float64, []float64) {
	idx := make([]int, len(g.le))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return g.le[idx[a]] < g.le[idx[b]] })
	up, cum := make([]float64, len(idx)), make([]float64, len(idx))
	for i, j := range idx {
		up[i], cum[i] = g.le[j], g.v[j]
	}
	return up, cum
}

// newSeries returns the series of the cumulative counts cum at the upper
// bounds upper. Counts that fall are the series' err, named by its metric
// and labels, which choose returns only when the series is the one asked
// for: a broken series beside it does not stop a read.
func newSeries(file, metric string, labels map[string]string, upper, cum []float64) *series {
	s := &series{metric: metric, labels: labels, upper: upper}
	s.counts, s.err = fromCumulative(file, 0, seriesName(metric, labels), upper, cum)
	return s
}

// labelsOf returns the labels as a map, without "le" (and "__name__").
func labelsOf(pairs []*dto.LabelPair, keepLE bool) map[string]string {
	out := map[string]string{}
	for _, p := range pairs {
		if (p.GetName() == "le" && !keepLE) || p.GetName() == "__name__" {
			continue
		}
		out[p.GetName()] = p.GetValue()
	}
	return out
}

func leOf(pairs []*dto.LabelPair) (float64, bool) {
	for _, p := range pairs {
		if p.GetName() == "le" {
			v, err := strconv.ParseFloat(p.GetValue(), 64)
			return v, err == nil
		}
	}
	return 0, false
}

// promAPIResponse is the envelope of the Prometheus HTTP API
// (/api/v1/query and /api/v1/query_range).
type promAPIResponse struct {
	Status    string `json:"status"`
	Error     string `json:"error"`
	ErrorType string `json:"errorType"`
	Data      struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	} `json:"data"`
}

// ReadPrometheusAPI reads a histogram from the JSON a Prometheus HTTP API
// query returns (/api/v1/query, or /api/v1/query_range, whose last sample
// per series is used), such as
//
//	sum by (le) (increase(http_request_duration_seconds_bucket[1d]))
//
// A series with an le label is a bucket; series are grouped by their
// labels without "le", and each group's values at the le bounds are
// cumulative bucket counts. A series without le is told apart only by its
// name: a NAME_count sample of the same labels as a NAME_bucket group (in a
// result that keeps __name__) is checked against the +Inf bucket as the
// text format's _count is (checkInf: a warning when they disagree; without
// a +Inf bucket it stands for one, with a warning); other named series
// (NAME_sum) are not read. These are input errors: a group with neither a
// +Inf bucket nor a _count, a bound of NaN, a series with neither le nor
// __name__ (sum(increase(NAME_count[1d])): nothing says whether it is a
// _count, a _sum or another figure), and a NAME_count whose labels match
// no bucket group. The result types are decoded
// with github.com/prometheus/common/model. Query increase(), not rate():
// a rate is not a count of observations (Histogram.Whole is then false).
func ReadPrometheusAPI(r io.Reader, file string, q HistogramQuery) (*Histogram, error) {
	var resp promAPIResponse
	if err := json.NewDecoder(io.LimitReader(r, 1<<30)).Decode(&resp); err != nil {
		return nil, inputErr(file, 0, "", "not the JSON of a Prometheus API query: %v", err)
	}
	if resp.Status != "success" {
		return nil, inputErr(file, 0, "status", "the query failed (%q): %s %s", clip(resp.Status), clip(resp.ErrorType), clip(resp.Error))
	}
	type sample struct {
		metric model.Metric
		value  float64
	}
	var samples []sample
	switch resp.Data.ResultType {
	case "vector":
		var v model.Vector
		if err := json.Unmarshal(resp.Data.Result, &v); err != nil {
			return nil, inputErr(file, 0, "data.result", "%v", err)
		}
		for _, s := range v {
			samples = append(samples, sample{s.Metric, float64(s.Value)})
		}
	case "matrix":
		var m model.Matrix
		if err := json.Unmarshal(resp.Data.Result, &m); err != nil {
			return nil, inputErr(file, 0, "data.result", "%v", err)
		}
		for _, s := range m {
			if len(s.Values) > 0 {
				samples = append(samples, sample{s.Metric, float64(s.Values[len(s.Values)-1].Value)})
			}
		}
	default:
		return nil, inputErr(file, 0, "data.resultType", "%q; want \"vector\" (an instant query) or \"matrix\"", clip(resp.Data.ResultType))
	}
	groups := map[string]*leGroup{}
	metricOf := map[string]string{}
	// counts holds the NAME_count samples, by the key of their series: a
	// result that keeps __name__ can hold them beside the buckets.
	counts := map[string]float64{}
	countName := map[string]string{} // the _count series by key, for errors
	broken := map[string]error{}     // a series' bad bound, by key
	var order []string
	for _, s := range samples {
		labels := map[string]string{}
		for k, v := range s.metric {
			if k != "le" && k != model.MetricNameLabel {
				labels[string(k)] = string(v)
			}
		}
		name := string(s.metric[model.MetricNameLabel])
		leStr, ok := s.metric["le"]
		if !ok {
			if name == "" {
				// Without le and __name__ (sum(increase(NAME_count[1d])),
				// or a quantile) nothing says what the series is: a
				// _count, a _sum or another figure.
				return nil, inputErr(file, 0, "data.result", "series %s has neither an le label nor a __name__, so it cannot be told to be a bucket, a _count or anything else; query the buckets alone (sum by (le) (increase(NAME_bucket[1d]))), or select a _count by its name so that the result keeps __name__ (NAME_count)", labelString(labels))
			}
			if base, isCount := strings.CutSuffix(name, "_count"); isCount && base != "" {
				counts[base+labelString(labels)] = s.value
				countName[base+labelString(labels)] = name + labelString(labels)
			}
			continue // a named series of no bucket (NAME_sum) is not read
		}
		if len(name) > len("_bucket") && name[len(name)-len("_bucket"):] == "_bucket" {
			name = name[:len(name)-len("_bucket")]
		}
		key := name + labelString(labels)
		g := groups[key]
		if g == nil {
			g = &leGroup{labels: labels}
			groups[key] = g
			metricOf[key] = name
			order = append(order, key)
		}
		// A bad bound is the series' error, reported only when it is
		// the series chosen: a broken series beside it does not stop
		// the read.
		le, err := strconv.ParseFloat(string(leStr), 64)
		switch {
		case err != nil && broken[key] == nil:
			broken[key] = inputErr(file, 0, "le", "series %s has a bucket bound %q, not a number; want a number or +Inf", seriesName(name, labels), clip(string(leStr)))
		case err == nil && math.IsNaN(le) && broken[key] == nil:
			broken[key] = inputErr(file, 0, "le", "series %s has a bucket bound of NaN; want a number or +Inf", seriesName(name, labels))
		case err == nil && !math.IsNaN(le):
			g.add(le, s.value)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		if groups[k] == nil && len(groups) > 0 {
			return nil, inputErr(file, 0, "data.result", "series %s is the _count of no bucket series in the result: a NAME_count is matched to the NAME_bucket series of the same labels; the bucket series are %s", countName[k], bucketNames(groups, metricOf, order))
		}
	}
	var all []*series
	for _, k := range order {
		if err := broken[k]; err != nil {
			all = append(all, &series{metric: metricOf[k], labels: groups[k].labels, err: err})
			continue
		}
		upper, cum := groups[k].sorted()
		total, hasCount := counts[k]
		if !math.IsInf(upper[len(upper)-1], 1) && !hasCount {
			name := metricOf[k]
			if name == "" {
				name = "NAME" // a query result without __name__
			}
			// The series' error, as a bad bound is.
			all = append(all, &series{metric: metricOf[k], labels: groups[k].labels,
				err: inputErr(file, 0, "le", "series %s has no le=\"+Inf\" bucket (nor a %s_count sample to stand for it); query every bucket of the histogram", metricOf[k]+labelString(groups[k].labels), name)})
			continue
		}
		upper, cum, warn := checkInf(metricOf[k], upper, cum, total, hasCount)
		s := newSeries(file, metricOf[k], groups[k].labels, upper, cum)
		s.warnings = warn
		all = append(all, s)
	}
	if q.Metric != "" {
		// Aggregated queries (sum by (le)) drop __name__: a metric name
		// then cannot be matched, only stated for its unit suffix.
		for _, s := range all {
			if s.metric == "" {
				s.metric = q.Metric
			}
		}
	}
	return choose(file, "prometheus-api", all, q)
}

// bucketNames lists the bucket series of groups (by key, in order) as
// errors name them: NAME_bucket{labels}, or {labels} without __name__.
func bucketNames(groups map[string]*leGroup, metricOf map[string]string, order []string) string {
	names := make([]string, len(order))
	for i, k := range order {
		n := metricOf[k]
		if n != "" {
			n += "_bucket"
		}
		names[i] = n + labelString(groups[k].labels)
	}
	return strings.Join(names, ", ")
}
