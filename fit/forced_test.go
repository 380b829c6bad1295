package fit

import (
	"slices"
	"testing"
)

// TestForcedModelFitsOnlyIt: --model lognormal ran EM for both mixtures
// anyway. A forced model is the only one EM fits: lognormal and empirical
// need no EM, mixture-3 no mixture-2.
func TestForcedModelFitsOnlyIt(t *testing.T) {
	x := draw(synthetic(), 2000, 1)
	for _, tc := range []struct {
		model string
		want  []string
	}{
		{ModelLogNormal, []string{ModelLogNormal, ModelEmpirical}},
		{ModelEmpirical, []string{ModelLogNormal, ModelEmpirical}},
		{ModelMixture3, []string{ModelLogNormal, ModelMixture3, ModelEmpirical}},
		{ModelAuto, []string{ModelLogNormal, ModelMixture2, ModelMixture3, ModelEmpirical}},
	} {
		m, err := FitValues("latency", "s", x, Options{Model: tc.model})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range m.Candidates {
			got = append(got, c.Name)
		}
		if !slices.Equal(got, tc.want) || tc.model != ModelAuto && m.Best().Name != tc.model {
			t.Errorf("--model %s: fitted %v (chose %s); want %v", tc.model, got, m.Best().Name, tc.want)
		}
	}
}
