package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fanOutScenario is issue 35's heavy pipeline: 2 000 requests, each 4 095
// parallel calls then one call that reads them all — about 8·10⁶ calls,
// tens of seconds of work, in fewer requests than the 4 096 arrivals
// between two looks at the context there once were.
const fanOutScenario = `seed = 1
requests = 2000
[arrivals]
rate = 10.0
[models.m]
latency = { kind = "lognormal", median = 0.5, p95 = 2.0 }
price_per_request = 0.001
[[classes]]
name = "p"
deadline = "600s"
[[classes.steps]]
name = "a"
fan_out = 4095
[[classes.steps]]
name = "b"
input_from = ["a.output", "a.input"]
`

// cpuSeconds returns the user and system CPU time process pid has used,
// from /proc/PID/stat (in clock ticks, 100 a second on Linux).
func cpuSeconds(t *testing.T, pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		t.Fatalf("/proc/%d/stat: %q", pid, b)
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100
}

// TestHeavyRunInterrupted: SIGINT or SIGTERM stops run (on the pipelines'
// lane, and with --trace on the event loop) and optimize on the fan-out
// scenario within a second, with exit 130 and nothing written — once
// each has spent a second of CPU simulating, well before its end.
func TestHeavyRunInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates pipelines of 4 096 calls a request")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "calls_max.toml")
	if err := os.WriteFile(path, []byte(fanOutScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "attempts.csv")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"run", []string{"run", path}},
		{"run --trace", []string{"run", "--trace", trace, path}},
		{"optimize", []string{"optimize", "--requests", "2000", "--no-plots", path}},
	} {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			cmd := exec.Command(os.Args[0], tc.args...)
			cmd.Env = append(os.Environ(), "HEDGESIM_TEST_MAIN=1")
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(60 * time.Second); cpuSeconds(t, cmd.Process.Pid) < 1; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("%s: no second of CPU in a minute: %s", tc.name, stderr.String())
				}
			}
			before := cpuSeconds(t, cmd.Process.Pid)
			cmd.Process.Signal(sig)
			sent := time.Now()
			cmd.Wait()
			took := time.Since(sent)
			t.Logf("%s, %v: stopped %v after the signal, %.3f s CPU", tc.name, sig, took, (cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime()).Seconds()-before)
			if code := cmd.ProcessState.ExitCode(); code != exitInterrupted || !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("%s, %v: exit %d, stderr %q; want 130 and \"interrupted\"", tc.name, sig, code, stderr.String())
			}
			if took > time.Second {
				t.Errorf("%s, %v: took %v to stop after the signal; want < 1 s", tc.name, sig, took)
			}
			if stdout.Len() > 0 {
				t.Errorf("%s, %v: wrote %d bytes to stdout: %.200s", tc.name, sig, stdout.Len(), stdout.String())
			}
			if _, err := os.Stat(trace); err == nil {
				t.Errorf("%s, %v: a trace was left at %s", tc.name, sig, trace)
				os.Remove(trace)
			}
		}
	}
}
