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

// FuzzFitValues feeds the fitting code (lognormal, EM mixtures, empirical,
// goodness of fit) with arbitrary positive samples: it must return a fit or
// an error, never panic, and every fitted distribution must give finite,
// non-decreasing quantiles.
func FuzzFitValues(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 240, 63, 0, 0, 0, 0, 0, 0, 0, 64})
	f.Add([]byte("a few bytes that become float64 values for the fit"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var x []float64
		for i := 0; i+8 <= len(raw) && len(x) < 120; i += 8 {
			v := math.Abs(math.Float64frombits(binary.LittleEndian.Uint64(raw[i:])))
			if v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
				x = append(x, v)
			}
		}
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
	})
}
