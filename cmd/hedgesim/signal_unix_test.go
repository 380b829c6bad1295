//go:build unix

package main

import (
	"context"
	"flag"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// testGCPercent is the collector's target while the tests run: a
// collection starts when the heap has grown by 4 times what was live after
// the last (debug.SetGCPercent), not by once that as at the default of
// 100. The tests allocate the same and check the same; collecting a
// quarter as often took 17 % less CPU under -short (24.4 CPU-s twice
// against 29.8 and 29.4), for a peak resident set of 161 to 199 MiB
// instead of 107 to 133 MiB (docs/performance.md, "A fourth round"), and
// in the full suite 90.0 and 91.0 CPU-s against 100.7 and 101.4, its peak
// that of the programs it runs (the test binary alone, "A fifth round").
const testGCPercent = 400

// TestMain lets the tests run the real program in a subprocess: with
// HEDGESIM_TEST_MAIN=1 the test binary is hedgesim. With
// HEDGESIM_TEST_PAUSE=FILE as well, the report writer creates FILE just
// before the swap and waits there (up to 20 s) until the program is
// interrupted, so a test can signal the write phase at a known point.
// Otherwise the tests run with the collector's target at testGCPercent
// (the program run as a subprocess keeps the runtime's default, as do
// benchmarks and fuzzing: -test.bench, -test.fuzz).
func TestMain(m *testing.M) {
	if os.Getenv("HEDGESIM_TEST_MAIN") != "1" {
		flag.Parse()
		if !benchOrFuzz() {
			debug.SetGCPercent(testGCPercent)
		}
		os.Exit(m.Run())
	}
	if pause := os.Getenv("HEDGESIM_TEST_PAUSE"); pause != "" {
		writeHook = func(ctx context.Context, name string) {
			if name != "" {
				return
			}
			os.WriteFile(pause, nil, 0o644)
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Second):
			}
		}
	}
	main()
}

// benchOrFuzz reports whether -test.bench or -test.fuzz is set.
func benchOrFuzz() bool {
	for _, name := range []string{"test.bench", "test.fuzz"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return true
		}
	}
	return false
}

// hedgesimProcess starts the test binary as hedgesim with args, pausing
// before the swap; it returns the command once the pause is reached.
func hedgesimProcess(t *testing.T, args ...string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	pause := filepath.Join(t.TempDir(), "paused")
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "HEDGESIM_TEST_MAIN=1", "HEDGESIM_TEST_PAUSE="+pause)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(pause); err == nil {
			return cmd, &stderr
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the write phase was not reached: %s", stderr.String())
		}
	}
}

// TestSignalDuringWrite sends SIGINT, SIGTERM and SIGKILL to a real
// hedgesim process in its write phase, over a directory holding an older
// report. SIGINT and SIGTERM: exit 130, the old report intact, nothing
// temporary left. SIGKILL: the old report intact; the temporary directory
// left beside it is removed by the next run, which writes its report.
func TestSignalDuringWrite(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "report")
	if code, _, errOut := hedgesim(t, "run", "--requests", "1000", "--out", dir, "guard-check"); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	old := readDir(t, dir)
	args := []string{"optimize", "--requests", "1000", "--delays", "0,1s", "--no-plots", "--force", "--out", dir, "guard-check"} // --force: over run's report
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		cmd, stderr := hedgesimProcess(t, args...)
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		code := cmd.ProcessState.ExitCode()
		if sig != syscall.SIGKILL && (code != exitInterrupted || !strings.Contains(stderr.String(), "interrupted")) {
			t.Errorf("%v: exit %d (%v), stderr %q; want 130", sig, code, err, stderr.String())
		}
		if got := readDir(t, dir); !maps.Equal(got, old) {
			t.Errorf("%v: the directory is not the old report: %v", sig, slices.Sorted(maps.Keys(got)))
		}
		beside := dirNames(t, parent)
		if sig != syscall.SIGKILL && !slices.Equal(beside, []string{"report"}) {
			t.Errorf("%v: beside the report: %v", sig, beside)
		}
		if sig == syscall.SIGKILL && len(beside) != 2 {
			t.Errorf("SIGKILL: beside the report: %v; want the report and the killed run's temporary directory", beside)
		}
	}
	if code, _, errOut := hedgesim(t, args...); code != 0 {
		t.Fatalf("last run: exit %d: %s", code, errOut)
	}
	if got := dirNames(t, parent); !slices.Equal(got, []string{"report"}) {
		t.Errorf("after the next run, beside the report: %v", got)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{manifestName, "candidates.csv", "index.html", "report.json", "report.txt"}) {
		t.Errorf("new report: %v", got)
	}
}

// TestTraceInterrupted: SIGINT while `run --trace` streams a trace (5·10⁶
// requests, hundreds of megabytes if it ran to the end) removes the
// partial trace file and writes nothing.
func TestTraceInterrupted(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "run", "--requests", "5e6", "--trace", filepath.Join(dir, "attempts.csv"), "guard-check")
	cmd.Env = append(os.Environ(), "HEDGESIM_TEST_MAIN=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the temporary trace holds 10 MB, then interrupt.
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		m, _ := filepath.Glob(filepath.Join(dir, ".attempts.csv.tmp*"))
		if len(m) == 1 {
			if st, err := os.Stat(m[0]); err == nil && st.Size() > 10<<20 {
				break
			}
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Errorf("exit %d, stderr %q; want 130", code, stderr.String())
	}
	if got := dirNames(t, dir); len(got) != 0 {
		t.Errorf("left behind: %v", got)
	}
}

// hangAfter is how long after the signal a program that has not exited
// is killed: only to end the test of one that ignores it, not a bound on
// how fast it stops.
const hangAfter = 2 * time.Minute

// waitStopped waits for cmd, signalled when it had spent before seconds
// of CPU, and returns the CPU it spent after the signal (user and system,
// every thread); it kills cmd and fails the test when it has not exited
// hangAfter after the signal.
func waitStopped(t *testing.T, name string, cmd *exec.Cmd, before float64) float64 {
	t.Helper()
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(hangAfter):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s: still running %v after the signal", name, hangAfter)
	}
	return (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds() - before
}

// TestFitInterrupted: SIGINT or SIGTERM while `fit` reads and fits a log
// of 2·10⁶ latencies (several seconds of work) stops it: exit 130, nothing
// on stdout, "interrupted" on stderr. How soon is TestHeavyFitInterrupted's
// to prove, by the CPU spent after the signal (Linux): a wall-clock bound
// here failed on a loaded machine; a program that ignores the signal is
// killed after hangAfter.
func TestFitInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("fits a log of 2·10⁶ rows")
	}
	path := filepath.Join(t.TempDir(), "latency.csv")
	writeBimodalCSV(t, path, 2_000_000)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd := exec.Command(os.Args[0], "fit", "--latency", "latency_ms", path)
		cmd.Env = append(os.Environ(), "HEDGESIM_TEST_MAIN=1")
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1500 * time.Millisecond)
		cmd.Process.Signal(sig)
		waitStopped(t, sig.String(), cmd, 0)
		if code := cmd.ProcessState.ExitCode(); code != exitInterrupted || !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("%v: exit %d, stderr %q; want 130 and \"interrupted\"", sig, code, stderr.String())
		}
		if stdout.Len() > 0 {
			t.Errorf("%v: wrote %d bytes to stdout: %.200s", sig, stdout.Len(), stdout.String())
		}
	}
}

// TestClosedPipeOnStdout: a write to a closed pipe on stdout once killed
// the program by SIGPIPE (141 in a shell); the exit-code table lists it
// under 1, an I/O error while writing an output.
func TestClosedPipeOnStdout(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	cmd := exec.Command(os.Args[0], "list")
	cmd.Env = append(os.Environ(), "HEDGESIM_TEST_MAIN=1")
	cmd.Stdout = w
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != exitFailure || !strings.Contains(stderr.String(), "broken pipe") {
		t.Errorf("exit %d (%v), stderr %q; want 1 and the broken pipe named", code, err, stderr.String())
	}
}
