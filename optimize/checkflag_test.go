package optimize_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// TestCheckFlagsOnRowInterval: the rollout check flags a class's p95 when,
// and only when, the interval its row shows (latency_s.p95_ci95 at the
// level: batched after the warm-up cut when requests interact) and the
// sweep's are disjoint. Before, it compared an order-statistic interval
// over all the check's requests, the warm-up included, which in
// eval-black-hole (closed-loop clients and a provider that turns into a
// black hole) lies above the row's own p95: "the check's p95 1.23s [1.28s,
// 1.33s] lies outside the sweep's 1.16s [1.11s, 1.20s]" for class fixed,
// whose row interval [1.16 s, 1.30 s] overlaps the sweep's.
func TestCheckFlagsOnRowInterval(t *testing.T) {
	if testing.Short() {
		t.Skip("a 40000-request check of eval-black-hole")
	}
	sc, err := scenario.LoadFS(scenarios.FS, "eval-black-hole.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests, s.CheckRequests = 20000, 40000
	s.Only = []string{"fixed"}
	s.Search.Delays = []time.Duration{800 * time.Millisecond}
	rep := mustRun(t, &sc.Config, s, optimize.Options{Workers: 2})
	for _, row := range rep.Rollout.Classes {
		c, p := row.Checked, row.Predicted
		disjoint := c.P95CIOK && p.P95CIOK && (c.P95CI95[1] < p.P95CI95[0] || c.P95CI95[0] > p.P95CI95[1])
		if flagged := strings.Contains(row.Flag, "the check's p95"); flagged != disjoint {
			t.Errorf("class %s: check's p95 %.4g %v, sweep's %.4g %v: flag %q; want a p95 flag %v",
				row.Class, c.P95, c.P95CI95, p.P95, p.P95CI95, row.Flag, disjoint)
		}
	}
}
