package dist

// Spec is the TOML-decodable description of a distribution, as written in a
// scenario file, for example
//
//	latency = { kind = "lognormal", median = 0.8, p95 = 3.0 }
//
// Kind selects the distribution and which other fields apply; a field that
// does not apply to the kind is an error (so a misspelled kind or a
// parameter meant for another kind is caught). Spec.Build validates it and
// returns the distribution; its errors are *SpecError values keyed by the
// path inside the Spec.
type Spec struct {
	// Kind is one of "constant", "uniform", "exponential", "lognormal",
	// "gamma", "weibull", "pareto", "mixture", "empirical", "quantiles".
	Kind string `toml:"kind"`

	// Value is the constant's value (kind "constant").
	Value *float64 `toml:"value"`
	// Min and Max bound a uniform (kind "uniform"; Min < Max). They do not
	// apply to kind "quantiles", whose lower tail is always extrapolated
	// (see QuantileTable).
	Min *float64 `toml:"min"`
	Max *float64 `toml:"max"`
	// Rate is the exponential's rate λ (kind "exponential", > 0; mean 1/λ),
	// or the gamma's rate β (kind "gamma", > 0; mean α/β).
	Rate *float64 `toml:"rate"`
	// Mu and Sigma are the lognormal's log-scale location and scale
	// (kind "lognormal"; Sigma > 0; median e^Mu).
	Mu    *float64 `toml:"mu"`
	Sigma *float64 `toml:"sigma"`
	// Median and P95 give a lognormal by two quantiles instead of Mu/Sigma
	// (kind "lognormal"; 0 < Median < P95).
	Median *float64 `toml:"median"`
	P95    *float64 `toml:"p95"`
	// Alpha is the gamma's shape α (kind "gamma", > 0) or the Pareto's tail
	// index α (kind "pareto", > 0).
	Alpha *float64 `toml:"alpha"`
	// K and Lambda are the Weibull's shape k and scale λ (kind "weibull"; both > 0).
	K      *float64 `toml:"k"`
	Lambda *float64 `toml:"lambda"`
	// Xm is the Pareto's scale (minimum value) x_m (kind "pareto", > 0).
	Xm *float64 `toml:"xm"`
	// Weights and Components define a finite mixture (kind "mixture"): the
	// weights are > 0 and are normalised to sum to 1; one weight per component.
	Weights    []float64 `toml:"weights"`
	Components []Spec    `toml:"components"`
	// Values are observed samples that an empirical distribution resamples
	// with replacement (kind "empirical"; at least one, all finite).
	Values []float64 `toml:"values"`
	// Quantiles maps percentile names to values for kind "quantiles", e.g.
	// { p50 = 0.21, p90 = 0.33, p95 = 0.41, p99 = 0.9 }. Names are "p" followed
	// by a percentage in (0, 100) such as "p99.9" (quoted in TOML, where an
	// unquoted dot would make a nested table); values must be > 0 and
	// strictly increasing with the percentile. At least two entries. The
	// interpolation between and beyond them is documented on QuantileTable.
	Quantiles map[string]float64 `toml:"quantiles"`
}
