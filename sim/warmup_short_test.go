package sim_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// TestWarmUpOfShortRuns: with fewer requests than arrival sections many
// sections are empty; the warm-up cut's seconds are still the last arrival
// of the requests it cuts (it read 0s when the cut's last section was
// empty), and batches of fewer than one request say so instead of
// "batches of 0 requests".
func TestWarmUpOfShortRuns(t *testing.T) {
	s, err := scenario.LoadFS(scenarios.FS, "loaded-provider.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{29, 100, 999} {
		cfg := s.Config
		cfg.Requests = n
		h := mustRun(t, &cfg)
		rep := sim.NewReport(&cfg, h, mustRun(t, sim.WithoutHedging(&cfg)))
		for _, c := range rep.Classes {
			if w := c.WarmUp; w != nil && w.Requests > 0 && !(w.Seconds > 0) {
				t.Errorf("%d requests, class %s: a cut of %d requests ending at %gs", n, c.Class, w.Requests, w.Seconds)
			}
		}
		var b bytes.Buffer
		if err := rep.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "batches of 0 requests") {
			t.Errorf("%d requests: the text says batches of 0 requests:\n%s", n, b.String())
		}
	}
}
