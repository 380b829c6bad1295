package fit_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/hedgesim/hedgesim/fit"
	"github.com/hedgesim/hedgesim/readers"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/sim"
)

var shippedLogs = []string{
	"../scenarios/data/llmperf-leaderboard/individual/together_13b.json",
	"../scenarios/data/llmperf-leaderboard/individual/anyscale_13b.json",
}

func readLLMPerf(t *testing.T, name string) *readers.Log {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := readers.ReadLLMPerf(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestFittedBlockSimulates is the acceptance test on real llmperf
// logs: the block `hedgesim fit` writes is pasted into a scenario, run
// through the simulator (no hedging, output tokens drawn from the log),
// and the simulated p50/p90/p95 must lie inside the observed percentiles'
// 95 % order-statistic intervals — or the report must call the fit poor
// and say which percentile misses. The simulation has 20000 requests, so
// its own sampling error (about √(p(1−p)/20000)/f at a quantile) is a
// small fraction of the interval widths for n = 150 observations.
func TestFittedBlockSimulates(t *testing.T) {
	for _, name := range shippedLogs {
		t.Run(name[strings.LastIndex(name, "/")+1:], func(t *testing.T) {
			l := readLLMPerf(t, name)
			rep, err := fit.FitLog(l, fit.Options{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := rep.WriteTOML(&out, fit.BlockOptions{Name: "m"}); err != nil {
				t.Fatal(err)
			}
			outputs := make([]string, 0)
			for _, v := range l.OutputTokenCounts() {
				outputs = append(outputs, fmt.Sprint(v))
			}
			doc := "requests = 20000\n[arrivals]\nprocess = \"constant\"\nrate = 1\n\n" + out.String() +
				"\n[[classes]]\nname = \"c\"\noutput_tokens = { kind = \"empirical\", values = [" + strings.Join(outputs, ", ") + "] }\n"
			sc, err := scenario.Parse("fitted.toml", []byte(doc))
			if err != nil {
				t.Fatalf("the fitted block does not parse: %v\n%s", err, doc)
			}
			res, err := sim.Run(&sc.Config)
			if err != nil {
				t.Fatal(err)
			}
			// Sorted; a request without a usable answer (the block's error_rate
			// and invalid_rate) is a miss, +Inf, and sorts last.
			simLat := res.Classes[0].Latencies()
			obs := l.Latencies()
			sortedObs := append([]float64(nil), obs...)
			slices.Sort(sortedObs)
			poor, reasons := rep.Poor()
			for _, p := range []float64{0.5, 0.9, 0.95} {
				l, u := fit.QuantileRanks(len(sortedObs), p, fit.Level)
				lo, hi := sortedObs[l-1], sortedObs[u-1]
				got := stat.Quantile(p, stat.Empirical, simLat, nil)
				inside := lo <= got && got <= hi
				t.Logf("p%g: observed %.4g [%.4g, %.4g], simulated %.4g", 100*p, stat.Quantile(p, stat.Empirical, sortedObs, nil), lo, hi, got)
				if !inside && !(poor && mentions(reasons, fmt.Sprintf("p%g", 100*p))) {
					t.Errorf("p%g: simulated %.4g outside [%.4g, %.4g] and the report does not say so (poor %v: %q)", 100*p, got, lo, hi, poor, reasons)
				}
			}
		})
	}
}

func mentions(reasons []string, s string) bool {
	for _, r := range reasons {
		if strings.Contains(r, s) {
			return true
		}
	}
	return false
}

// TestPoorFitIsReported: a lognormal forced on a bimodal sample is called
// poor, with the reason.
func TestPoorFitIsReported(t *testing.T) {
	var b strings.Builder
	b.WriteString("latency_ms\n")
	for i := range 200 {
		v := 100 + i%50 // a fast mode, 100–149 ms
		if i%2 == 1 {
			v = 3000 + 40*(i%50) // a slow mode, 3–5 s
		}
		fmt.Fprintf(&b, "%d\n", v)
	}
	l, err := readers.ReadCSV(strings.NewReader(b.String()), "bimodal.csv", readers.Columns{Latency: "latency_ms"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := fit.FitLog(l, fit.Options{Model: fit.ModelLogNormal})
	if err != nil {
		t.Fatal(err)
	}
	poor, reasons := rep.Poor()
	if !poor || !mentions(reasons, "p95") || !mentions(reasons, "KS distance") {
		t.Errorf("poor %v, reasons %q", poor, reasons)
	}
	block := rep.Block(fit.BlockOptions{})
	if !strings.Contains(block, "# POOR FIT:") || !strings.Contains(block, "latency = { kind = \"lognormal\"") {
		t.Errorf("block:\n%s", block)
	}
	// The automatic choice fits it.
	rep, err = fit.FitLog(l, fit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if poor, reasons := rep.Poor(); poor {
		t.Errorf("auto: poor %q", reasons)
	}
}

// TestWriteJSON: the JSON report decodes and carries the block.
func TestWriteJSON(t *testing.T) {
	rep, err := fit.FitLog(readLLMPerf(t, shippedLogs[0]), fit.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b, fit.BlockOptions{Name: "x"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"format": "llmperf"`, `"chosen": "mixture-3"`, `"ci_hi": null`, `[models.x]`, `"end_to_end"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
}

func TestFitSummary(t *testing.T) {
	const name = "../scenarios/data/llmperf-leaderboard/summary/together_13b.json"
	in, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	s, err := readers.ReadLLMPerfSummary(in, name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := fit.FitSummary(s)
	if err != nil {
		t.Fatal(err)
	}
	// The table reproduces every published point exactly.
	for i, p := range f.Latency.Ps {
		if got := f.Latency.Dist.Quantile(p); got != f.Latency.Xs[i] {
			t.Errorf("table quantile %v = %v, want %v", p, got, f.Latency.Xs[i])
		}
	}
	if f.Failed != 1 {
		t.Errorf("failed = %d, want 1 (code -1)", f.Failed)
	}
	// The published p99 (54 s) pulls the lognormal tail far above the
	// published mean: the block must warn.
	if b := f.Block(fit.BlockOptions{}); !strings.Contains(b, "WARNING: the table's mean") {
		t.Errorf("no tail warning in:\n%s", b)
	}
}

func TestFitSummaryNoEndToEnd(t *testing.T) {
	// Parsed, but not a usable table: the end-to-end latency is missing.
	s, err := readers.ReadLLMPerfSummary(strings.NewReader(`{"results_ttft_s_quantiles_p50": 1, "results_ttft_s_quantiles_p90": 2}`), "in")
	if err != nil {
		t.Fatal(err)
	}
	_, err = fit.FitSummary(s)
	var ie *readers.InputError
	if !errors.As(err, &ie) || ie.Line != 1 || ie.Field != "results_end_to_end_latency_s_quantiles_p50" || !strings.Contains(ie.Msg, "missing") {
		t.Errorf("got %v, want an *InputError on line 1, field results_end_to_end_latency_s_quantiles_p50, saying missing", err)
	}
}
