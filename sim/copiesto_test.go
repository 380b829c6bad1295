package sim_test

import (
	"strings"
	"testing"

	"github.com/hedgesim/hedgesim/sim"
)

// TestCopiesToOneReplicaWarns: a class that hedges, or retries its calls,
// into a pool of one replica under copies_to = "other_replica" earns a
// configuration warning at the pool's copies_to — its copies find no
// other replica — and so does a pipeline step; a pool of two replicas,
// copies_to = "any_replica", an autoscaled pool and a class that sends no
// second attempt there earn none.
func TestCopiesToOneReplicaWarns(t *testing.T) {
	const text = `provider p's pool has 1 replica, so copies_to = "other_replica" (the default) finds no other replica`
	warned := func(cfg *sim.Config) []sim.ConfigWarning {
		var out []sim.ConfigWarning
		for _, w := range sim.ConfigWarnings(cfg) {
			if w.Field == "copies_to" {
				out = append(out, w)
			}
		}
		return out
	}
	hedged := hedgedPool(1, sim.PowerOfTwo, false)
	retried := hedgedPool(1, sim.PowerOfTwo, false)
	retried.Classes[0].Policy = sim.Policy{}
	retried.Classes[0].AttemptRetry = &sim.Retry{MaxAttempts: 2, Multiplier: 2, On: sim.DefaultRetryOn}
	for name, cfg := range map[string]*sim.Config{"copies": hedged, "attempt retries": retried} {
		ws := warned(cfg)
		if len(ws) != 1 || ws[0].Provider != 1 || ws[0].Step != -1 || !strings.HasPrefix(ws[0].Text, text) {
			t.Errorf("%s into one replica: warnings %+v; want one at provider 1's copies_to starting %q", name, ws, text)
		}
		cfg.Requests = 500
		rep := sim.NewReport(cfg, mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg)))
		if !strings.Contains(strings.Join(rep.Classes[0].Warnings, "\n"), text) {
			t.Errorf("%s: the report's class warnings %q lack it", name, rep.Classes[0].Warnings)
		}
	}
	step := hedgedPool(1, sim.PowerOfTwo, false)
	call := step.Classes[0]
	call.Name = "chat"
	step.Classes[0].Pipeline = &sim.Pipeline{Steps: []sim.Step{{Name: "chat", Call: call, FanOut: 1}}}
	if ws := warned(step); len(ws) != 1 || ws[0].Step != 0 || !strings.HasPrefix(ws[0].Text, "step chat: "+text) {
		t.Errorf("a step hedging into one replica: warnings %+v; want one for step 0", ws)
	}
	two := hedgedPool(2, sim.PowerOfTwo, false)
	anyRep := hedgedPool(1, sim.PowerOfTwo, true)
	plain := hedgedPool(1, sim.PowerOfTwo, false)
	plain.Classes[0].Policy = sim.Policy{}
	for name, cfg := range map[string]*sim.Config{"two replicas": two, "any_replica": anyRep, "no second attempt": plain} {
		if ws := warned(cfg); len(ws) != 0 {
			t.Errorf("%s: warnings %+v; want none", name, ws)
		}
	}
}
