package export

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/sim"
)

// goTool returns the go command of the toolchain running the tests.
func goTool(t *testing.T) string {
	t.Helper()
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	p, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the failsafe-go snippet with")
	}
	return p
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// failsafeModule writes a temporary module that requires failsafe-go at
// FailsafeGoVersion, with the files given (path → content), and resolves
// its dependencies. It skips the test, saying so, when the module cannot
// be fetched (no module proxy).
func failsafeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module hedgingtest\n\ngo 1.26\n\nrequire " + FailsafeGoModule + " " + FailsafeGoVersion + "\n"
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := goCmd(t, dir, "mod", "tidy"); err != nil {
		t.Skipf("cannot fetch %s %s (is the module proxy reachable?), so the snippet is not compiled: %v\n%s",
			FailsafeGoModule, FailsafeGoVersion, err, out)
	}
	return dir
}

func goCmd(t *testing.T, dir string, args ...string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command(goTool(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	return cmd.CombinedOutput()
}

// TestFailsafeGoCompiles writes the failsafe-go snippets of every shipped
// scenario, and of variants using every feature the format maps (an
// adaptive delay, a budget, an attempt timeout, first_response, hedging
// off, several targets, written as their runtime runs them under
// Approximate), into a module that depends on failsafe-go, and
// vets and builds it.
func TestFailsafeGoCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module against failsafe-go: not in -short")
	}
	t.Parallel() // waits on a real client or the go command: overlaps with the other round trips
	// Every class of every shipped scenario (and of each with hedging off
	// in its first class) in one file, named scenario-class: one package
	// to vet and build.
	all := &Document{Format: DocumentFormat, Version: DocumentVersion, Scenario: "every shipped scenario", Source: FromScenario}
	for i, d := range shippedDocs(t) {
		for _, c := range d.Classes {
			c.Class = fmt.Sprintf("s%d-%s", i, c.Class)
			all.Classes = append(all.Classes, c)
		}
	}
	// Approximate: a class failsafe-go cannot express exactly (copies to
	// several models, gaps that differ) is written as its runtime will run it.
	shipped, _, err := Write(all, "failsafe-go", Options{Approximate: true})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{filepath.Join("shipped", "hedging.go"): string(shipped)}
	// A file whose classes all have hedging off (no hedgepolicy at all).
	off := ScenarioPolicies(loadShipped(t, "guard-check.toml"))
	off.Classes[0].Hedge, off.Classes[0].Copies = false, []Copy{}
	off.Classes[0].Retry = &Retry{MaxAttempts: 3, InitialBackoff: Seconds(time.Second), MaxBackoff: Seconds(4 * time.Second), Multiplier: 2,
		Jitter: "equal", RetryOn: []string{"5xx", "invalid"}}
	off.Classes[0].AttemptRetry = &Retry{MaxAttempts: 4, MaxBackoff: Seconds(time.Second), Multiplier: 1.5, Jitter: "full", RetryOn: []string{"429", "4xx"}}
	offOut, _, err := Write(off, "failsafe-go", Options{})
	if err != nil {
		t.Fatal(err)
	}
	files[filepath.Join("off", "hedging.go")] = string(offOut)
	d := ScenarioPolicies(loadShipped(t, "two-model-gateway.toml"))
	v := d.Classes
	v[0].Adaptive = &Adaptive{Percentile: 0.95, Window: 2000, WindowTime: Seconds(time.Minute), WarmUp: 0, Min: Seconds(time.Millisecond), Source: "requests"}
	v[1].Budget = Budget{MaxInFlightRatio: 0.2, MinInFlight: 3, MaxHedgeShare: 0.1, RetryThrottling: &Throttle{10, 0.1}, HedgesPerSecond: 5, MaxParallel: 2}
	v[1].AttemptTimeout, v[1].OnAttemptTimeout = Seconds(2*time.Second), "fatal"
	v[1].Retry = &Retry{MaxAttempts: 2, InitialBackoff: Seconds(time.Second), MaxBackoff: Seconds(time.Second), Multiplier: 1,
		Jitter: "none", RetryOn: sim.RetryKinds, CountsAgainstBudget: true}
	v[2].Winner = "first_response"
	v[3].Copies = []Copy{{Target: "large-b", Delay: Seconds(300 * time.Millisecond)}, {Target: "large-a", Delay: Seconds(500 * time.Millisecond)}}
	v[3].OnInvalid, v[3].Deadline = "fatal", 0
	v[3].Breakers = []Breaker{{Provider: "p", Models: []string{"large-a", "large-b"}, ConsecutiveFailures: 3, FailureRatio: 0.5, Window: 20, MinCalls: 10,
		Cooldown: Seconds(time.Second), Probes: 2}}
	out, notes, err := Write(d, "failsafe-go", Options{Approximate: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"decaying estimate", "ends hedging", "approximate: the copies go to \"large-b\", \"large-a\" in turn, but failsafe-go sends every copy to one hedge target", "no time window", "counts_against_budget not written",
		"WithFailureThresholdRatio(10 of the last 20)", "the 3-consecutive-failure trip is not", "one instance shared by the models large-a, large-b"} {
		found := false
		for _, n := range notes {
			found = found || strings.Contains(n.Text, want)
		}
		if !found {
			t.Errorf("no note containing %q: %v", want, notes)
		}
	}
	files[filepath.Join("variants", "hedging.go")] = string(out)

	dir := failsafeModule(t, files)
	if out, err := goCmd(t, dir, "vet", "./..."); err != nil {
		t.Fatalf("go vet: %v\n%s", err, out)
	}
	if out, err := goCmd(t, dir, "build", "./..."); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
}
