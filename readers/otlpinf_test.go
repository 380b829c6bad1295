package readers

import (
	"errors"
	"strings"
	"testing"
)

// TestOTLPInfiniteBound: OTLP's explicit bounds are finite, its +Inf
// bucket implicit (one count more than bounds), so a bound of +Inf or
// -Inf ("Infinity" in OTLP JSON) is an input error naming the metric, the
// data point and the value — before, +Inf was read as a bucket bound and
// the fit reported a p99 "above the last finite bucket bound (+Inf s)".
func TestOTLPInfiniteBound(t *testing.T) {
	for _, tc := range []struct{ bound, want string }{
		{`"Infinity"`, "data point 1: explicitBounds[2] is +Inf"},
		{`"-Infinity"`, "data point 1: explicitBounds[2] is -Inf"},
	} {
		doc := otlpOf(2, `{"count":"100","bucketCounts":["20","60","15","5"],"explicitBounds":[100,500,`+tc.bound+`]}`)
		_, err := ReadOTLP(strings.NewReader(doc), "m.json", HistogramQuery{})
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != "d" || !strings.Contains(err.Error(), "m.json") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("bound %s: %v; want an input error of m.json at metric d: %q", tc.bound, err, tc.want)
		}
	}
}
