package sim_test

import (
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/sim"
)

// TestPoolTextCounts: the pool line of the text report counts its
// replicas and cold starts in the singular for one ("1 replica", not
// "1 replicas") and in the plural otherwise.
func TestPoolTextCounts(t *testing.T) {
	for _, c := range []struct {
		replicas int
		want     string
	}{{1, "pool p: 1 replica, balancer p2c, "}, {4, "pool p: 4 replicas, balancer p2c, "}} {
		cfg := hedgedPool(c.replicas, sim.PowerOfTwo, true)
		cfg.Requests = 2000
		var text strings.Builder
		if err := sim.NewReport(cfg, mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg))).WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), c.want) || !strings.Contains(text.String(), ", 0 cold starts") {
			t.Errorf("%d replicas: text report lacks %q or \", 0 cold starts\":\n%s", c.replicas, c.want, text.String())
		}
	}
}
