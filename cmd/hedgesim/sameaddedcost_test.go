package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoHedgeClassAddsExactlyNoCost: a class that does not hedge, beside
// one that does on a shared pool, bills the same attempts with and without
// hedging, but they finish in another order, and the sums of its bills
// differed in their last bits: the field report's replayed trace printed
// "added per month -$4.55e-13" and added_cost_pct -1.4e-14; here (seed 9)
// the batches' paired added cost had the interval ±3.4e-15 %. Its added
// cost, interval and added spend are now exactly 0, while the hedging
// class's stay positive.
func TestNoHedgeClassAddsExactlyNoCost(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plain.toml")
	if err := os.WriteFile(path, []byte(`name = "plain"
seed = 9
requests = 20000
[arrivals]
rate = 6
[providers.gpu.pool]
replicas = 3
concurrency = 2
balancer = "least_outstanding"
[models.llama]
provider = "gpu"
latency = { kind = "lognormal", median = 0.5, p95 = 1.5 }
price_input_per_mtok = 0.2
price_output_per_mtok = 0.6
[[classes]]
name = "hedged"
share = 0.5
input_tokens = { kind = "lognormal", median = 2000, p95 = 4000 }
output_tokens = { kind = "lognormal", median = 60, p95 = 140 }
deadline = "60s"
[classes.hedge]
delay = "1s"
[[classes]]
name = "plain"
share = 0.5
input_tokens = { kind = "lognormal", median = 2000, p95 = 4000 }
output_tokens = { kind = "lognormal", median = 400, p95 = 900 }
deadline = "600s"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := hedgesim(t, "run", "--json", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r struct {
		Classes []struct {
			Class   string      `json:"class"`
			Added   float64     `json:"added_cost_pct"`
			AddedCI [2]*float64 `json:"added_cost_pct_ci95"`
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	h, p := r.Classes[0], r.Classes[1]
	if !(h.Added > 0) {
		t.Errorf("the hedging class adds %g%%; want > 0", h.Added)
	}
	if p.Added != 0 || p.AddedCI[0] == nil || *p.AddedCI[0] != 0 || *p.AddedCI[1] != 0 {
		t.Errorf("the class that does not hedge adds %g%%, interval [%v, %v]; want exactly 0, [0, 0]", p.Added, deref(p.AddedCI[0]), deref(p.AddedCI[1]))
	}
	code, text, errOut := hedgesim(t, "run", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	found := false
	for _, l := range strings.Split(text, "\n") {
		// The spend row: class, req/s, then dollars; added per month last.
		if f := strings.Fields(l); len(f) == 7 && f[0] == "plain" && !strings.HasPrefix(f[1], "$") && strings.HasPrefix(f[2], "$") {
			found = true
			if f[6] != "$0" {
				t.Errorf("the class that does not hedge adds %s a month; want $0: %q", f[6], l)
			}
		}
	}
	if !found {
		t.Errorf("no spend row of class plain:\n%s", text)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
