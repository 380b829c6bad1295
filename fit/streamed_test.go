package fit

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/readers"
)

// streamedLog returns n requests with TTFT ~ lognormal(median 0.5 s,
// σ 0.4), decode speed ~ lognormal(median 40 tokens/s, σ 0.3) and output
// tokens uniform in [50, 500]; with dependent set, a request's speed is
// slow exactly when its TTFT is (the same normal draw drives both), which
// the end-to-end simulation, drawing them independently, cannot match.
func streamedLog(n int, seed uint64, dependent bool) *readers.Log {
	r := rand.New(rand.NewPCG(seed, 9))
	l := &readers.Log{File: "synthetic", Format: "test"}
	for range n {
		z1, z2 := r.NormFloat64(), r.NormFloat64()
		if dependent {
			z2 = -z1
		}
		ttft := math.Exp(math.Log(0.5) + 0.4*z1)
		speed := math.Exp(math.Log(40) + 0.3*z2)
		tok := float64(50 + r.IntN(451))
		l.Add(readers.Request{Latency: ttft + tok/speed, TTFT: ttft, OutputTokens: tok, InputTokens: math.NaN()})
	}
	return l
}

// TestStreamedCheckLargeLog: the end-to-end check compares the log with
// Draws simulated requests. Judged as if the simulation were exact (a
// one-sample KS critical value 1.358/√n and the log's percentile
// intervals), a correct fit of 10⁶ rows read "POOR FIT": the simulation's
// own noise at 5·10⁴ draws is several times the log's. A log drawn from
// the fitted models themselves must pass; one whose TTFT and speed are
// dependent (so the independent simulation is the wrong model) must not.
func TestStreamedCheckLargeLog(t *testing.T) {
	if testing.Short() {
		t.Skip("fits logs of 10⁶ rows")
	}
	const n = 1_000_000
	for seed := uint64(1); seed <= 2; seed++ {
		r, err := FitLog(streamedLog(n, seed, false), Options{Model: ModelLogNormal, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		if poor, reasons := r.Poor(); poor {
			t.Errorf("seed %d: a log drawn from the fitted model reads poor: %v", seed, reasons)
		}
	}
	r, err := FitLog(streamedLog(n, 1, true), Options{Model: ModelLogNormal, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !r.EndToEnd.Poor {
		t.Errorf("dependent TTFT and speed: the end-to-end check passes (KS %.4f, critical %.4f)", r.EndToEnd.KS, r.EndToEnd.KSCritical)
	}
}

// TestAssessSampleSizes: AssessSample's verdict accounts for both sample
// sizes. 10⁶ observations against 5·10⁴ draws of the same distribution
// pass (for several seeds); against draws of a distribution 3 % slower
// they fail.
func TestAssessSampleSizes(t *testing.T) {
	same := dist.LogNormal{Mu: math.Log(1.2), Sigma: 0.5}
	slower := dist.LogNormal{Mu: math.Log(1.2 * 1.03), Sigma: 0.5}
	x := sorted(draw(same, 1_000_000, 1))
	for seed := uint64(2); seed <= 6; seed++ {
		if g := AssessSample(x, sorted(draw(same, 50_000, seed))); g.Poor {
			t.Errorf("seed %d: the same distribution reads poor: %v", seed, g.Reasons)
		}
	}
	if g := AssessSample(x, sorted(draw(slower, 50_000, 2))); !g.Poor {
		t.Errorf("a 3%% slower distribution passes: KS %.4f, critical %.4f", g.KS, g.KSCritical)
	}
}

// sorted returns a sorted copy of x.
func sorted(x []float64) []float64 {
	s := append([]float64(nil), x...)
	slices.Sort(s)
	return s
}
