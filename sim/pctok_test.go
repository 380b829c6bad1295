package sim_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/sim"
)

// TestPercentileOKFlags: a batched row flags each of its p50, p90 and
// p99.9 intervals as p95's and p99's are flagged (p50_ci95_ok, …): true
// when each of the 30 batches holds 10/(1 − p) requests — 20 for p50, 100
// for p90, 10 000 for p99.9 — false otherwise. An M/M/1 queue at ρ = 0.5
// of 2·10⁴ requests (batches of about 660) has honest p50 and p90
// intervals, not a p99.9 one; at 3.3·10⁵ (batches over 10 000 after any
// cut) it has all three. The flags read back from JSON; independent
// requests, whose rows have no such intervals, have no flags.
func TestPercentileOKFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n        int
		p999     bool
		p999Text string
	}{{20_000, false, `"p99_9_ci95_ok":false`}, {330_000, true, `"p99_9_ci95_ok":true`}} {
		cfg := mm1Deadline(tc.n, 1, 0.5, 0)
		h := mustRun(t, cfg)
		rep := sim.NewReport(cfg, h, h)
		l := rep.Classes[0].Latency
		if l.CIs == nil || !l.CIs.P50OK || !l.CIs.P90OK || l.CIs.P999OK != tc.p999 {
			t.Fatalf("%d requests: flags %+v; want p50 and p90 true, p99.9 %v", tc.n, l.CIs, tc.p999)
		}
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`"p50_ci95_ok":true`, `"p90_ci95_ok":true`, tc.p999Text} {
			if !strings.Contains(string(b), want) {
				t.Errorf("%d requests: JSON lacks %s", tc.n, want)
			}
		}
		var back sim.Report
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if c := back.Classes[0].Latency.CIs; c == nil || !c.P50OK || !c.P90OK || c.P999OK != tc.p999 {
			t.Errorf("%d requests: flags read back %+v", tc.n, c)
		}
	}
	free := mm1Deadline(2000, 1, 0.5, 0)
	free.Providers[0].Concurrency = 0
	h := mustRun(t, free)
	b, err := json.Marshal(sim.NewReport(free, h, h))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "p50_ci95_ok") {
		t.Error("independent requests: the report flags a p50 interval it does not give")
	}
}
