package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
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

// TestOptimizeMinReplicasDocExample runs the example of docs/pools.md (the
// text block after its "min-replicas example" marker: the command, a
// "…" line, then the fleet section) in testdata/docs and checks that the
// command prints the section exactly; and, in its JSON, that the floor of
// one replica costs the closed form: four autoscaled pools that never
// need a second replica at this traffic, each one replica at $0.70 an
// hour for 24 h × 30 d, $2 016 a month, with no token cost (no copy).
func TestOptimizeMinReplicasDocExample(t *testing.T) {
	if testing.Short() {
		t.Skip("three sweeps of scale-to-zero with their rollout checks")
	}
	words, want := docExample(t, "docs/pools.md", "min-replicas example")
	want = strings.TrimPrefix(want, "…\n")
	// One run prints the text and writes the same report as JSON
	// (report.json is what --json prints): the three sweeps run once.
	dir := filepath.Join(t.TempDir(), "report")
	code, got, errOut := hedgesim(t, append(words, "--out", dir, "--no-plots")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want == "" || !strings.Contains(got, want) {
		t.Errorf("docs/pools.md's min-replicas example is not what the command prints; it prints:\n%s", got)
	}
	js, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Fleet struct {
			Cheapest int `json:"cheapest"`
			Settings []struct {
				Min      int     `json:"min_replicas"`
				Replicas float64 `json:"replica_usd_per_month"`
				Tokens   float64 `json:"token_usd_per_month"`
				Total    float64 `json:"usd_per_month"`
			} `json:"settings"`
		} `json:"fleet"`
	}
	if err := json.Unmarshal(js, &rep); err != nil {
		t.Fatal(err)
	}
	f := rep.Fleet
	if len(f.Settings) != 2 || f.Settings[1].Min != 1 {
		t.Fatalf("fleet %+v: want floors 0 and 1", f)
	}
	if one := f.Settings[1]; math.Abs(one.Replicas-4*0.70*24*30) > 1e-6 || one.Tokens != 0 || one.Total != one.Replicas {
		t.Errorf("min 1: replicas $%v, tokens $%v, total $%v a month; want $2016, $0, $2016", one.Replicas, one.Tokens, one.Total)
	}
	if zero := f.Settings[0]; f.Cheapest != 0 || !(zero.Total < f.Settings[1].Total) || !(zero.Tokens > 0) {
		t.Errorf("fleet %+v: want min 0 cheapest, with token cost", f)
	}
}

// TestOptimizeMinReplicasBadInput: --min-replicas on a scenario without an
// autoscaled pool, with a value that is not an integer, negative or above
// a pool's max_replicas, without the rollout check, or with --shard is a
// usage error (exit 2) naming the flag.
func TestOptimizeMinReplicasBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--min-replicas", "1", "replica-pool"}, "--min-replicas: the scenario has no autoscaled pool"},
		{[]string{"--min-replicas", "1", "guard-check"}, "--min-replicas: the scenario has no autoscaled pool"},
		{[]string{"--min-replicas", "0,x", "scale-to-zero"}, `--min-replicas: "x" is not an integer`},
		{[]string{"--min-replicas", "-1", "scale-to-zero"}, "--min-replicas: -1 is negative"},
		{[]string{"--min-replicas", "0,3", "scale-to-zero"}, "--min-replicas: 3 is above pool hedged's max_replicas 2"},
		{[]string{"--min-replicas", "1", "--check-requests", "0", "scale-to-zero"}, "--min-replicas needs the rollout check"},
		{[]string{"--min-replicas", "1", "--shard", "0/2", "--out", filepath.Join(t.TempDir(), "part.json"), "scale-to-zero"}, "--min-replicas cannot go with --shard"},
	} {
		code, _, errOut := hedgesim(t, append([]string{"optimize"}, tt.args...)...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("optimize %v: exit %d, %s; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
}
