package sim_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// TestExtendPoliciesMatchesRunPolicies: on two shipped scenarios on the
// lane, runs of 3000 requests of the first class under no hedging
// (recording its met bits) and under three hedge delays (compared with
// those bits) extended to 6000 and then 24 000 (GrowPolicies,
// ExtendPolicies) give at each step RunPolicies' results of that many
// requests: each run's report, JSON and text, byte for byte, its met bits
// and its rescued and harmed counts.
func TestExtendPoliciesMatchesRunPolicies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, name := range []string{"long-prompts.toml", "two-model-gateway.toml"} {
		s, err := scenario.LoadFS(scenarios.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		cfg := s.Config
		cfg.Requests = 3000
		none := cfg.Classes[0].Policy
		sim.NoHedging(&none)
		var hedged []sim.Policy
		for _, d := range []time.Duration{0, 200 * time.Millisecond, time.Second} {
			p := cfg.Classes[0].Policy
			p.Copies = max(p.Copies, 1)
			p.Delays = []time.Duration{d}
			hedged = append(hedged, p)
		}
		bc := cfg
		bc.Pair = &sim.Pair{Record: true}
		bres, bruns, err := sim.GrowPolicies(ctx, &bc, 0, []sim.Policy{none})
		if err != nil {
			t.Fatal(err)
		}
		hc := cfg
		hc.Pair = &sim.Pair{Base: bres[0].Met}
		hres, hruns, err := sim.GrowPolicies(ctx, &hc, 0, hedged)
		if err != nil {
			t.Fatal(err)
		}
		for step, n := range []int{3000, 6000, 24_000} {
			if step > 0 {
				bc.Requests = n
				if bres, err = sim.ExtendPolicies(ctx, &bc, 0, bruns); err != nil {
					t.Fatal(err)
				}
				hc.Requests = n
				hc.Pair = &sim.Pair{Base: bres[0].Met}
				if hres, err = sim.ExtendPolicies(ctx, &hc, 0, hruns); err != nil {
					t.Fatal(err)
				}
			}
			want, err := sim.RunPolicies(ctx, &bc, 0, []sim.Policy{none})
			if err != nil {
				t.Fatal(err)
			}
			if got, w := bres[0].Met.String(), want[0].Met.String(); got != w {
				t.Errorf("%s at %d: extended no hedging's met bits differ from the run's", name, n)
			}
			hc.Pair = &sim.Pair{Base: want[0].Met}
			wantH, err := sim.RunPolicies(ctx, &hc, 0, hedged)
			if err != nil {
				t.Fatal(err)
			}
			for i := range hedged {
				c := hc
				c.Classes = append([]sim.Class(nil), hc.Classes...)
				c.Classes[0].Policy = hedged[i]
				got, w := reportBytes(t, &c, hres[i], bres[0]), reportBytes(t, &c, wantH[i], want[0])
				if !bytes.Equal(got, w) {
					t.Errorf("%s at %d, delay %v: the extended run's report differs from RunPolicies':\n%s\nwant\n%s", name, n, hedged[i].Delays, got, w)
				}
				if g, w := *hres[i].Classes[0].Paired, *wantH[i].Classes[0].Paired; g != w || !g.Compared {
					t.Errorf("%s at %d, delay %v: paired %+v, want %+v compared", name, n, hedged[i].Delays, g, w)
				}
			}
			if hruns[0].Requests() != n || !hruns[0].Extends(2*n) || hruns[0].Extends(n+1) {
				t.Errorf("%s: runs of %d requests, extend to %d and not %d: got %d, %v, %v", name, n, 2*n, n+1, hruns[0].Requests(), hruns[0].Extends(2*n), hruns[0].Extends(n+1))
			}
		}
	}
}
