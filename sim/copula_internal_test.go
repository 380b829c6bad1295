package sim

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
)

// TestScoreOfPrimary checks score's short path for a primary's first
// call against the sum it shortens, Σ_{j≤0} L[0][j]·e_j from 0, bit for
// bit: for copulas over two and three attempts of two models
// (correlations from 0.2 to 1), at normal draws ±0, ±1, ±1e-300, ±8.5 and
// 10 000 from a fixed seed. The sign of a zero tells 0 + f from f.
func TestScoreOfPrimary(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 9))
	fs := []float64{0, math.Copysign(0, -1), 1, -1, 1e-300, -1e-300, 8.5, -8.5}
	for range 10_000 {
		fs = append(fs, rng.NormFloat64())
	}
	lat := dist.LogNormal{Mu: math.Log(0.3), Sigma: 0.6}
	for _, c := range []Correlation{{SameModel: 0.5, SameProvider: 0.5, CrossProvider: 0.2}, {SameModel: 1, SameProvider: 1, CrossProvider: 1}, {SameModel: 0.9, SameProvider: 0.9, CrossProvider: 0.9}} {
		for _, copies := range []int{1, 2} {
			cfg := &Config{
				Name: "score", Seed: 1, Requests: 10,
				Arrivals:    Arrivals{Process: Poisson, Rate: 1},
				Models:      []Model{{Name: "a", Provider: "pa", Latency: lat}, {Name: "b", Provider: "pb", Latency: lat}},
				Providers:   []Provider{{Name: "pa"}, {Name: "pb"}},
				Correlation: c,
				Classes: []Class{{Name: "c", Share: 1,
					InputTokens: dist.Constant{Value: 10}, OutputTokens: dist.Constant{Value: 10},
					Policy: Policy{Targets: []int{1}, Copies: copies, Delays: []time.Duration{time.Second, time.Second}}}},
			}
			if _, err := copulaFactor(c, &cfg.Classes[0].Policy, cfg.Models); err != nil {
				t.Fatalf("%+v, %d copies: %v", c, copies, err)
			}
			e := newEngine(cfg)
			r := &request{}
			for _, f := range fs {
				want := 0.0
				want += e.copula[0][0][0] * f // the sum's one term
				if got := e.score(r, 0, 0, 0, f); math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("%+v, %d copies: score of the primary at %v = %v, the sum gives %v", c, copies, f, got, want)
				}
				if r.innov[0] != f || math.Signbit(r.innov[0]) != math.Signbit(f) {
					t.Fatalf("%+v: innovation %v recorded for %v", c, r.innov[0], f)
				}
			}
		}
	}
}
