package fit

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/readers"
)

// FuzzFitSummary turns any llmperf summary the reader accepts into
// quantile tables: it must return tables or an *readers.InputError with a
// line, never panic. Its seeds are short: three latency percentiles and
// the error codes of a shipped summary, and a few made-up ones. Go
// minimizes every new interesting input by trying to remove each run of
// its bytes, a number of executions quadratic in its length: with the
// whole 4.5 KB summary as a seed, a 30 s run spent nearly all its time
// minimizing and made a few executions.
func FuzzFitSummary(f *testing.F) {
	f.Add(summarySeed(f, "../scenarios/data/llmperf-leaderboard/summary/together_13b.json",
		"results_end_to_end_latency_s_quantiles_p50", "results_end_to_end_latency_s_quantiles_p90",
		"results_end_to_end_latency_s_quantiles_p99", "results_error_code_frequency"))
	for _, s := range []string{
		`{"results_end_to_end_latency_s_quantiles_p50": 1, "results_end_to_end_latency_s_quantiles_p99": 2, "results_end_to_end_latency_s_mean": "1.1"}`,
		`{"results_ttft_s_quantiles_p50": 2, "results_ttft_s_quantiles_p90": 2, "results_error_code_frequency": "{429.0: 3}"}`,
		`{"results_ttft_s_quantiles_p50": 0, "results_ttft_s_quantiles_p90": 2}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) { fuzzSummary(t, in) })
}

// fuzzSummary is FuzzFitSummary's body.
func fuzzSummary(t testing.TB, in string) {
	s, err := readers.ReadLLMPerfSummary(strings.NewReader(in), "fuzz")
	if err != nil {
		return // the reader's own fuzz target checks its errors
	}
	fs, err := FitSummary(s)
	if err != nil {
		var ie *readers.InputError
		if !errors.As(err, &ie) || ie.File != "fuzz" || ie.Line < 1 || ie.Msg == "" {
			t.Fatalf("error %v (%T) is not an *InputError with a line", err, err)
		}
		return
	}
	_ = fs.Block(BlockOptions{})
}

// FuzzFitValues and FuzzFitValuesMixture feed the fitting code
// (lognormal, EM mixtures, empirical, goodness of fit) with arbitrary
// positive samples: it must return a fit or an error, never panic, and
// every fitted distribution must give finite, non-decreasing quantiles.
//
// FuzzFitValues fits up to 49 values, too few for a mixture (which needs
// 10 per parameter, 50 for two components): the single-distribution fits.
// FuzzFitValuesMixture fits 50 to 120, so that the mixtures are fitted and
// assessed too; FuzzFitMixture fuzzes their EM alone, fast.
func FuzzFitValues(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 240, 63, 0, 0, 0, 0, 0, 0, 0, 64})
	f.Add([]byte("a few bytes that become float64 values for the fit"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		fuzzFit(t, fuzzValues(raw, mixtureFuzzMin-1))
	})
}

// FuzzFitValuesMixture fits 50 to 120 values with FitValues, mixtures
// included. An execution is inherently costly (tens of milliseconds, see
// BenchmarkFuzzFitValuesMixture): each mixture's goodness of fit inverts
// its CDF at 4000 grid points by bisection; FuzzFitMixture covers EM at
// thousands of executions a second.
func FuzzFitValuesMixture(f *testing.F) {
	f.Add(mixtureSeed())
	f.Fuzz(func(t *testing.T, raw []byte) {
		x := fuzzValues(raw, 120)
		if len(x) < mixtureFuzzMin {
			return // FuzzFitValues' inputs
		}
		fuzzFit(t, x)
	})
}

// FuzzFitMixture runs EM (FitMixture with k = 1 + raw[0] mod 3 components,
// two starts and at most 200 iterations a run) on up to 60 values read
// from raw[1:]: it must return an error, or a mixture whose weights sum to
// 1, whose components have finite means and σ > 0, whose log-likelihood
// is not NaN and whose quantiles are finite and non-decreasing, within
// emIterationBound iterations.
func FuzzFitMixture(f *testing.F) {
	f.Add(append([]byte{1}, mixtureSeed()...))
	f.Add(append([]byte{2}, mixtureSeed()...))
	f.Fuzz(func(t *testing.T, raw []byte) { fuzzEM(t, raw) })
}

// fuzzEM is FuzzFitMixture's body.
func fuzzEM(t testing.TB, raw []byte) {
	if len(raw) == 0 {
		return
	}
	k := 1 + int(raw[0]%3)
	x := fuzzValues(raw[1:], 60)
	opt := EMOptions{Seed: 1, Starts: 2, MaxIter: 200}
	m, ll, iters, err := fitMixtureWork(context.Background(), x, k, opt)
	if iters > emIterationBound(k, opt) {
		t.Fatalf("%d EM iterations; bound %d", iters, emIterationBound(k, opt))
	}
	if err != nil {
		return
	}
	sum := 0.0
	for j := range m.K() {
		sum += m.Weights[j]
		if !(m.Sigma[j] > 0) || math.IsInf(m.Sigma[j], 0) || math.IsInf(m.Mu[j], 0) || math.IsNaN(m.Mu[j]) {
			t.Fatalf("component %d: mu %v, sigma %v", j, m.Mu[j], m.Sigma[j])
		}
	}
	if math.Abs(sum-1) > 1e-9 || math.IsNaN(ll) {
		t.Fatalf("weights %v sum to %v; log-likelihood %v", m.Weights, sum, ll)
	}
	checkQuantiles(t, "mixture", m.Dist())
}

// mixtureSeed is 50 values, 1 to 3 in steps of 1/3: enough for a
// two-component mixture.
func mixtureSeed() []byte {
	seed := make([]byte, 8*mixtureFuzzMin)
	for i := range mixtureFuzzMin {
		binary.LittleEndian.PutUint64(seed[8*i:], math.Float64bits(1+float64(i%7)/3))
	}
	return seed
}

// summarySeed returns the JSON object of the summary file name with only
// the given keys.
func summarySeed(f *testing.F, name string, keys ...string) string {
	data, err := os.ReadFile(name)
	if err != nil {
		f.Fatal(err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		f.Fatal(err)
	}
	keep := map[string]json.RawMessage{}
	for _, k := range keys {
		if v, ok := all[k]; ok {
			keep[k] = v
		}
	}
	out, err := json.Marshal(keep)
	if err != nil {
		f.Fatal(err)
	}
	return string(out)
}

// mixtureFuzzMin is the fewest values for which a mixture is fitted.
const mixtureFuzzMin = 50

// fuzzValues reads up to n values from raw, 8 bytes each (the absolute
// value of a float64), keeping those finite and > 0.
func fuzzValues(raw []byte, n int) []float64 {
	var x []float64
	for i := 0; i+8 <= len(raw) && len(x) < n; i += 8 {
		v := math.Abs(math.Float64frombits(binary.LittleEndian.Uint64(raw[i:])))
		if v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
			x = append(x, v)
		}
	}
	return x
}

// fuzzFit fits x: an error, or candidates whose quantiles are numbers
// that do not decrease.
func fuzzFit(t testing.TB, x []float64) {
	m, err := FitValues("x", "s", x, Options{Seed: 1, Draws: 1000})
	if err != nil {
		return
	}
	for _, c := range m.Candidates {
		checkQuantiles(t, c.Name, c.Dist)
		_ = specTOML(&c, "s")
	}
}

// checkQuantiles fails unless d's quantiles at a few probabilities are
// numbers that do not decrease.
func checkQuantiles(t testing.TB, name string, d dist.Continuous) {
	t.Helper()
	prev := 0.0
	for _, p := range []float64{0.01, 0.5, 0.95, 0.999} {
		q := d.Quantile(p)
		if math.IsNaN(q) || q < prev {
			t.Fatalf("%s: quantile(%v) = %v after %v", name, p, q, prev)
		}
		prev = q
	}
}
