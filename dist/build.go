package dist

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// SpecError reports an invalid Spec. Key is the path of the offending entry
// relative to the Spec, written as in the scenario file: "sigma",
// "components[1].sigma", "weights[0]", "quantiles.p90", "kind". The caller
// (the scenario loader) prefixes its own path, such as "models.gpt.latency.".
type SpecError struct {
	// Key is the path of the offending entry relative to the Spec.
	Key string
	// Value is the offending value as decoded (a float64, string, []float64,
	// …), or nil when the entry is missing.
	Value any
	// Msg says what is wrong, quoting the bad value, and what is allowed,
	// e.g. "-0.3 is not allowed; must be > 0".
	Msg string
}

// Error returns "<Key>: <Msg>".
func (e *SpecError) Error() string { return e.Key + ": " + e.Msg }

// kindKeys is a Spec kind with the keys it accepts besides "kind".
type kindKeys struct {
	name string
	keys []string
}

// kinds lists the Spec kinds in the order used in messages.
var kinds = []kindKeys{
	{"constant", []string{"value"}},
	{"uniform", []string{"min", "max"}},
	{"exponential", []string{"rate"}},
	{"lognormal", []string{"mu", "sigma", "median", "p95"}},
	{"gamma", []string{"alpha", "rate"}},
	{"weibull", []string{"k", "lambda"}},
	{"pareto", []string{"xm", "alpha"}},
	{"mixture", []string{"weights", "components"}},
	{"empirical", []string{"values"}},
	{"quantiles", []string{"quantiles"}},
}

// Kinds returns the valid values of Spec.Kind, in the order of the Spec
// documentation.
func Kinds() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.name
	}
	return out
}

// KindKeys returns the keys a Spec of the given kind accepts besides
// "kind", in the order of the Spec documentation; nil for an unknown kind.
func KindKeys(kind string) []string {
	for _, k := range kinds {
		if k.name == kind {
			return append([]string(nil), k.keys...)
		}
	}
	return nil
}

// keyValue is a Spec key with its decoded value.
type keyValue struct {
	key string
	val any
}

// specKeys returns, in the order of the Spec fields, the TOML key and value
// of every field that is set (non-nil), so that keys that do not belong to
// the kind can be reported deterministically.
func (s *Spec) specKeys() []keyValue {
	type kv = keyValue
	var out []kv
	add := func(key string, p *float64) {
		if p != nil {
			out = append(out, kv{key, *p})
		}
	}
	add("value", s.Value)
	add("min", s.Min)
	add("max", s.Max)
	add("rate", s.Rate)
	add("mu", s.Mu)
	add("sigma", s.Sigma)
	add("median", s.Median)
	add("p95", s.P95)
	add("alpha", s.Alpha)
	add("k", s.K)
	add("lambda", s.Lambda)
	add("xm", s.Xm)
	if s.Weights != nil {
		out = append(out, kv{"weights", s.Weights})
	}
	if s.Components != nil {
		out = append(out, kv{"components", s.Components})
	}
	if s.Values != nil {
		out = append(out, kv{"values", s.Values})
	}
	if s.Quantiles != nil {
		out = append(out, kv{"quantiles", s.Quantiles})
	}
	return out
}

// Build validates s and returns the distribution it describes. Every
// problem is reported as a *SpecError naming the key at fault:
//
//   - kind is required and must be one of Kinds();
//   - a key that does not apply to the kind is rejected; kind "lognormal"
//     takes either mu and sigma or median and p95, not a mix;
//   - the kind's parameters must be present, and every number finite;
//   - uniform: min < max; exponential rate, gamma alpha and rate, weibull k
//     and lambda, pareto xm and alpha, lognormal sigma: > 0; gamma alpha
//     ≤ MaxGammaShape; lognormal
//     0 < median < p95;
//   - mixture: at least one component, one weight per component, each
//     weight > 0; the components are validated in turn, their errors keyed
//     "components[i].<key>";
//   - empirical: at least one value;
//   - quantiles: at least two entries named "p<percent>" with the percent in
//     (0, 100) — p50, p90, "p99.9" (quoted in TOML because of the dot) —
//     with values > 0 that strictly increase with the percentile.
//
// The result is a Constant, Uniform, Exponential, LogNormal, Gamma,
// Weibull, Pareto, *Mixture, *Empirical or *QuantileTable.
func (s Spec) Build() (Continuous, error) {
	d, err := s.build()
	if err != nil {
		return nil, err
	}
	return d, nil
}

func (s *Spec) build() (Continuous, *SpecError) {
	if s.Kind == "" {
		return nil, &SpecError{Key: "kind", Msg: "missing; one of " + strings.Join(Kinds(), ", ")}
	}
	i := slices.IndexFunc(kinds, func(k kindKeys) bool { return k.name == s.Kind })
	if i < 0 {
		return nil, &SpecError{Key: "kind", Value: s.Kind,
			Msg: fmt.Sprintf("%q is unknown; one of %s", s.Kind, strings.Join(Kinds(), ", "))}
	}
	allowed := kinds[i].keys
	for _, kv := range s.specKeys() {
		if !slices.Contains(allowed, kv.key) {
			return nil, &SpecError{Key: kv.key, Value: kv.val,
				Msg: fmt.Sprintf("does not apply to kind %q; allowed keys: %s", s.Kind, strings.Join(allowed, ", "))}
		}
	}
	switch s.Kind {
	case "constant":
		v, err := s.param("value", s.Value, finite)
		if err != nil {
			return nil, err
		}
		return Constant{Value: v}, nil
	case "uniform":
		lo, err := s.param("min", s.Min, finite)
		if err != nil {
			return nil, err
		}
		hi, err := s.param("max", s.Max, finite)
		if err != nil {
			return nil, err
		}
		if !(lo < hi) {
			return nil, &SpecError{Key: "min", Value: lo, Msg: fmt.Sprintf("%s must be < max (%s)", num(lo), num(hi))}
		}
		return Uniform{Min: lo, Max: hi}, nil
	case "exponential":
		rate, err := s.param("rate", s.Rate, positive)
		if err != nil {
			return nil, err
		}
		return Exponential{Rate: rate}, nil
	case "lognormal":
		return s.buildLogNormal()
	case "gamma":
		alpha, err := s.param("alpha", s.Alpha, positive)
		if err != nil {
			return nil, err
		}
		if alpha > MaxGammaShape {
			return nil, &SpecError{Key: "alpha", Value: alpha, Msg: fmt.Sprintf("%s is above the largest shape, %s: a gamma this narrow (coefficient of variation 1/√alpha) is a constant; use kind = \"constant\"", num(alpha), num(MaxGammaShape))}
		}
		rate, err := s.param("rate", s.Rate, positive)
		if err != nil {
			return nil, err
		}
		return Gamma{Alpha: alpha, Beta: rate}, nil
	case "weibull":
		k, err := s.param("k", s.K, positive)
		if err != nil {
			return nil, err
		}
		lambda, err := s.param("lambda", s.Lambda, positive)
		if err != nil {
			return nil, err
		}
		return Weibull{K: k, Lambda: lambda}, nil
	case "pareto":
		xm, err := s.param("xm", s.Xm, positive)
		if err != nil {
			return nil, err
		}
		alpha, err := s.param("alpha", s.Alpha, positive)
		if err != nil {
			return nil, err
		}
		return Pareto{Xm: xm, Alpha: alpha}, nil
	case "mixture":
		return s.buildMixture()
	case "empirical":
		return s.buildEmpirical()
	case "quantiles":
		return s.buildQuantiles()
	}
	panic("dist: kind " + s.Kind + " listed but not built")
}

// constraint is a range a parameter must lie in, besides being finite.
type constraint int

const (
	finite   constraint = iota // any finite number
	positive                   // finite and > 0
)

// plural returns "1 weight", "2 weights", "1 entry", "0 entries".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// num formats a number for a message: shortest round-trip form.
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// checkNum returns the message for v breaking c, or "" if v is fine.
func checkNum(v float64, c constraint) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		if c == positive {
			return num(v) + " is not allowed; must be finite and > 0"
		}
		return num(v) + " is not allowed; must be finite"
	}
	if c == positive && !(v > 0) {
		return num(v) + " is not allowed; must be > 0"
	}
	return ""
}

// param returns *p after checking that it is present and satisfies c.
// MaxGammaShape is the largest gamma shape alpha Build accepts: 10⁹, a
// coefficient of variation of 3·10⁻⁵. Far larger shapes (near the largest
// float64) make gonum's inverse incomplete gamma, behind Gamma.Quantile,
// iterate without end.
const MaxGammaShape = 1e9

func (s *Spec) param(key string, p *float64, c constraint) (float64, *SpecError) {
	if p == nil {
		need := "a finite number"
		if c == positive {
			need = "a number > 0"
		}
		return 0, &SpecError{Key: key, Msg: fmt.Sprintf("missing; kind %q needs %s = %s", s.Kind, key, need)}
	}
	if msg := checkNum(*p, c); msg != "" {
		return 0, &SpecError{Key: key, Value: *p, Msg: msg}
	}
	return *p, nil
}

func (s *Spec) buildLogNormal() (Continuous, *SpecError) {
	const both = `kind "lognormal" takes either mu and sigma, or median and p95`
	byMoments := s.Mu != nil || s.Sigma != nil
	byQuantiles := s.Median != nil || s.P95 != nil
	switch {
	case byMoments && byQuantiles:
		key, val, other := "median", s.Median, "mu"
		if val == nil {
			key, val = "p95", s.P95
		}
		if s.Mu == nil {
			other = "sigma"
		}
		return nil, &SpecError{Key: key, Value: *val,
			Msg: fmt.Sprintf("cannot be combined with %s; %s", other, both)}
	case !byMoments && !byQuantiles:
		return nil, &SpecError{Key: "mu", Msg: "missing; " + both}
	case byMoments:
		mu, err := s.param("mu", s.Mu, finite)
		if err != nil {
			return nil, err
		}
		sigma, err := s.param("sigma", s.Sigma, positive)
		if err != nil {
			return nil, err
		}
		return LogNormal{Mu: mu, Sigma: sigma}, nil
	}
	median, err := s.param("median", s.Median, positive)
	if err != nil {
		return nil, err
	}
	p95, err := s.param("p95", s.P95, positive)
	if err != nil {
		return nil, err
	}
	if !(p95 > median) {
		return nil, &SpecError{Key: "p95", Value: p95, Msg: fmt.Sprintf("%s must be > median (%s)", num(p95), num(median))}
	}
	l, e := LogNormalFromMedianP95(median, p95)
	if e != nil {
		return nil, &SpecError{Key: "p95", Value: p95, Msg: fmt.Sprintf("%s is too close to median (%s); must be larger", num(p95), num(median))}
	}
	return l, nil
}

func (s *Spec) buildMixture() (Continuous, *SpecError) {
	if len(s.Components) == 0 {
		return nil, &SpecError{Key: "components", Value: s.Components,
			Msg: `missing or empty; kind "mixture" needs at least one component`}
	}
	if len(s.Weights) != len(s.Components) {
		return nil, &SpecError{Key: "weights", Value: s.Weights,
			Msg: fmt.Sprintf("%s for %s; need one weight per component",
				plural(len(s.Weights), "weight"), plural(len(s.Components), "component"))}
	}
	for i, w := range s.Weights {
		if msg := checkNum(w, positive); msg != "" {
			return nil, &SpecError{Key: fmt.Sprintf("weights[%d]", i), Value: w, Msg: msg}
		}
	}
	comps := make([]Continuous, len(s.Components))
	for i := range s.Components {
		c, err := s.Components[i].build()
		if err != nil {
			err.Key = fmt.Sprintf("components[%d].%s", i, err.Key)
			return nil, err
		}
		comps[i] = c
	}
	m, err := NewMixture(s.Weights, comps)
	if err != nil {
		// Only an overflowing weight sum gets here.
		return nil, &SpecError{Key: "weights", Value: s.Weights, Msg: "sum overflows; use smaller weights (they are normalised)"}
	}
	return m, nil
}

func (s *Spec) buildEmpirical() (Continuous, *SpecError) {
	if len(s.Values) == 0 {
		return nil, &SpecError{Key: "values", Value: s.Values,
			Msg: `missing or empty; kind "empirical" needs at least one value`}
	}
	for i, v := range s.Values {
		if msg := checkNum(v, finite); msg != "" {
			return nil, &SpecError{Key: fmt.Sprintf("values[%d]", i), Value: v, Msg: msg}
		}
	}
	e, err := NewEmpirical(s.Values)
	if err != nil {
		panic("dist: validated empirical values rejected: " + err.Error())
	}
	return e, nil
}

// percentName is the form of a quantile key: "p", then a percentage.
var percentName = regexp.MustCompile(`^p[0-9]+(\.[0-9]+)?$`)

// quantileKey returns the key path of quantile entry name, quoting names that
// contain a dot as TOML requires ("quantiles.p90", `quantiles."p99.9"`).
func quantileKey(name string) string {
	if strings.ContainsAny(name, ". \"") || name == "" {
		return "quantiles." + strconv.Quote(name)
	}
	return "quantiles." + name
}

func (s *Spec) buildQuantiles() (Continuous, *SpecError) {
	type point struct {
		name     string
		pct, val float64
	}
	names := make([]string, 0, len(s.Quantiles))
	for name := range s.Quantiles {
		names = append(names, name)
	}
	slices.Sort(names) // deterministic choice of the first error
	pts := make([]point, 0, len(names))
	for _, name := range names {
		val := s.Quantiles[name]
		if !percentName.MatchString(name) {
			return nil, &SpecError{Key: quantileKey(name), Value: val,
				Msg: fmt.Sprintf(`name %q is not a percentile; use "p" and a percentage in (0, 100), such as p50, p90, "p99.9"`, name)}
		}
		pct, err := strconv.ParseFloat(name[1:], 64)
		if err != nil || !(pct > 0 && pct < 100) {
			return nil, &SpecError{Key: quantileKey(name), Value: val,
				Msg: fmt.Sprintf("percentile %s is not allowed; must be in (0, 100)", name[1:])}
		}
		if msg := checkNum(val, positive); msg != "" {
			return nil, &SpecError{Key: quantileKey(name), Value: val, Msg: msg}
		}
		pts = append(pts, point{name, pct, val})
	}
	if len(pts) < 2 {
		what := "missing"
		if s.Quantiles != nil {
			what = plural(len(pts), "entry")
		}
		return nil, &SpecError{Key: "quantiles", Value: s.Quantiles,
			Msg: what + `; kind "quantiles" needs at least two entries, such as p50 and p99`}
	}
	slices.SortStableFunc(pts, func(a, b point) int {
		switch {
		case a.pct < b.pct:
			return -1
		case a.pct > b.pct:
			return 1
		}
		return 0
	})
	ps := make([]float64, len(pts))
	xs := make([]float64, len(pts))
	for i, pt := range pts {
		if i > 0 {
			prev := pts[i-1]
			if pt.pct == prev.pct {
				return nil, &SpecError{Key: quantileKey(pt.name), Value: pt.val,
					Msg: fmt.Sprintf("%q is the same percentile as %s; give each percentile once", pt.name, quantileKey(prev.name))}
			}
			if !(pt.val > prev.val) {
				return nil, &SpecError{Key: quantileKey(pt.name), Value: pt.val,
					Msg: fmt.Sprintf("%s must be > %s (%s); values must increase with the percentile",
						num(pt.val), quantileKey(prev.name), num(prev.val))}
			}
		}
		ps[i], xs[i] = pt.pct/100, pt.val
	}
	t, err := NewQuantileTable(ps, xs)
	if err != nil {
		return nil, &SpecError{Key: "quantiles", Value: s.Quantiles,
			Msg: "points are too close to interpolate in float64; space the percentiles or values further apart"}
	}
	return t, nil
}
