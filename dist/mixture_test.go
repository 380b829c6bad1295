package dist

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestMixtureTwoUniforms(t *testing.T) {
	// 0.5·U(0.1, 0.3) + 0.5·U(3, 19): half the mass below 0.3, none in the
	// gap (0.3, 3), the rest spread over 16 s.
	m, err := NewMixture([]float64{0.5, 0.5}, []Continuous{Uniform{Min: 0.1, Max: 0.3}, Uniform{Min: 3, Max: 19}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ x, cdf float64 }{{0.05, 0}, {0.2, 0.25}, {1, 0.5}, {3, 0.5}, {11, 0.75}, {19, 1}} {
		if c := m.CDF(tt.x); math.Abs(c-tt.cdf) > 1e-15 {
			t.Errorf("CDF(%v) = %v, want %v", tt.x, c, tt.cdf)
		}
	}
	// Quantile is the smallest x with CDF(x) ≥ p: 0.3 at p = 0.5, the start
	// of the gap, not anywhere inside it.
	for _, tt := range []struct{ p, q float64 }{{0, 0.1}, {0.25, 0.2}, {0.5, 0.3}, {0.75, 11}, {0.875, 15}, {1, 19}} {
		if q := m.Quantile(tt.p); math.Abs(q-tt.q) > 1e-12*tt.q {
			t.Errorf("Quantile(%v) = %v, want %v", tt.p, q, tt.q)
		}
	}
	if got, want := m.Mean(), 0.5*0.2+0.5*11; math.Abs(got-want) > 1e-14 {
		t.Errorf("Mean = %v, want %v", got, want)
	}
	if lo, hi := m.Support(); lo != 0.1 || hi != 19 {
		t.Errorf("Support = %v, %v, want 0.1, 19", lo, hi)
	}
}

func TestMixtureNegativeSupport(t *testing.T) {
	// Bisection over float64 values works across zero.
	m := mustMixture([]float64{1, 1}, []Continuous{Uniform{Min: -2, Max: -1}, Uniform{Min: 1, Max: 2}})
	for _, tt := range []struct{ p, q float64 }{{0, -2}, {0.25, -1.5}, {0.5, -1}, {0.75, 1.5}, {1, 2}} {
		if q := m.Quantile(tt.p); math.Abs(q-tt.q) > 1e-12 {
			t.Errorf("Quantile(%v) = %v, want %v", tt.p, q, tt.q)
		}
	}
}

func TestMixtureQuantileAccuracy(t *testing.T) {
	// Bisection ends on adjacent float64s, so CDF(Quantile(p)) is p to
	// within the CDF's own rounding (a few 1e-16).
	m := mustMixture([]float64{0.8, 0.15, 0.05}, []Continuous{
		LogNormal{Mu: -2, Sigma: 0.4}, LogNormal{Mu: 0, Sigma: 0.5}, Pareto{Xm: 5, Alpha: 1.2},
	})
	for _, p := range []float64{1e-9, 1e-4, 0.3, 0.8, 0.9, 0.95, 0.99, 0.9999, 1 - 1e-9} {
		x := m.Quantile(p)
		if c := m.CDF(x); math.Abs(c-p) > 1e-13*math.Max(p, 1e-3) {
			t.Errorf("CDF(Quantile(%v)) = %v", p, c)
		}
		if prev := math.Nextafter(x, 0); m.CDF(prev) >= p {
			t.Errorf("Quantile(%v) = %v is not the smallest x with CDF ≥ p", p, x)
		}
	}
}

func TestNewMixture(t *testing.T) {
	comps := []Continuous{Constant{Value: 1}, Constant{Value: 2}}
	m, err := NewMixture([]float64{1, 3}, comps)
	if err != nil {
		t.Fatal(err)
	}
	if m.Weights[0] != 0.25 || m.Weights[1] != 0.75 {
		t.Errorf("Weights = %v, want [0.25 0.75]", m.Weights)
	}
	if got := m.cum[len(m.cum)-1]; got != 1 {
		t.Errorf("last cumulative weight = %v, want exactly 1", got)
	}
	for _, tc := range []struct {
		name  string
		w     []float64
		comps []Continuous
	}{
		{"no components", nil, nil},
		{"fewer weights", []float64{1}, comps},
		{"more weights", []float64{1, 2, 3}, comps},
		{"zero weight", []float64{0, 1}, comps},
		{"negative weight", []float64{-1, 2}, comps},
		{"NaN weight", []float64{math.NaN(), 1}, comps},
		{"Inf weight", []float64{math.Inf(1), 1}, comps},
		{"nil component", []float64{1, 1}, []Continuous{nil, Constant{}}},
		{"overflowing sum", []float64{math.MaxFloat64, math.MaxFloat64}, comps},
	} {
		if _, err := NewMixture(tc.w, tc.comps); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestMixtureLiteral(t *testing.T) {
	// A literal without NewMixture's cumulative weights samples the same
	// components as the constructed mixture, from the same uniforms.
	comps := []Continuous{Constant{Value: 1}, Constant{Value: 2}, Constant{Value: 3}}
	built := mustMixture([]float64{0.2, 0.3, 0.5}, comps)
	lit := &Mixture{Weights: []float64{0.2, 0.3, 0.5}, Components: comps}
	a, b := rand.NewPCG(5, 6), rand.NewPCG(5, 6)
	for i := range 1000 {
		if x, y := built.Rand(a), lit.Rand(b); x != y {
			t.Fatalf("draw %d: constructed %v, literal %v", i, x, y)
		}
	}
}

// capped is a component whose CDF never exceeds 1 − 2⁻⁵², as a sum of
// rounded terms can: no x has CDF(x) ≥ 1 − 2⁻⁵³.
type capped struct{ Uniform }

func (c capped) CDF(x float64) float64 { return math.Min(c.Uniform.CDF(x), 1-0x1p-52) }

func TestMixtureQuantileWideningIsBounded(t *testing.T) {
	// Before the bound, the widening loop crept up by 10⁻¹² of hi per step
	// and, on a CDF that never reaches p, ran for ≈ 7·10¹⁴ steps.
	m, err := NewMixture([]float64{1, 1}, []Continuous{capped{Uniform{Min: 0, Max: 1}}, capped{Uniform{Min: 1, Max: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	p := 1 - 0x1p-53
	if q := m.Quantile(p); q != 2 {
		t.Errorf("Quantile(1 − 2⁻⁵³) = %v, want 2, the largest component quantile", q)
	}
}
