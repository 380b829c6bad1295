package main

import (
	"strings"
	"testing"
)

// TestZeroFailWarningPrinted: a pool that scales to zero with no_capacity
// = "fail" and cold starts (20–60 s) longer than its grace (10 s) gives
// every start from zero up (sim's TestZeroFailWarning): validate prints
// the warning at the file, line and key of no_capacity, and run prints it
// among the class's warnings. The same file with no_capacity = "wait"
// earns none.
func TestZeroFailWarningPrinted(t *testing.T) {
	src := `seed = 4
requests = 300
[arrivals]
rate = 0.05
[providers.z.pool]
concurrency = 2
[providers.z.pool.autoscale]
min_replicas = 0
max_replicas = 1
target_concurrency = 1
scale_to_zero_grace = "10s"
no_capacity = "fail"
price_per_replica_hour = 1.0
[providers.z.pool.cold_start]
latency = { kind = "uniform", min = 20.0, max = 60.0 }
[providers.api]
[models.self]
provider = "z"
latency = { kind = "lognormal", median = 1.0, p95 = 3.0 }
[models.hosted]
provider = "api"
latency = { kind = "lognormal", median = 1.2, p95 = 3.0 }
price_per_request = 0.002
[[classes]]
name = "req"
deadline = "30s"
on_timeout = "fail_closed"
[classes.hedge]
primary = "self"
delay = "fallback"
targets = ["hosted"]
on_error = "nonfatal"
`
	dir := t.TempDir()
	f := writeTestFile(t, dir, "pool2.toml", src)
	text := `req: provider z's pool scales to zero (min_replicas = 0) with no_capacity = "fail": at zero no attempt waits for the replica it starts, so the scaler gives the start up within 14.0s (scale_to_zero_grace 10.0s + 2 ticks), and 100.0% of its cold starts are longer: once at zero the pool does not come back; use no_capacity = "wait", min_replicas = 1, or a scale_to_zero_grace of at least 59.6s (the cold start's p99)`
	code, out, errOut := hedgesim(t, "validate", f)
	if line := f + ":12: providers.z.pool.autoscale.no_capacity: warning: " + text; code != 0 || out != f+": ok, 1 warning\n" || !strings.Contains(errOut, line) {
		t.Errorf("validate: exit %d, stdout %q, stderr %q; want 0, the file ok with 1 warning, and %q", code, out, errOut, line)
	}
	_, runOut, runErr := hedgesim(t, "run", "--wide", f)
	if !strings.Contains(runOut, "warning: "+text) {
		t.Errorf("run does not print %q:\n%s%s", "warning: "+text, runOut, runErr)
	}

	g := writeTestFile(t, dir, "wait.toml", strings.Replace(src, `no_capacity = "fail"`, `no_capacity = "wait"`, 1))
	if code, out, errOut := hedgesim(t, "validate", g); code != 0 || out != g+": ok\n" {
		t.Errorf("validate with no_capacity = \"wait\": exit %d, stdout %q, stderr %q; want 0 and the file ok without warnings", code, out, errOut)
	}
}
