package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A child started by rlimitedHedgesim sets its own rlimit before main
// runs (TestMain): HEDGESIM_TEST_RLIMIT is "AS=BYTES" or "DATA=BYTES".
func init() {
	spec := os.Getenv("HEDGESIM_TEST_RLIMIT")
	if os.Getenv("HEDGESIM_TEST_MAIN") != "1" || spec == "" {
		return
	}
	kind, n, _ := strings.Cut(spec, "=")
	v, err := strconv.ParseUint(n, 10, 64)
	res, known := map[string]int{"AS": syscall.RLIMIT_AS, "DATA": syscall.RLIMIT_DATA}[kind]
	if err != nil || !known {
		fmt.Fprintf(os.Stderr, "bad HEDGESIM_TEST_RLIMIT %q\n", spec)
		os.Exit(3)
	}
	if err := syscall.Setrlimit(res, &syscall.Rlimit{Cur: v, Max: v}); err != nil {
		fmt.Fprintf(os.Stderr, "setrlimit %s: %v\n", spec, err)
		os.Exit(3)
	}
}

// rlimitedHedgesim runs the test binary as hedgesim with args under the
// rlimit spec ("AS=BYTES" or "DATA=BYTES").
func rlimitedHedgesim(t *testing.T, spec string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "HEDGESIM_TEST_MAIN=1", "HEDGESIM_TEST_RLIMIT="+spec)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), stderr.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// TestRlimitRefusedUpFront: under ulimit -v (RLIMIT_AS) or ulimit -d
// (RLIMIT_DATA), a run estimated to need more than the limit leaves is
// refused before simulating, with exit 2 and the limit's name — not killed
// by the Go runtime's "out of memory" — and a small run under the same
// limit runs.
func TestRlimitRefusedUpFront(t *testing.T) {
	if n, ok := availableMemory(); !ok || n < 4e9 {
		t.Skipf("the memory available (%d bytes) would be the tighter limit", n)
	}
	f := writeTestFile(t, t.TempDir(), "calls_max.toml", fanOutScenario)
	for _, tc := range []struct{ spec, name string }{
		{"AS=4000000000", "what the address-space limit RLIMIT_AS (ulimit -v) leaves"},
		{"DATA=3000000000", "what the data-segment limit RLIMIT_DATA (ulimit -d) leaves"},
	} {
		code, errOut := rlimitedHedgesim(t, tc.spec, "run", "--requests", "100000", f)
		if code != exitUsage || !strings.Contains(errOut, "needs about 5.0 GB of memory, more than "+tc.name) || strings.Contains(errOut, "fatal error") {
			t.Errorf("%s: exit %d, stderr %s; want 2 and the refusal naming %s", tc.spec, code, errOut, tc.name)
		}
		if code, errOut := rlimitedHedgesim(t, tc.spec, "run", "--requests", "2000", "guard-check"); code != 0 {
			t.Errorf("%s: a small run: exit %d: %s", tc.spec, code, errOut)
		}
	}
}
