//go:build unix

package main

import (
	"bufio"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// writeBimodalCSV writes n latencies in ms, a 30/70 mixture of lognormals
// with medians 200 ms and 1.5 s (seed 1), under the header latency_ms.
func writeBimodalCSV(tb testing.TB, path string, n int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("latency_ms\n")
	r := rand.New(rand.NewPCG(1, 1))
	var buf []byte
	for range n {
		mu, sigma := math.Log(1500), 0.5
		if r.Float64() < 0.3 {
			mu, sigma = math.Log(200), 0.3
		}
		buf = strconv.AppendFloat(buf[:0], math.Round(10*math.Exp(mu+sigma*r.NormFloat64()))/10, 'f', -1, 64)
		buf = append(buf, '\n')
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkFitCSV10M runs `hedgesim fit` as its own process on a CSV log
// of 10⁷ latencies (about 70 MB) and reports the wall time per run and the
// process's peak resident memory (peak-RSS-MB). The bound is 60 s and
// 1 GB. Run it with
//
//	go test -run '^$' -bench FitCSV10M -benchtime 1x ./cmd/hedgesim/
func BenchmarkFitCSV10M(b *testing.B) {
	path := filepath.Join(b.TempDir(), "latency.csv")
	writeBimodalCSV(b, path, 10_000_000)
	var peak int64
	b.ResetTimer()
	for range b.N {
		cmd := exec.Command(os.Args[0], "fit", "--latency", "latency_ms", path)
		cmd.Env = append(os.Environ(), "HEDGESIM_TEST_MAIN=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peak = max(peak, int64(ru.Maxrss)) // kilobytes on Linux
		}
	}
	b.ReportMetric(float64(peak)/1024, "peak-RSS-MB")
}

// TestFitMillionRowsBounded: `hedgesim fit` on 10⁶ rows (7 MB) once ran
// for 5 minutes; EM on a subsample and a log stored by column bring it to
// seconds and under 100 MB resident (81 MB measured). The test runs the
// program as its own process and bounds its peak resident memory at
// 256 MB, and its output must say that EM ran on a subsample.
func TestFitMillionRowsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a million rows")
	}
	path := filepath.Join(t.TempDir(), "latency.csv")
	writeBimodalCSV(t, path, 1_000_000)
	cmd := exec.Command(os.Args[0], "fit", "--latency", "latency_ms", path)
	cmd.Env = append(os.Environ(), "HEDGESIM_TEST_MAIN=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skip("no resource usage on this system")
	}
	if peakMB := ru.Maxrss / 1024; peakMB > 256 {
		t.Errorf("peak resident memory %d MB; want ≤ 256", peakMB)
	}
	if !strings.Contains(string(out), "EM on 10000 evenly spaced order statistics of the 1000000 observations") {
		t.Errorf("output does not say EM ran on a subsample:\n%s", out)
	}
}
