package fit

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fuzzCorpus returns the []byte inputs of target: seeds (named seed0,
// seed1, …) and the files kept under testdata/fuzz/TARGET.
func fuzzCorpus(tb testing.TB, target string, seeds ...[]byte) map[string][]byte {
	out := map[string][]byte{}
	for i, s := range seeds {
		out["seed"+strconv.Itoa(i)] = s
	}
	files, err := filepath.Glob(filepath.Join("testdata", "fuzz", target, "*"))
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		lit := strings.TrimSuffix(strings.TrimPrefix(lines[len(lines)-1], "[]byte("), ")")
		raw, err := strconv.Unquote(lit)
		if err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = []byte(raw)
	}
	return out
}

// BenchmarkFuzzFitValuesMixture times one execution of
// FuzzFitValuesMixture's body on its seed and kept inputs, and on 120
// evenly spaced quantiles of a lognormal (EM's slowest case, which runs
// to its iteration bound for three components).
func BenchmarkFuzzFitValuesMixture(b *testing.B) {
	inputs := fuzzCorpus(b, "FuzzFitValuesMixture", mixtureSeed())
	for name, raw := range inputs {
		x := fuzzValues(raw, 120)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				fuzzFit(b, x)
			}
		})
	}
	b.Run("lognormal-quantiles", func(b *testing.B) {
		x := lognormalQuantiles(120)
		for b.Loop() {
			fuzzFit(b, x)
		}
	})
}

// BenchmarkFuzzFitMixture times one execution of FuzzFitMixture's body
// on its seeds and kept inputs.
func BenchmarkFuzzFitMixture(b *testing.B) {
	inputs := fuzzCorpus(b, "FuzzFitMixture", append([]byte{1}, mixtureSeed()...), append([]byte{2}, mixtureSeed()...))
	for name, raw := range inputs {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				fuzzEM(b, raw)
			}
		})
	}
}

// BenchmarkFuzzFitSummary times one execution of FuzzFitSummary's body on
// a shipped summary's latency percentiles.
func BenchmarkFuzzFitSummary(b *testing.B) {
	in := `{"results_end_to_end_latency_s_quantiles_p50":1.5864668850001635,"results_end_to_end_latency_s_quantiles_p90":1.7731005455997553,"results_end_to_end_latency_s_quantiles_p99":54.31436771812106,"results_error_code_frequency":"{-1.0: 1}"}`
	for b.Loop() {
		fuzzSummary(b, in)
	}
}
