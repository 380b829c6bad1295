package sim_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/sim"
)

// TestReplicaSpendNote: the run's text says that its costs count tokens
// only and what the priced replicas cost beside them — a pool held at one
// replica (min = max = 1) at $1 a replica-hour costs $720 a month of 30
// days, whatever the run's length — and says nothing without a price.
func TestReplicaSpendNote(t *testing.T) {
	cfg := scaledPool(2000, 0.5, 1, 1, 1)
	a := cfg.Providers[0].Pool.Autoscale
	a.Min, a.Initial, a.PricePerReplicaHour = 1, 1, 1
	text := func(cfg *sim.Config) string {
		res, err := sim.Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := sim.NewReport(cfg, res, res).WriteText(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	got := text(cfg)
	if !strings.Contains(got, "the costs and spend above count tokens only; the pools' replicas cost") ||
		!strings.Contains(got, "$720 a month (p $720)") {
		t.Errorf("no note of the replicas' $720 a month:\n%s", got)
	}
	a.PricePerReplicaHour = 0
	if got := text(cfg); strings.Contains(got, "count tokens only") {
		t.Errorf("a note without a price:\n%s", got)
	}
}
