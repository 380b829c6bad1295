package readers

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Histogram is a latency histogram: Counts[i] observations fell in the
// bucket (Lower[i], Upper[i]] seconds. Buckets are in increasing order and
// adjacent (Lower[i+1] == Upper[i]); the first starts at 0 (a histogram's
// first bucket, (−∞, b₀], holds latencies, which are > 0) and the last may
// end at +Inf. Counts are not cumulative.
type Histogram struct {
	// File is the file name given to the reader; Format is "prometheus",
	// "prometheus-api" or "otlp".
	File, Format string
	// Metric is the metric's name as written in the file (for Prometheus,
	// without the _bucket suffix).
	Metric string
	// Labels are the labels (attributes) of the chosen series, "le" and
	// "__name__" left out.
	Labels map[string]string
	// Unit is the unit the file's bounds were in (converted to seconds).
	Unit Unit
	// Lower, Upper and Counts are the buckets, in seconds.
	Lower, Upper, Counts []float64
	// Sum is the sum of the observations in seconds (Prometheus's _sum,
	// OTLP's sum), when HasSum: with Total it gives their mean, which the
	// buckets alone only bound.
	Sum    float64
	HasSum bool
	// Whole is false when a count is not a whole number (a Prometheus
	// rate() instead of increase(), say): the counts then do not tell
	// how many observations there were.
	Whole bool
	// Notes say how the series was chosen or merged.
	Notes []string
	// Warnings say what does not add up in the file, and what was
	// assumed: a _count other than the +Inf bucket's, a missing +Inf
	// bucket.
	Warnings []string
}

// Total returns the number of observations, the sum of Counts.
func (h *Histogram) Total() float64 {
	t := 0.0
	for _, c := range h.Counts {
		t += c
	}
	return t
}

// HistogramQuery chooses one histogram series in a file.
type HistogramQuery struct {
	// Metric is the metric name ("http_request_duration_seconds"; a
	// trailing "_bucket" is ignored). Empty: the file must hold exactly
	// one histogram metric.
	Metric string
	// Labels must all match the series' labels (attributes); other labels
	// of the series may have any value. Series that still differ only in
	// their labels are an error naming them.
	Labels map[string]string
	// Unit is the unit of the bucket bounds. Zero: from the file (OTLP's
	// unit field) or from the metric name (a "_seconds", "_milliseconds"
	// or "_ms" suffix); neither is an error. A Unit that contradicts the
	// file's or the name's is used, with a warning naming both
	// (Histogram.Warnings).
	Unit Unit
}

// series is one candidate histogram before selection: cumulative (or
// plain) counts keyed by upper bound.
type series struct {
	metric string
	labels map[string]string
	unit   Unit // from the file; 0 when unstated
	upper  []float64
	counts []float64 // per bucket, not cumulative
	line   int       // where the series starts, 0 if unknown
	// warnings say what was assumed of it (see Histogram.Warnings).
	warnings []string
	// err is what is wrong with its counts (newSeries), reported only
	// when it is the series chosen.
	err    error
	sum    float64 // the observations' sum in the file's unit, when hasSum
	hasSum bool
}

// seriesName is metric{labels}, or metric alone when it has no labels.
func seriesName(metric string, labels map[string]string) string {
	if len(labels) == 0 {
		return metric
	}
	return metric + labelString(labels)
}

// labelString writes labels as {a="x", b="y"} in key order.
func labelString(l map[string]string) string {
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%q", k, clip(l[k]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// matches reports whether the series satisfies q's metric and labels.
func (s *series) matches(q *HistogramQuery) bool {
	if q.Metric != "" && s.metric != strings.TrimSuffix(q.Metric, "_bucket") {
		return false
	}
	for k, v := range q.Labels {
		if s.labels[k] != v {
			return false
		}
	}
	return true
}

// choose picks the one series that matches q and converts it to a
// Histogram in seconds.
func choose(file, format string, all []*series, q HistogramQuery) (*Histogram, error) {
	if len(all) == 0 {
		return nil, inputErr(file, 0, "", "no histogram in the file; want %s", formatWant(format))
	}
	var match []*series
	names := map[string]bool{}
	for _, s := range all {
		names[s.metric] = true
		if s.matches(&q) {
			match = append(match, s)
		}
	}
	list := func(ss []*series) string {
		var parts []string
		for _, s := range ss {
			parts = append(parts, s.metric+labelString(s.labels))
		}
		sort.Strings(parts)
		if len(parts) > 8 {
			parts = append(parts[:8], fmt.Sprintf("… (%d more)", len(parts)-8))
		}
		return strings.Join(parts, ", ")
	}
	switch {
	case len(match) == 0 && q.Metric != "" && !names[strings.TrimSuffix(q.Metric, "_bucket")]:
		var ns []string
		for n := range names {
			ns = append(ns, n)
		}
		sort.Strings(ns)
		return nil, inputErr(file, 0, q.Metric, "no such histogram; the file has: %s", quoteList(ns))
	case len(match) == 0:
		return nil, inputErr(file, 0, q.Metric, "no series has the labels %s; series: %s", labelString(q.Labels), list(all))
	case len(match) > 1:
		return nil, inputErr(file, 0, q.Metric, "%d series match; choose one by its labels (hedgesim fit --metric NAME --label KEY=VALUE): %s", len(match), list(match))
	}
	s := match[0]
	if s.err != nil {
		return nil, s.err
	}
	name := seriesName(s.metric, s.labels)
	stated, by, src := s.unit, "the file's unit field", "the file"
	if stated == 0 {
		stated, by, src = unitFromMetric(s.metric), "the metric's name "+s.metric, "the name"
	}
	warnings := slices.Clone(s.warnings)
	unit := q.Unit
	switch {
	case unit == 0:
		unit = stated
	case stated != 0 && stated != unit:
		// The unit given wins (a metric may be misnamed, and then only it
		// reads the bounds right), but a contradiction is said: every
		// figure read is off by the factor between the two.
		warnings = append(warnings, fmt.Sprintf("the unit given (--unit %s) contradicts %s, which says %s: the bucket bounds are read as %s, %s what %s says; if %s is right, drop --unit",
			unit, by, stated, unit, factorWord(float64(unit/stated)), src, src))
	}
	if unit == 0 {
		return nil, inputErr(file, s.line, name, "the bucket bounds have no unit: the name does not end in _seconds or _milliseconds and the file does not say; state it with --unit s, ms or us")
	}
	h := &Histogram{File: file, Format: format, Metric: s.metric, Labels: s.labels, Unit: unit, Whole: true, Warnings: warnings}
	if s.hasSum && !math.IsNaN(s.sum) && !math.IsInf(s.sum, 0) {
		h.Sum, h.HasSum = s.sum*float64(unit), true
	}
	lower := 0.0
	for i, u := range s.upper {
		c := s.counts[i]
		if math.IsNaN(c) || c < 0 || math.IsInf(c, 0) {
			return nil, inputErr(file, s.line, name, "bucket le=%g has count %g; want a finite count ≥ 0 (cumulative counts must not decrease)", u, c)
		}
		if c != math.Trunc(c) {
			h.Whole = false
		}
		up := u * float64(unit)
		if !math.IsInf(u, 1) && !(up > lower) {
			if i == 0 && up <= 0 {
				// A bucket at or below 0 s holds no latency; its count is
				// carried into the first positive bucket.
				if c > 0 {
					return nil, inputErr(file, s.line, name, "%g observations at or below %g; latencies must be > 0", c, u)
				}
				continue
			}
			return nil, inputErr(file, s.line, name, "bucket bounds are not increasing at le=%g", u)
		}
		h.Lower = append(h.Lower, lower)
		h.Upper = append(h.Upper, up)
		h.Counts = append(h.Counts, c)
		lower = up
	}
	if len(h.Counts) < 2 {
		return nil, inputErr(file, s.line, name, "%d bucket(s); a fit needs at least 2", len(h.Counts))
	}
	if !(h.Total() > 0) {
		return nil, inputErr(file, s.line, name, "every bucket is empty; nothing to fit")
	}
	return h, nil
}

func formatWant(format string) string {
	switch format {
	case "prometheus":
		return "a metric of TYPE histogram with _bucket{le=\"…\"} series"
	case "prometheus-api":
		return "a query result of _bucket series with an le label"
	}
	return "a histogram or exponentialHistogram metric"
}

// factorWord says how a latency read with a unit f times the one meant
// compares with it: "1000 times" or "1/1000 of".
func factorWord(f float64) string {
	if f >= 1 {
		return strconv.FormatFloat(f, 'g', 4, 64) + " times"
	}
	return "1/" + strconv.FormatFloat(1/f, 'g', 4, 64) + " of"
}

// unitFromMetric reads the unit from a metric name's suffix, as Prometheus
// naming conventions write it.
func unitFromMetric(name string) Unit {
	n := strings.TrimSuffix(name, "_bucket")
	switch {
	case strings.HasSuffix(n, "_seconds"):
		return Seconds
	case strings.HasSuffix(n, "_milliseconds"), strings.HasSuffix(n, "_ms"):
		return Milliseconds
	case strings.HasSuffix(n, "_microseconds"), strings.HasSuffix(n, "_us"):
		return Microseconds
	}
	return 0
}

// fromCumulative turns cumulative bucket counts (sorted by upper bound)
// into per-bucket counts; a decrease is an error.
func fromCumulative(file string, line int, metric string, upper, cum []float64) ([]float64, error) {
	out := make([]float64, len(cum))
	prev := 0.0
	for i, c := range cum {
		if c < prev {
			return nil, inputErr(file, line, metric, "cumulative count falls from %g to %g at le=%g; bucket counts of a histogram never decrease", prev, c, upper[i])
		}
		out[i] = c - prev
		prev = c
	}
	return out, nil
}
