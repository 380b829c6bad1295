package readers

import (
	"fmt"
	"io"
	"math"
	"strconv"

	commonpb "go.opentelemetry.io/proto/slim/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/slim/otlp/metrics/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// maxOTLPBytes bounds the OTLP JSON a reader loads into memory.
const maxOTLPBytes = 1 << 30

// ReadOTLP reads a histogram from OpenTelemetry metrics in OTLP JSON (what
// the collector's file exporter writes, or the body of an OTLP/HTTP JSON
// export: {"resourceMetrics": [...]}), decoded with OTel's protobuf types
// (go.opentelemetry.io/proto/otlp) and protojson. Both explicit-bucket
// histograms and exponential histograms are read; the bucket bounds are in
// the metric's unit ("s", "ms", "us"; q.Unit overrides it).
//
// A series is a metric with an attribute set. With cumulative temporality
// its latest data point is used (it holds every earlier one); with delta
// temporality its data points are added (they must share their bounds).
// A data point's count that disagrees with its buckets' total (added over
// delta points) is warned about, the buckets being read (Histogram.Warnings);
// a count of 0, which OTLP JSON cannot tell from none, is taken as none,
// and delta points give a count only when each does. An explicit-bucket
// point always ends with its +Inf bucket (one count more than bounds,
// else an error); a bound of NaN or ±Inf (OTLP's bounds are finite, the
// +Inf bucket implicit) is an error naming the data point.
// An exponential histogram's bucket i covers (base^(offset+i),
// base^(offset+i+1)] with base = 2^(2^−scale); its zero bucket must be
// empty and its negative buckets too, as latencies are > 0.
func ReadOTLP(r io.Reader, file string, q HistogramQuery) (*Histogram, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxOTLPBytes+1))
	if err != nil {
		return nil, inputErr(file, 0, "", "%v", err)
	}
	if len(data) > maxOTLPBytes {
		return nil, inputErr(file, 0, "", "larger than %d bytes", maxOTLPBytes)
	}
	var md metricspb.MetricsData
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(data, &md); err != nil {
		return nil, inputErr(file, 0, "", "not OTLP JSON metrics ({\"resourceMetrics\": [...]}): %v", err)
	}
	type acc struct {
		s      *series
		latest uint64
		delta  bool
		bounds []float64
		// count is the data points' count (added over delta points),
		// known when hasCount: every point gave one (a count of 0 is none).
		count    float64
		hasCount bool
	}
	var order []string
	accs := map[string]*acc{}
	for _, rm := range md.GetResourceMetrics() {
		res := attrs(rm.GetResource().GetAttributes())
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				unit := Unit(0)
				if m.GetUnit() != "" {
					if u, err := ParseUnit(m.GetUnit()); err == nil {
						unit = u
					}
				}
				// sum is the data point's sum, nil when it has none; count
				// its count, 0 when it has none (countOf).
				add := func(a map[string]string, t uint64, delta bool, bounds, counts []float64, sum *float64, count uint64) error {
					labels := map[string]string{}
					for k, v := range res {
						labels[k] = v
					}
					for k, v := range a {
						labels[k] = v
					}
					key := m.GetName() + labelString(labels)
					x := accs[key]
					if x == nil {
						x = &acc{s: &series{metric: m.GetName(), labels: labels, unit: unit}, delta: delta}
						accs[key] = x
						order = append(order, key)
					}
					switch {
					case x.s.counts == nil || (!delta && t >= x.latest):
						x.bounds, x.s.counts, x.latest = bounds, counts, t
						x.s.sum, x.s.hasSum = 0, sum != nil
						if sum != nil {
							x.s.sum = *sum
						}
						x.count, x.hasCount = float64(count), count > 0
					case delta:
						// The sum and the count are known only when every
						// point has one.
						x.s.hasSum = x.s.hasSum && sum != nil
						if x.s.hasSum {
							x.s.sum += *sum
						}
						x.hasCount = x.hasCount && count > 0
						x.count += float64(count)
						if len(bounds) != len(x.bounds) {
							return inputErr(file, 0, m.GetName(), "delta data points of %s with different buckets; cannot add them", key)
						}
						for i := range bounds {
							if bounds[i] != x.bounds[i] {
								return inputErr(file, 0, m.GetName(), "delta data points of %s with different buckets; cannot add them", key)
							}
							x.s.counts[i] += counts[i]
						}
					}
					return nil
				}
				if h := m.GetHistogram(); h != nil {
					delta := h.GetAggregationTemporality() == metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA
					for j, dp := range h.GetDataPoints() {
						b, c := dp.GetExplicitBounds(), dp.GetBucketCounts()
						if len(c) != len(b)+1 {
							return nil, inputErr(file, 0, m.GetName(), "a data point has %d bucket counts for %d bounds; want one more count than bounds", len(c), len(b))
						}
						for i, x := range b {
							if math.IsNaN(x) {
								return nil, inputErr(file, 0, m.GetName(), "data point %d: explicitBounds[%d] is NaN; want numbers in increasing order", j+1, i)
							}
							if math.IsInf(x, 0) {
								return nil, inputErr(file, 0, m.GetName(), "data point %d: explicitBounds[%d] is %v; want finite numbers in increasing order (OTLP's +Inf bucket is implicit: the last of the bucket counts, one more than the bounds)", j+1, i, x)
							}
						}
						bounds := append(append([]float64(nil), b...), math.Inf(1))
						if err := add(attrs(dp.GetAttributes()), dp.GetTimeUnixNano(), delta, bounds, toFloats(c), dp.Sum, dp.GetCount()); err != nil {
							return nil, err
						}
					}
				}
				if h := m.GetExponentialHistogram(); h != nil {
					delta := h.GetAggregationTemporality() == metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA
					for _, dp := range h.GetDataPoints() {
						bounds, counts, err := exponentialBuckets(file, m.GetName(), dp)
						if err != nil {
							return nil, err
						}
						if err := add(attrs(dp.GetAttributes()), dp.GetTimeUnixNano(), delta, bounds, counts, dp.Sum, dp.GetCount()); err != nil {
							return nil, err
						}
					}
				}
			}
		}
	}
	var all []*series
	for _, k := range order {
		x := accs[k]
		x.s.upper = x.bounds
		if held := sumOf(x.s.counts); x.hasCount && x.count != held {
			x.s.warnings = append(x.s.warnings, fmt.Sprintf("%s: count is %g but the buckets hold %g: the buckets are fitted; the two should agree (a count from another window, or an exporter that drops buckets?)", x.s.metric, x.count, held))
		}
		all = append(all, x.s)
	}
	return choose(file, "otlp", all, q)
}

// MaxHistogramBuckets bounds the buckets of a histogram that fit reads: the
// censored fit's cost grows faster than linearly with them, and latency
// histograms need far fewer (OTLP's default is 160).
const MaxHistogramBuckets = 4096

// exponentialBuckets returns the upper bounds and counts of an exponential
// histogram data point's positive buckets, starting with a bucket from 0.
func exponentialBuckets(file, name string, dp *metricspb.ExponentialHistogramDataPoint) ([]float64, []float64, error) {
	if dp.GetZeroCount() > 0 {
		return nil, nil, inputErr(file, 0, name, "%d observations in the zero bucket; latencies must be > 0", dp.GetZeroCount())
	}
	for _, c := range dp.GetNegative().GetBucketCounts() {
		if c > 0 {
			return nil, nil, inputErr(file, 0, name, "observations in negative buckets; latencies must be > 0")
		}
	}
	scale := dp.GetScale()
	if scale < -10 || scale > 20 {
		return nil, nil, inputErr(file, 0, name, "scale %d is out of range; OTLP allows -10 to 20", scale)
	}
	base := math.Pow(2, math.Pow(2, -float64(scale)))
	pos := dp.GetPositive()
	off := int(pos.GetOffset())
	c := pos.GetBucketCounts()
	if len(c) == 0 {
		return nil, nil, inputErr(file, 0, name, "no positive buckets")
	}
	if len(c) > MaxHistogramBuckets {
		return nil, nil, inputErr(file, 0, name, "%d buckets; at most %d are fitted (lower the scale to merge buckets)", len(c), MaxHistogramBuckets)
	}
	// A leading empty bucket from 0 to the first lower bound keeps the
	// buckets adjacent from 0.
	bounds := []float64{math.Pow(base, float64(off))}
	counts := []float64{0}
	for i, n := range c {
		bounds = append(bounds, math.Pow(base, float64(off+i+1)))
		counts = append(counts, float64(n))
	}
	for _, b := range bounds {
		if !(b > 0) || math.IsInf(b, 0) {
			return nil, nil, inputErr(file, 0, name, "offset %d at scale %d puts bucket bounds outside the numbers a float64 holds (%g): not latencies", off, scale, b)
		}
	}
	return bounds, counts, nil
}

// sumOf returns the sum of xs.
func sumOf(xs []float64) float64 {
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t
}

func toFloats(c []uint64) []float64 {
	out := make([]float64, len(c))
	for i, x := range c {
		out[i] = float64(x)
	}
	return out
}

// attrs returns OTLP attributes as strings.
func attrs(kvs []*commonpb.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		v := kv.GetValue()
		var s string
		switch x := v.GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			s = x.StringValue
		case *commonpb.AnyValue_IntValue:
			s = strconv.FormatInt(x.IntValue, 10)
		case *commonpb.AnyValue_DoubleValue:
			s = strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
		case *commonpb.AnyValue_BoolValue:
			s = strconv.FormatBool(x.BoolValue)
		default:
			s = fmt.Sprint(v)
		}
		out[kv.GetKey()] = s
	}
	return out
}
