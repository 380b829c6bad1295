package dist

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func f(v float64) *float64 { return &v }

func TestSpecBuildErrors(t *testing.T) {
	// Every validation rule, with the key it must name and a fragment the
	// message must contain: the bad value where there is one, otherwise the
	// word saying what is missing.
	lnOK := Spec{Kind: "lognormal", Mu: f(0), Sigma: f(1)}
	for _, tc := range []struct {
		name string
		spec Spec
		key  string
		want string // fragment of Msg
	}{
		// kind
		{"kind missing", Spec{Mu: f(0)}, "kind", "missing; one of constant, uniform"},
		{"kind unknown", Spec{Kind: "lognorml"}, "kind", `"lognorml" is unknown; one of constant, uniform, exponential, lognormal, gamma, weibull, pareto, mixture, empirical, quantiles`},
		{"kind wrong case", Spec{Kind: "LogNormal"}, "kind", `"LogNormal" is unknown`},
		// keys that do not belong to the kind
		{"key for other kind", Spec{Kind: "uniform", Min: f(1), Max: f(2), Mu: f(0)}, "mu", `does not apply to kind "uniform"; allowed keys: min, max`},
		{"min on quantiles", Spec{Kind: "quantiles", Min: f(0.01), Quantiles: map[string]float64{"p50": 1, "p90": 2}}, "min", `does not apply to kind "quantiles"; allowed keys: quantiles`},
		{"values on mixture", Spec{Kind: "mixture", Values: []float64{1}}, "values", `does not apply to kind "mixture"`},
		{"lognormal mixes forms", Spec{Kind: "lognormal", Mu: f(0), Sigma: f(1), Median: f(1)}, "median", "cannot be combined with mu"},
		{"lognormal mixes forms p95", Spec{Kind: "lognormal", Sigma: f(1), P95: f(3)}, "p95", "cannot be combined with sigma"},
		// required parameters
		{"constant value missing", Spec{Kind: "constant"}, "value", "missing"},
		{"uniform max missing", Spec{Kind: "uniform", Min: f(1)}, "max", "missing"},
		{"exponential rate missing", Spec{Kind: "exponential"}, "rate", "missing"},
		{"lognormal nothing", Spec{Kind: "lognormal"}, "mu", "missing; kind \"lognormal\" takes either mu and sigma, or median and p95"},
		{"lognormal sigma missing", Spec{Kind: "lognormal", Mu: f(0)}, "sigma", "missing"},
		{"lognormal mu missing", Spec{Kind: "lognormal", Sigma: f(1)}, "mu", "missing"},
		{"lognormal p95 missing", Spec{Kind: "lognormal", Median: f(1)}, "p95", "missing"},
		{"gamma alpha missing", Spec{Kind: "gamma", Rate: f(1)}, "alpha", "missing"},
		{"gamma rate missing", Spec{Kind: "gamma", Alpha: f(1)}, "rate", "missing"},
		{"weibull lambda missing", Spec{Kind: "weibull", K: f(1)}, "lambda", "missing"},
		{"pareto xm missing", Spec{Kind: "pareto", Alpha: f(2)}, "xm", "missing"},
		{"mixture no components", Spec{Kind: "mixture", Weights: []float64{1}}, "components", "missing or empty"},
		{"empirical no values", Spec{Kind: "empirical", Values: []float64{}}, "values", "missing or empty"},
		{"quantiles missing", Spec{Kind: "quantiles"}, "quantiles", "missing; kind \"quantiles\" needs at least two entries"},
		// finite numbers
		{"constant NaN", Spec{Kind: "constant", Value: f(math.NaN())}, "value", "NaN is not allowed; must be finite"},
		{"mu Inf", Spec{Kind: "lognormal", Mu: f(math.Inf(1)), Sigma: f(1)}, "mu", "+Inf is not allowed; must be finite"},
		{"uniform -Inf", Spec{Kind: "uniform", Min: f(math.Inf(-1)), Max: f(1)}, "min", "-Inf is not allowed"},
		{"rate Inf", Spec{Kind: "exponential", Rate: f(math.Inf(1))}, "rate", "+Inf is not allowed; must be finite and > 0"},
		// ranges
		{"uniform min ≥ max", Spec{Kind: "uniform", Min: f(5), Max: f(3)}, "min", "5 must be < max (3)"},
		{"uniform min = max", Spec{Kind: "uniform", Min: f(3), Max: f(3)}, "min", "3 must be < max (3)"},
		{"exponential rate 0", Spec{Kind: "exponential", Rate: f(0)}, "rate", "0 is not allowed; must be > 0"},
		{"lognormal sigma negative", Spec{Kind: "lognormal", Mu: f(0), Sigma: f(-0.3)}, "sigma", "-0.3 is not allowed; must be > 0"},
		{"lognormal median 0", Spec{Kind: "lognormal", Median: f(0), P95: f(3)}, "median", "0 is not allowed; must be > 0"},
		{"lognormal p95 ≤ median", Spec{Kind: "lognormal", Median: f(0.8), P95: f(0.5)}, "p95", "0.5 must be > median (0.8)"},
		{"gamma alpha negative", Spec{Kind: "gamma", Alpha: f(-2), Rate: f(1)}, "alpha", "-2 is not allowed; must be > 0"},
		{"gamma rate negative", Spec{Kind: "gamma", Alpha: f(2), Rate: f(-1.5)}, "rate", "-1.5 is not allowed; must be > 0"},
		// A shape near the largest float64 made Quantile (gonum's inverse
		// incomplete gamma) loop forever: refused with the bound.
		{"gamma alpha huge", Spec{Kind: "gamma", Alpha: f(1.25e307), Rate: f(1)}, "alpha", "is above the largest shape, 1e+09"},
		{"weibull k 0", Spec{Kind: "weibull", K: f(0), Lambda: f(1)}, "k", "0 is not allowed; must be > 0"},
		{"weibull lambda negative", Spec{Kind: "weibull", K: f(1), Lambda: f(-4)}, "lambda", "-4 is not allowed; must be > 0"},
		{"pareto xm 0", Spec{Kind: "pareto", Xm: f(0), Alpha: f(2)}, "xm", "0 is not allowed; must be > 0"},
		{"pareto alpha negative", Spec{Kind: "pareto", Xm: f(1), Alpha: f(-0.5)}, "alpha", "-0.5 is not allowed; must be > 0"},
		// mixture
		{"weights count", Spec{Kind: "mixture", Weights: []float64{1, 2}, Components: []Spec{lnOK, lnOK, lnOK}}, "weights", "2 weights for 3 components; need one weight per component"},
		{"weights missing", Spec{Kind: "mixture", Components: []Spec{lnOK}}, "weights", "0 weights for 1 component;"},
		{"weight zero", Spec{Kind: "mixture", Weights: []float64{1, 0}, Components: []Spec{lnOK, lnOK}}, "weights[1]", "0 is not allowed; must be > 0"},
		{"weight NaN", Spec{Kind: "mixture", Weights: []float64{math.NaN()}, Components: []Spec{lnOK}}, "weights[0]", "NaN is not allowed"},
		{"component invalid", Spec{Kind: "mixture", Weights: []float64{1, 1}, Components: []Spec{lnOK, {Kind: "lognormal", Mu: f(0), Sigma: f(-0.3)}}}, "components[1].sigma", "-0.3 is not allowed; must be > 0"},
		{"component kind", Spec{Kind: "mixture", Weights: []float64{1}, Components: []Spec{{Kind: "normal"}}}, "components[0].kind", `"normal" is unknown`},
		{"nested component", Spec{Kind: "mixture", Weights: []float64{1}, Components: []Spec{
			{Kind: "mixture", Weights: []float64{1, 1}, Components: []Spec{lnOK, {Kind: "uniform", Min: f(5), Max: f(3)}}},
		}}, "components[0].components[1].min", "5 must be < max (3)"},
		// empirical
		{"empirical NaN", Spec{Kind: "empirical", Values: []float64{1, 2, math.NaN()}}, "values[2]", "NaN is not allowed; must be finite"},
		// quantiles
		{"quantiles empty", Spec{Kind: "quantiles", Quantiles: map[string]float64{}}, "quantiles", "0 entries;"},
		{"quantiles one entry", Spec{Kind: "quantiles", Quantiles: map[string]float64{"p50": 1}}, "quantiles", "1 entry; kind \"quantiles\" needs at least two entries"},
		{"quantiles bad name", Spec{Kind: "quantiles", Quantiles: map[string]float64{"p50": 1, "median": 2}}, "quantiles.median", `name "median" is not a percentile`},
		{"quantiles bad name P", Spec{Kind: "quantiles", Quantiles: map[string]float64{"P50": 1, "p90": 2}}, "quantiles.P50", `name "P50" is not a percentile`},
		{"quantiles p0", Spec{Kind: "quantiles", Quantiles: map[string]float64{"p0": 1, "p90": 2}}, "quantiles.p0", "percentile 0 is not allowed; must be in (0, 100)"},
		{"quantiles p100", Spec{Kind: "quantiles", Quantiles: map[string]float64{"p50": 1, "p100": 2}}, "quantiles.p100", "percentile 100 is not allowed; must be in (0, 100)"},
		{"quantiles value 0", Spec{Kind: "quantiles", Quantiles: map[string]float64{"p50": 0, "p90": 2}}, "quantiles.p50", "0 is not allowed; must be > 0"},
		{"quantiles value NaN", Spec{Kind: "quantiles", Quantiles: map[string]float64{"p50": 1, "p90": math.NaN()}}, "quantiles.p90", "NaN is not allowed"},
		{"quantiles not increasing", Spec{Kind: "quantiles", Quantiles: map[string]float64{"p50": 0.4, "p90": 0.3, "p99": 2}}, "quantiles.p90", "0.3 must be > quantiles.p50 (0.4)"},
		{"quantiles equal values", Spec{Kind: "quantiles", Quantiles: map[string]float64{"p50": 0.4, "p90": 0.5, "p99.9": 0.5}}, `quantiles."p99.9"`, `0.5 must be > quantiles.p90 (0.5)`},
		{"quantiles same percentile", Spec{Kind: "quantiles", Quantiles: map[string]float64{"p50": 0.4, "p50.0": 0.5}}, `quantiles."p50.0"`, `"p50.0" is the same percentile as quantiles.p50`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := tc.spec.Build()
			if err == nil {
				t.Fatalf("Build() = %v, want error at %s", d, tc.key)
			}
			if d != nil {
				t.Errorf("Build() returned %v with the error", d)
			}
			var se *SpecError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is %T, want *SpecError", err, err)
			}
			if se.Key != tc.key {
				t.Errorf("Key = %q, want %q (error %q)", se.Key, tc.key, err)
			}
			if !strings.Contains(se.Msg, tc.want) {
				t.Errorf("Msg = %q, want it to contain %q", se.Msg, tc.want)
			}
			if err.Error() != se.Key+": "+se.Msg {
				t.Errorf("Error() = %q, want %q", err.Error(), se.Key+": "+se.Msg)
			}
		})
	}
}

func TestSpecErrorMessages(t *testing.T) {
	// The exact wording of the messages quoted in the package's design.
	for _, tc := range []struct {
		spec Spec
		want string
	}{
		{Spec{Kind: "lognormal", Mu: f(0), Sigma: f(-0.3)}, "sigma: -0.3 is not allowed; must be > 0"},
		{Spec{Kind: "lognorml"}, `kind: "lognorml" is unknown; one of constant, uniform, exponential, lognormal, gamma, weibull, pareto, mixture, empirical, quantiles`},
		{Spec{Kind: "uniform", Min: f(5), Max: f(3)}, "min: 5 must be < max (3)"},
		{Spec{Kind: "mixture", Weights: []float64{1, 1}, Components: []Spec{{}, {}, {}}}, "weights: 2 weights for 3 components; need one weight per component"},
		{Spec{Kind: "uniform", Mu: f(1), Min: f(0), Max: f(1)}, `mu: does not apply to kind "uniform"; allowed keys: min, max`},
	} {
		_, err := tc.spec.Build()
		if err == nil || err.Error() != tc.want {
			t.Errorf("Build() error = %v, want %q", err, tc.want)
		}
	}
	// Value carries the offending value for the caller.
	_, err := Spec{Kind: "exponential", Rate: f(-2)}.Build()
	var se *SpecError
	if !errors.As(err, &se) || se.Value != -2.0 {
		t.Errorf("SpecError = %#v, want Value -2", err)
	}
}

func TestSpecBuildValid(t *testing.T) {
	ln, _ := LogNormalFromMedianP95(0.8, 3)
	for _, tc := range []struct {
		spec Spec
		want Continuous // compared with reflect.DeepEqual when not nil
		mean float64    // checked when want is nil
	}{
		{Spec{Kind: "constant", Value: f(0.25)}, Constant{Value: 0.25}, 0},
		{Spec{Kind: "uniform", Min: f(0.1), Max: f(0.3)}, Uniform{Min: 0.1, Max: 0.3}, 0},
		{Spec{Kind: "exponential", Rate: f(2)}, Exponential{Rate: 2}, 0},
		{Spec{Kind: "lognormal", Mu: f(-1), Sigma: f(0.5)}, LogNormal{Mu: -1, Sigma: 0.5}, 0},
		{Spec{Kind: "lognormal", Median: f(0.8), P95: f(3)}, ln, 0},
		{Spec{Kind: "gamma", Alpha: f(3), Rate: f(4)}, Gamma{Alpha: 3, Beta: 4}, 0},
		{Spec{Kind: "gamma", Alpha: f(MaxGammaShape), Rate: f(4)}, Gamma{Alpha: MaxGammaShape, Beta: 4}, 0},
		{Spec{Kind: "weibull", K: f(1.5), Lambda: f(2)}, Weibull{K: 1.5, Lambda: 2}, 0},
		{Spec{Kind: "pareto", Xm: f(0.1), Alpha: f(3)}, Pareto{Xm: 0.1, Alpha: 3}, 0},
		{Spec{Kind: "mixture", Weights: []float64{3, 1}, Components: []Spec{
			{Kind: "constant", Value: f(1)}, {Kind: "constant", Value: f(5)},
		}}, nil, 2},
		{Spec{Kind: "empirical", Values: []float64{3, 1, 2}}, nil, 2},
		{Spec{Kind: "quantiles", Quantiles: map[string]float64{"p50": 1, "p90": 2, "p99.9": 4}}, nil, 0},
	} {
		d, err := tc.spec.Build()
		if err != nil {
			t.Errorf("%s: %v", tc.spec.Kind, err)
			continue
		}
		if tc.want != nil {
			if !reflect.DeepEqual(d, tc.want) {
				t.Errorf("%s: Build() = %#v, want %#v", tc.spec.Kind, d, tc.want)
			}
		} else if tc.mean != 0 && math.Abs(d.Mean()-tc.mean) > 1e-15 {
			t.Errorf("%s: Mean = %v, want %v", tc.spec.Kind, d.Mean(), tc.mean)
		}
	}
	// The quantile table honours its published points, p99.9 included.
	d, err := Spec{Kind: "quantiles", Quantiles: map[string]float64{"p50": 1, "p90": 2, "p99.9": 4}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	for p, x := range map[float64]float64{0.5: 1, 0.9: 2, 0.999: 4} {
		if q := d.Quantile(p); math.Abs(q-x) > 1e-12*x {
			t.Errorf("quantiles: Quantile(%v) = %v, want %v", p, q, x)
		}
	}
}

func TestKinds(t *testing.T) {
	k := Kinds()
	want := []string{"constant", "uniform", "exponential", "lognormal", "gamma", "weibull", "pareto", "mixture", "empirical", "quantiles"}
	if !reflect.DeepEqual(k, want) {
		t.Errorf("Kinds() = %v, want %v", k, want)
	}
	k[0] = "changed"
	if Kinds()[0] != "constant" {
		t.Error("Kinds() returns the package's own slice")
	}
}

// TestGammaLargestShapeQuantile: at the largest shape Build accepts, the
// median is computed (it does not loop) and is the mean α/β within the
// distribution's own spread, √α/β.
func TestGammaLargestShapeQuantile(t *testing.T) {
	g := Gamma{Alpha: MaxGammaShape, Beta: 4}
	if q, m := g.Quantile(0.5), g.Mean(); math.Abs(q-m) > math.Sqrt(MaxGammaShape)/4 {
		t.Errorf("median %g, mean %g", q, m)
	}
}
