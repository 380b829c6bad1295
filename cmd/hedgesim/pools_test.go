package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRunReplicaPool: the shipped replica-pool scenario prints a table per
// pool, and its trace has a replica column naming a replica of the pool
// for every attempt; a trace of a scenario without pools has none. A bad
// pool is bad input (exit 2) named by file, line and key.
func TestRunReplicaPool(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace.csv")
	code, out, errOut := hedgesim(t, "run", "--requests", "5000", "--trace", trace, "replica-pool")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"pool p2c-pool: 8 replicas, balancer p2c", "pool ewma-pool: 8 replicas, balancer latency_ewma", "p95 queue wait"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the report:\n%s", want, out)
		}
	}
	f, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if head := rows[0]; head[len(head)-1] != "replica" {
		t.Fatalf("trace header %v: no replica column", head)
	}
	for _, row := range rows[1:] {
		if r, err := strconv.Atoi(row[len(row)-1]); err != nil || r < 0 || r >= 8 {
			t.Fatalf("trace row %v: replica %q, want 0 to 7", row, row[len(row)-1])
		}
	}
	plain := filepath.Join(t.TempDir(), "plain.csv")
	if code, _, errOut := hedgesim(t, "run", "--requests", "200", "--trace", plain, "guard-check"); code != 0 {
		t.Fatalf("guard-check: exit %d: %s", code, errOut)
	}
	if data, err := os.ReadFile(plain); err != nil || strings.Contains(strings.SplitN(string(data), "\n", 2)[0], "replica") {
		t.Errorf("a trace without pools has a replica column (%v)", err)
	}
	path := writeScenario(t, `
[arrivals]
rate = 1
[models.m]
provider = "gpu"
latency = { kind = "constant", value = 0.5 }
[providers.gpu.pool]
replicas = 4
balancer = "least_busy"
[[classes]]
name = "c"
`)
	code, _, errOut = hedgesim(t, "run", path)
	if code != 2 || !strings.Contains(errOut, `lognormal.toml:9: providers.gpu.pool.balancer: unknown value "least_busy"`) {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// TestOptimizeBalancers: optimize --balancers compares routers on a
// scenario with pools and prints the routing section; an unknown
// balancer, a scenario without pools and --shard are usage errors.
func TestOptimizeBalancers(t *testing.T) {
	code, out, errOut := hedgesim(t, "optimize", "--quiet", "--requests", "5000", "--check-requests", "0", "--classes", "random",
		"--delays", "2s", "--balancers", "latency_ewma", "replica-pool")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "routing: every replica pool set to each of latency_ewma") || !strings.Contains(out, "random (configured)") {
		t.Errorf("no routing section:\n%s", out)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--balancers", "p2x", "replica-pool"}, `--balancers: unknown balancer "p2x" (did you mean "p2c"?)`},
		{[]string{"--balancers", "p2c", "guard-check"}, "--balancers: the scenario has no replica pool"},
		{[]string{"--balancers", "p2c", "--shard", "0/2", "--out", filepath.Join(t.TempDir(), "part.json"), "replica-pool"}, "--balancers cannot go with --shard"},
	} {
		code, _, errOut := hedgesim(t, append([]string{"optimize"}, tt.args...)...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("optimize %v: exit %d, %s; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
}
