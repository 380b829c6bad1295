package optimize_test

import (
	"testing"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/retune"
	"github.com/hedgesim/hedgesim/scenario"
)

// TestAdaptiveDefaultsAreRetunes: optimize's adaptive candidates and
// retune's comparison use the same defaults (the scenario file's), but
// for the percentile, which each candidate sets.
func TestAdaptiveDefaultsAreRetunes(t *testing.T) {
	a := retune.DefaultAdaptive
	a.Percentile = 0
	if a != optimize.AdaptiveDefaults {
		t.Errorf("optimize.AdaptiveDefaults %+v; retune.DefaultAdaptive %+v", optimize.AdaptiveDefaults, retune.DefaultAdaptive)
	}
}

func TestParseAdaptive(t *testing.T) {
	got, err := optimize.ParseAdaptive(" 99, 90,p95 ")
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.90, 0.95, 0.99}
	if len(got) != len(want) {
		t.Fatalf("%v; want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%v; want %v", got, want)
		}
	}
	for _, bad := range []string{"", "0", "100", "-1", "x", "Inf", "NaN", "90,", "p95,95", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"} {
		if v, err := optimize.ParseAdaptive(bad); err == nil {
			t.Errorf("ParseAdaptive(%q) = %v; want an error", bad, v)
		}
	}
}

// TestSettingsValidateAdaptive: a library caller's percentiles are
// fractions in (0, 1).
func TestSettingsValidateAdaptive(t *testing.T) {
	sc, err := scenario.Load("../scenarios/guard-check.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, ps := range [][]float64{{0.95}, {1.5}, {0}, {95}} {
		s := optimize.DefaultSettings()
		s.Search.Adaptive = ps
		err := s.Validate(&sc.Config)
		if ok := ps[0] > 0 && ps[0] < 1; (err == nil) != ok {
			t.Errorf("Adaptive %v: error %v", ps, err)
		}
	}
}
