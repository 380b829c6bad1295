package fit

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/readers"
)

// FuzzFitSummary turns any llmperf summary the reader accepts into
// quantile tables: it must return tables or an *readers.InputError with a
// line, never panic.
func FuzzFitSummary(f *testing.F) {
	data, err := os.ReadFile("../scenarios/data/llmperf-leaderboard/summary/together_13b.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(data))
	for _, s := range []string{
		`{"results_end_to_end_latency_s_quantiles_p50": 1, "results_end_to_end_latency_s_quantiles_p99": 2, "results_end_to_end_latency_s_mean": "1.1"}`,
		`{"results_ttft_s_quantiles_p50": 2, "results_ttft_s_quantiles_p90": 2, "results_error_code_frequency": "{429.0: 3}"}`,
		`{"results_ttft_s_quantiles_p50": 0, "results_ttft_s_quantiles_p90": 2}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
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
	})
}

// FuzzFitValues and FuzzFitMixture feed the fitting code (lognormal, EM
// mixtures, empirical, goodness of fit) with arbitrary positive samples: it
// must return a fit or an error, never panic, and every fitted
// distribution must give finite, non-decreasing quantiles.
//
// FuzzFitValues fits up to 49 values, too few for a mixture (which needs
// 10 per parameter, 50 for two components): the single-distribution fits,
// about 0.4 ms an execution. FuzzFitMixture fits more.
func FuzzFitValues(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 240, 63, 0, 0, 0, 0, 0, 0, 0, 64})
	f.Add([]byte("a few bytes that become float64 values for the fit"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		fuzzFit(t, fuzzValues(raw, mixtureFuzzMin-1))
	})
}

// FuzzFitMixture fits 50 to 120 values, so that the EM mixture fits run
// too: 0.1 to 0.3 s an execution, a few hundred a minute.
func FuzzFitMixture(f *testing.F) {
	seed := make([]byte, 8*mixtureFuzzMin)
	for i := range mixtureFuzzMin {
		binary.LittleEndian.PutUint64(seed[8*i:], math.Float64bits(1+float64(i%7)/3))
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, raw []byte) {
		x := fuzzValues(raw, 120)
		if len(x) < mixtureFuzzMin {
			return // FuzzFitValues' inputs
		}
		fuzzFit(t, x)
	})
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
func fuzzFit(t *testing.T, x []float64) {
	m, err := FitValues("x", "s", x, Options{Seed: 1, Draws: 1000})
	if err != nil {
		return
	}
	for _, c := range m.Candidates {
		prev := 0.0
		for _, p := range []float64{0.01, 0.5, 0.95, 0.999} {
			q := c.Dist.Quantile(p)
			if math.IsNaN(q) || q < prev {
				t.Fatalf("%s: quantile(%v) = %v after %v", c.Name, p, q, prev)
			}
			prev = q
		}
		_ = specTOML(&c, "s")
	}
}
