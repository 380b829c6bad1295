package sim_test

import (
	"math"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestHeavyTailWarning: a user's model latency was Pareto with α = 0.5, an
// infinite mean; the run printed a mean of 6 032 s without a word and its
// interval reached below 0. Now a Pareto tail of index ≤ 1 (itself or a
// mixture's component) earns a warning that the mean estimates nothing,
// one of index in (1, 2] that the mean's interval does not hold, lighter
// tails none; and the independent run's mean interval stays at or above 0.
func TestHeavyTailWarning(t *testing.T) {
	cfg := func(lat dist.Continuous) *sim.Config {
		return &sim.Config{
			Name: "tail", Seed: 1, Requests: 1000,
			Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 10},
			Models:   []sim.Model{{Name: "a", Latency: lat}},
			Classes: []sim.Class{{Name: "c", Share: 1,
				InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Constant{Value: 10}}},
		}
	}
	mix, err := dist.NewMixture([]float64{0.99, 0.01}, []dist.Continuous{dist.Uniform{Min: 0.1, Max: 0.3}, dist.Pareto{Xm: 1, Alpha: 1.5}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		lat  dist.Continuous
		want string // "" for none
	}{
		{"pareto 0.5", dist.Pareto{Xm: 1, Alpha: 0.5}, "model a's latency has a Pareto tail of index 0.5 ≤ 1: its mean is infinite"},
		{"pareto 1", dist.Pareto{Xm: 1, Alpha: 1}, "model a's latency has a Pareto tail of index 1 ≤ 1: its mean is infinite"},
		{"mixture with pareto 1.5", mix, "model a's latency has a Pareto tail of index 1.5 ≤ 2: its variance is infinite"},
		{"pareto 2.5", dist.Pareto{Xm: 1, Alpha: 2.5}, ""},
		{"lognormal", dist.LogNormal{Mu: 0, Sigma: 2}, ""},
	} {
		var got []sim.ConfigWarning
		for _, w := range sim.ConfigWarnings(cfg(c.lat)) {
			if strings.Contains(w.Text, "Pareto tail") {
				got = append(got, w)
			}
		}
		switch {
		case c.want == "" && len(got) != 0:
			t.Errorf("%s: warnings %+v, want none", c.name, got)
		case c.want != "" && (len(got) != 1 || got[0].Model != 0 || got[0].Field != "latency" || !strings.HasPrefix(got[0].Text, c.want)):
			t.Errorf("%s: warnings %+v, want one at model 0's latency starting %q", c.name, got, c.want)
		}
	}
	c := cfg(dist.Pareto{Xm: 1, Alpha: 0.5})
	res := mustRun(t, c)
	rep := sim.NewReport(c, res, res)
	if !strings.Contains(strings.Join(rep.Classes[0].Warnings, "\n"), "its mean is infinite") {
		t.Errorf("the report's class warnings %q lack the infinite mean's", rep.Classes[0].Warnings)
	}
	ci := rep.Classes[0].Latency.CIs
	if ci == nil || !(ci.Mean[0] >= 0) || math.IsNaN(ci.Mean[1]) {
		t.Errorf("mean interval %+v; want a lower bound ≥ 0", ci)
	}
}
