package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// uprobePool is a latency_ewma pool that sets the keys only latency_ewma
// reads (unmeasured, warmup, decay); uprobePlain is the same pool as p2c
// without them.
const uprobePool = `name = "uprobe"
seed = 1
requests = 3000
[arrivals]
rate = 4.0
[providers.gpu.pool]
replicas = 3
concurrency = 2
balancer = "latency_ewma"
unmeasured = "probe"
warmup = 3
decay = 0.8
[models.m]
provider = "gpu"
latency = { kind = "lognormal", median = 0.3, p95 = 0.9 }
[[classes]]
name = "api"
deadline = "30s"
[classes.hedge]
delay = "1s"
`

// TestSetBalancerIgnoresEWMASettings: --set providers.NAME.pool.balancer
// switches a latency_ewma pool that sets decay, unmeasured or warmup to
// another balancer as optimize --balancers does, those keys ignored with
// a warning naming them, rather than refused: the sharding workaround the
// docs and the --balancers … --shard error give works on replica-pool
// (whose ewma-pool sets decay), and a run so switched is the run of the
// pool written as p2c without them.
func TestSetBalancerIgnoresEWMASettings(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := hedgesim(t, "optimize", "--quiet", "--requests", "2000", "--check-requests", "0", "--shard", "0/2",
		"--out", filepath.Join(dir, "part0.json"), "--set", "providers.ewma-pool.pool.balancer=p2c", "replica-pool")
	if code != 0 || !strings.Contains(errOut, "providers.ewma-pool.pool.decay: ignored: only the latency_ewma balancer averages latencies") {
		t.Errorf("optimize --shard --set balancer: exit %d: %s", code, errOut)
	}

	ewma := filepath.Join(dir, "uprobe.toml")
	plain := filepath.Join(dir, "plain.toml")
	p2c := strings.NewReplacer(`"latency_ewma"`, `"p2c"`, "unmeasured = \"probe\"\n", "", "warmup = 3\n", "", "decay = 0.8\n", "").Replace(uprobePool)
	if err := os.WriteFile(ewma, []byte(uprobePool), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plain, []byte(p2c), 0o644); err != nil {
		t.Fatal(err)
	}
	classes := func(args ...string) any {
		t.Helper()
		code, out, errOut := hedgesim(t, append([]string{"run", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("run %v: exit %d: %s", args, code, errOut)
		}
		var r struct{ Classes any }
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(errOut, "ignored") != (len(args) > 1) {
			t.Errorf("run %v: warnings %q", args, errOut)
		}
		for _, key := range []string{"unmeasured", "decay", "warmup"} {
			if len(args) > 1 && !strings.Contains(errOut, "providers.gpu.pool."+key+": ignored") {
				t.Errorf("run %v: no warning that %s is ignored: %s", args, key, errOut)
			}
		}
		return r.Classes
	}
	if a, b := classes("--set", "providers.gpu.pool.balancer=p2c", ewma), classes(plain); !reflect.DeepEqual(a, b) {
		t.Errorf("the latency_ewma pool switched to p2c by --set differs from the pool written as p2c:\n%v\n%v", a, b)
	}
}

// TestSetBalancerRefusesEWMAKeySetToo: a key only latency_ewma reads that
// the same command sets with --set beside --set …balancer=p2c was
// ignored with a warning ("the --set makes this pool's balancer p2c")
// though the user asked for it outright; it is refused, exit 2, naming
// the key, as on a pool written as p2c.
func TestSetBalancerRefusesEWMAKeySetToo(t *testing.T) {
	ewma := filepath.Join(t.TempDir(), "uprobe.toml")
	if err := os.WriteFile(ewma, []byte(uprobePool), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, set := range []string{"decay=0.5", "warmup=2", `unmeasured=pool_mean`} {
		key := "providers.gpu.pool." + strings.SplitN(set, "=", 2)[0]
		code, _, errOut := hedgesim(t, "run", "--requests", "200", "--set", "providers.gpu.pool.balancer=p2c", "--set", "providers.gpu.pool."+set, ewma)
		if code != exitUsage || !strings.Contains(errOut, key+": only the latency_ewma balancer") || strings.Contains(errOut, key+": ignored") {
			t.Errorf("--set %s beside balancer=p2c: exit %d: %s; want 2, %s refused", set, code, errOut, key)
		}
	}
}
