package fit_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hedgesim/hedgesim/fit"
	"github.com/hedgesim/hedgesim/readers"
)

// failedLog returns a CSV log (elapsed_ms, code) of n requests, seeded: a
// share failShare fail with code 500, the others succeed with code 200 in
// a lognormal latency of median 0.4 s and σ 0.3. A failure takes
// U(10, 50) ms, or, with sameLatency, the successes' lognormal.
func failedLog(seed uint64, n int, failShare float64, sameLatency bool) string {
	src := rand.NewPCG(seed, 7)
	r := rand.New(src)
	ok := distuv.LogNormal{Mu: math.Log(0.4), Sigma: 0.3, Src: src}
	var b strings.Builder
	b.WriteString("elapsed_ms,code\n")
	for range n {
		switch {
		case r.Float64() >= failShare:
			fmt.Fprintf(&b, "%.3f,200\n", 1000*ok.Rand())
		case sameLatency:
			fmt.Fprintf(&b, "%.3f,500\n", 1000*ok.Rand())
		default:
			fmt.Fprintf(&b, "%.3f,500\n", 10+40*r.Float64())
		}
	}
	return b.String()
}

func readFailedLog(t *testing.T, csv string) *readers.Log {
	t.Helper()
	l, err := readers.ReadCSV(strings.NewReader(csv), "log.csv", readers.Columns{Latency: "elapsed_ms", Unit: readers.Milliseconds, Status: "code"})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestMinErrorFit: MinErrorFit is the smallest n whose p50, p90 and p95
// all have an order-statistic interval inside the sample.
func TestMinErrorFit(t *testing.T) {
	bounded := func(n int) bool {
		for _, p := range fit.CheckedQuantiles[:3] {
			if l, u := fit.QuantileRanks(n, p, fit.Level); l < 1 || u > n {
				return false
			}
		}
		return true
	}
	if !bounded(fit.MinErrorFit) || bounded(fit.MinErrorFit-1) {
		t.Errorf("MinErrorFit = %d: bounded there %v, one below %v", fit.MinErrorFit, bounded(fit.MinErrorFit), bounded(fit.MinErrorFit-1))
	}
}

// TestErrorLatencyFastFailures is the user's log: 2.7 % of 2000 requests
// fail in U(10, 50) ms while successes take about 0.4 s. The block gets an
// error_latency whose median is the failures' 30 ms. With m failures the
// sample median's standard error is 1/(2·f(30 ms)·√m) = 20 ms/√m (f =
// 1/40 ms⁻¹), about 2.7 ms at m ≈ 54; the tolerance is 4 of them. With 5 %
// failing (m ≈ 100 ≥ MinErrorFit) the failures are fitted as the latency
// is, and the fitted median must hold the same tolerance plus the
// lognormal's bias on a uniform: its median is the geometric mean
// e^E[ln X] = 27.5 ms, not 30.
func TestErrorLatencyFastFailures(t *testing.T) {
	for _, c := range []struct {
		share  float64
		model  string // the model written
		biasMs float64
	}{
		{0.027, fit.ModelEmpirical, 0},
		{0.05, "", 2.5},
	} {
		l := readFailedLog(t, failedLog(1, 2000, c.share, false))
		rep, err := fit.FitLog(l, fit.Options{Model: fit.ModelLogNormal, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		e := rep.ErrorLatency
		if e == nil || !e.Differs || e.Written() == nil {
			t.Fatalf("share %g: no error_latency written: %+v", c.share, e)
		}
		if c.model != "" && e.Written().Name != c.model {
			t.Errorf("share %g: %d failures written as %s, want %s", c.share, e.N, e.Written().Name, c.model)
		}
		if c.model == "" && e.Written().Name == fit.ModelEmpirical {
			t.Errorf("share %g: %d ≥ %d failures written as the empirical distribution, want a fit", c.share, e.N, fit.MinErrorFit)
		}
		tol := 4*20/math.Sqrt(float64(e.N)) + c.biasMs
		med := 1000 * e.Written().Dist.Quantile(0.5)
		t.Logf("share %g: m = %d failures, %s, median %.2f ms (tolerance %.1f ms)", c.share, e.N, e.Written().Name, med, tol)
		if math.Abs(med-30) > tol {
			t.Errorf("share %g: error_latency median %.2f ms, want 30 ± %.1f ms (m = %d)", c.share, med, tol, e.N)
		}
		block := rep.Block(fit.BlockOptions{Name: "m"})
		if !strings.Contains(block, "\nerror_latency = { kind = ") {
			t.Errorf("share %g: block has no error_latency:\n%s", c.share, block)
		}
	}
}

// TestErrorLatencySameAsSuccesses: failures as slow as the successes get
// no error_latency, and the block says why. Over 200 seeds the two-sample
// KS test at 5 % (conservative at these sizes) may call them different in
// at most 19: under a 5 % rate, 20 or more of 200 has probability 0.0027
// (binomial).
func TestErrorLatencySameAsSuccesses(t *testing.T) {
	l := readFailedLog(t, failedLog(1, 2000, 0.027, true))
	rep, err := fit.FitLog(l, fit.Options{Model: fit.ModelLogNormal, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	block := rep.Block(fit.BlockOptions{Name: "m"})
	if e := rep.ErrorLatency; e == nil || e.Differs || strings.Contains(block, "error_latency =") || !strings.Contains(block, "# no error_latency: the latency of the") {
		t.Errorf("failures as slow as successes: %+v\n%s", rep.ErrorLatency, block)
	}

	differs := 0
	for seed := range uint64(200) {
		src := rand.NewPCG(seed, 9)
		ok := distuv.LogNormal{Mu: math.Log(0.4), Sigma: 0.3, Src: src}
		okLat, failed := make([]float64, 1946), make([]float64, 54)
		for i := range okLat {
			okLat[i] = ok.Rand()
		}
		for i := range failed {
			failed[i] = ok.Rand()
		}
		e, err := fit.FitErrorLatency(failed, okLat, 0, fit.Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if e.Differs {
			differs++
		}
	}
	t.Logf("%d of 200 seeds called the same latencies different", differs)
	if differs > 19 {
		t.Errorf("%d of 200 seeds called the same latencies different; want ≤ 19 (5 %% test)", differs)
	}
}

// TestErrorLatencySmallCases: one failure never differs (the critical
// value exceeds 1); failures all of one value are written as a constant;
// a lognormal forced on bimodal failures (≥ MinErrorFit, 5 ms and 30 s)
// makes the block's POOR FIT, naming error_latency.
func TestErrorLatencySmallCases(t *testing.T) {
	ok := make([]float64, 500)
	for i := range ok {
		ok[i] = 0.3 + 0.001*float64(i)
	}
	e, err := fit.FitErrorLatency([]float64{0.01}, ok, 0, fit.Options{})
	if err != nil || e.Differs || e.Written() != nil {
		t.Errorf("one failure: %+v, %v", e, err)
	}

	var b strings.Builder
	b.WriteString("elapsed_ms,code\n")
	for i := range 500 {
		fmt.Fprintf(&b, "%d,200\n", 300+i)
		if i%50 == 0 {
			b.WriteString("20,500\n")
		}
	}
	rep, err := fit.FitLog(readFailedLog(t, b.String()), fit.Options{Model: fit.ModelLogNormal})
	if err != nil {
		t.Fatal(err)
	}
	if block := rep.Block(fit.BlockOptions{Name: "m"}); !strings.Contains(block, "error_latency = { kind = \"constant\", value = 0.02 }") {
		t.Errorf("10 failures at 20 ms:\n%s", block)
	}

	b.Reset()
	b.WriteString("elapsed_ms,code\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "%d,200\n", 300+i%400)
		if i%10 == 0 {
			fmt.Fprintf(&b, "%d,500\n", []int{5, 30000}[i/10%2]+i%7)
		}
	}
	rep, err = fit.FitLog(readFailedLog(t, b.String()), fit.Options{Model: fit.ModelLogNormal})
	if err != nil {
		t.Fatal(err)
	}
	if e := rep.ErrorLatency; e.N != 100 || e.Written() == nil || e.Written().Name != fit.ModelLogNormal {
		t.Fatalf("100 bimodal failures: %+v", e)
	}
	if poor, reasons := rep.Poor(); !poor || !mentions(reasons, "error_latency (lognormal)") {
		t.Errorf("poor %v, reasons %q", poor, reasons)
	}
	if block := rep.Block(fit.BlockOptions{Name: "m"}); !strings.Contains(block, "#   error_latency (lognormal): ") {
		t.Errorf("block:\n%s", block)
	}
}
