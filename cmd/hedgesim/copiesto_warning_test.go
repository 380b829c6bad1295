package main

import (
	"strings"
	"testing"
)

// TestCopiesToOneReplicaWarning: copies_to = "other_replica" on a pool of
// one replica that a class hedges into is a warning: validate prints it at
// the file, line and key of the setting, naming the provider, and run
// prints it among the class's warnings.
func TestCopiesToOneReplicaWarning(t *testing.T) {
	src := `seed = 1
requests = 400
[arrivals]
rate = 10.0
[providers.gpu]
[providers.gpu.pool]
replicas = 1
concurrency = 16
copies_to = "other_replica"
[models.m]
provider = "gpu"
latency = { kind = "lognormal", median = 0.5, p95 = 2.0 }
[[classes]]
name = "api"
deadline = "10s"
[classes.hedge]
primary = "m"
delay = "1s"
`
	f := writeTestFile(t, t.TempDir(), "one.toml", src)
	text := `api: provider gpu's pool has 1 replica, so copies_to = "other_replica" (the default) finds no other replica`
	code, out, errOut := hedgesim(t, "validate", f)
	if line := f + ":9: providers.gpu.pool.copies_to: warning: " + text; code != 0 || out != f+": ok, 1 warning\n" || !strings.Contains(errOut, line) {
		t.Errorf("validate: exit %d, stdout %q, stderr %q; want 0, the file ok with 1 warning, and %q", code, out, errOut, line)
	}
	_, runOut, runErr := hedgesim(t, "run", "--wide", f)
	if !strings.Contains(runOut, "warning: "+text) {
		t.Errorf("run does not print %q:\n%s%s", "warning: "+text, runOut, runErr)
	}
}
