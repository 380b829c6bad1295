package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// viewedPool is a pool whose p2c balancer reads load through a view
// refreshed every 5 s.
const viewedPool = `seed = 11
requests = 300
[arrivals]
rate = 10.0
[providers.vllm.pool]
replicas = 4
concurrency = 4
balancer = "p2c"
view_refresh = "5s"
[models.llama]
provider = "vllm"
latency = { kind = "lognormal", median = 0.5, p95 = 1.2 }
price_per_request = 0.0002
[[classes]]
name = "batch"
deadline = "10s"
[classes.hedge]
primary = "llama"
delay = "1s"
`

// TestOptimizeBalancersWarnOfView: optimize --balancers random,
// round_robin on a pool with view_refresh warns, in the text and the
// JSON, as run does for such a balancer in the file or set with --set:
// the view changes nothing under a balancer that reads no load. p2c, the
// configured balancer, reads load and earns no warning. Before, optimize
// said nothing.
func TestOptimizeBalancersWarnOfView(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "pool.toml")
	if err := os.WriteFile(sc, []byte(viewedPool), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"optimize", "--quiet", "--requests", "300", "--check-requests", "0", "--balancers", "random,round_robin,p2c", sc}
	code, stdout, stderr := hedgesim(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	text := strings.Join(strings.Fields(stdout), " ")
	for _, b := range []string{"random", "round_robin"} {
		want := "warning: batch: balancer " + b + " (--balancers): provider vllm's pool uses the " + b + " balancer, which does not read replica load, so its view (view_refresh) changes nothing"
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(text, "balancer p2c (--balancers)") {
		t.Errorf("text warns of p2c, which reads load:\n%s", stdout)
	}
	code, out, stderr := hedgesim(t, append(args[:len(args)-1], "--json", sc)...)
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, stderr)
	}
	var rep struct {
		Classes []struct {
			Warnings []string `json:"warnings"`
		} `json:"classes"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range rep.Classes[0].Warnings {
		if strings.Contains(w, "view_refresh") {
			got = append(got, w)
		}
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "balancer random (--balancers): provider vllm's pool uses the random balancer") ||
		!strings.HasPrefix(got[1], "balancer round_robin (--balancers): provider vllm's pool uses the round_robin balancer") {
		t.Errorf("JSON warnings of the view: %q; want one for random, one for round_robin", got)
	}
}
