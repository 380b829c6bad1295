package main

import (
	"encoding/csv"
	"encoding/json"
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

// TestRunAutoscaledPool: the shipped scale-to-zero scenario prints each
// autoscaled pool's scaler lines, puts them and the replicas over time in
// the JSON, and run --out draws each pool's replicas.
func TestRunAutoscaledPool(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	code, text, errOut := hedgesim(t, "run", "--requests", "2000", "--out", out, "scale-to-zero")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"pool one-warm: 2 replicas", "autoscaled (concurrency) between 1 and 2 replicas", "waited for capacity:", "replica-hours "} {
		if !strings.Contains(text, want) {
			t.Errorf("run's text lacks %q", want)
		}
	}
	for _, pool := range []string{"scale-to-zero", "keep-warm", "one-warm", "hedged"} {
		for _, f := range []string{"pool-" + pool + "-replicas.png", "pool-" + pool + "-replicas.svg"} {
			if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
				t.Errorf("run --out: %s: %v", f, err)
			}
		}
	}
	js, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Pools []struct {
			Provider  string `json:"provider"`
			Autoscale *struct {
				Starts int64 `json:"starts"`
				Series []struct {
					T     float64 `json:"t_s"`
					Ready *int    `json:"ready"`
				} `json:"replicas_over_time"`
			} `json:"autoscale"`
		} `json:"pools"`
	}
	if err := json.Unmarshal(js, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Pools) != 4 {
		t.Fatalf("%d pools in the JSON, want 4", len(rep.Pools))
	}
	for _, p := range rep.Pools {
		if p.Autoscale == nil || len(p.Autoscale.Series) == 0 || p.Autoscale.Series[0].T != 0 || p.Autoscale.Series[0].Ready == nil {
			t.Errorf("pool %s: autoscale %+v; want its replicas over time from 0", p.Provider, p.Autoscale)
		}
	}
}
