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

// reportBytes returns the JSON and text reports of cfg's results.
func reportBytes(t *testing.T, cfg *sim.Config, hedged, base *sim.Result) []byte {
	t.Helper()
	rep := sim.NewReport(cfg, hedged, base)
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestGrowthMatchesRunWithBaseline: on every shipped scenario whose
// requests are independent — on the lane or off it (slow periods,
// failures by kind, stalls) — and on two-model-gateway with a per-attempt
// timeout (off the lane), a run of 3000 requests extended to 6000, then
// 12 000, then 12 007 (GrowWithBaseline, Extend) gives at each step the
// report — JSON and text, byte for byte — of RunWithBaseline on that many
// requests, whatever the workers of either; Simulated counts each request
// once. A scenario whose requests interact has no Growth and gives
// RunWithBaseline's results.
func TestGrowthMatchesRunWithBaseline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	type named struct {
		name string
		cfg  sim.Config
	}
	var cases []named
	for _, name := range scenarios.Names() {
		s, err := scenario.LoadFS(scenarios.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, named{name, s.Config})
		if name == "two-model-gateway.toml" {
			c := s.Config
			c.Classes = append([]sim.Class(nil), c.Classes...)
			for i := range c.Classes {
				c.Classes[i].Policy.AttemptTimeout = 3 * time.Second
			}
			cases = append(cases, named{name + " with attempt timeouts", c})
		}
	}
	lanes, off := 0, 0
	for _, tc := range cases {
		name, cfg := tc.name, tc.cfg
		if tr := cfg.Arrivals.Trace; tr != nil && len(tr.Arrivals) < 12_007 {
			continue
		}
		cfg.Requests = 3000
		if !sim.Independent(&cfg) {
			if testing.Short() {
				continue
			}
			h, b, g, err := sim.GrowWithBaseline(ctx, &cfg, 2)
			if err != nil || g != nil {
				t.Fatalf("%s: growth %v, %v; want none for requests that interact", name, g, err)
			}
			h0, b0, err := sim.RunWithBaseline(ctx, &cfg, 1)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(reportBytes(t, &cfg, h, b), reportBytes(t, &cfg, h0, b0)) {
				t.Errorf("%s: GrowWithBaseline's report differs from RunWithBaseline's", name)
			}
			continue
		}
		if sim.Lane(&cfg) {
			lanes++
			t.Logf("%s takes the lane", name)
		} else {
			off++
			t.Logf("%s: independent requests off the lane", name)
		}
		for _, w := range [][2]int{{1, 1}, {3, 2}} {
			c := cfg
			h, b, g, err := sim.GrowWithBaseline(ctx, &c, w[0])
			if err != nil || g == nil {
				t.Fatalf("%s: growth %v, %v", name, g, err)
			}
			for _, n := range []int{3000, 6000, 12_000, 12_007} {
				if n > c.Requests {
					if h, b, err = g.Extend(ctx, n, w[0]); err != nil {
						t.Fatalf("%s: extending to %d: %v", name, n, err)
					}
				}
				c.Requests = n
				h0, b0, err := sim.RunWithBaseline(ctx, &c, w[1])
				if err != nil {
					t.Fatal(err)
				}
				if got, want := reportBytes(t, &c, h, b), reportBytes(t, &c, h0, b0); !bytes.Equal(got, want) {
					t.Fatalf("%s, workers %v, %d requests: the extended run's report differs from the run's:\n%s\nwant\n%s", name, w, n, got, want)
				}
				// Doublings extend: n simulated in all. 12 007 is not
				// 12 000·2ʲ, so its added cost's sections do not nest in
				// the kept ones and it is simulated again from the start.
				want := int64(n)
				if n == 12_007 {
					want = 12_000 + 12_007
				}
				if g.Requests() != n || g.Simulated() != want {
					t.Errorf("%s: %d requests, %d simulated; want %d and %d", name, g.Requests(), g.Simulated(), n, want)
				}
			}
			if _, _, err := g.Extend(ctx, 12_007, 1); err == nil {
				t.Errorf("%s: extending to as many requests: no error", name)
			}
		}
	}
	if lanes < 3 || off < 3 {
		t.Errorf("%d cases take the lane and %d are independent off it; want at least 3 of each to test", lanes, off)
	}
}

// BenchmarkPrecisionDoubling runs two-model-gateway beside its baseline at
// 25 000 requests and doubles it to 200 000, reporting at each length
// (sim.NewReport), as run --precision does when the precision is not met:
// "extend" keeps the requests run (GrowWithBaseline, Extend) and simulates
// 200 000 in all; "again" simulates each length from the start
// (RunWithBaseline), 375 000 in all.
func BenchmarkPrecisionDoubling(b *testing.B) {
	s, err := scenario.LoadFS(scenarios.FS, "two-model-gateway.toml")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	lengths := []int{25_000, 50_000, 100_000, 200_000}
	b.Run("extend", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			cfg := s.Config
			cfg.Requests = lengths[0]
			h, base, g, err := sim.GrowWithBaseline(ctx, &cfg, 1)
			if err != nil {
				b.Fatal(err)
			}
			sim.NewReport(&cfg, h, base)
			for _, n := range lengths[1:] {
				if h, base, err = g.Extend(ctx, n, 1); err != nil {
					b.Fatal(err)
				}
				cfg.Requests = n
				sim.NewReport(&cfg, h, base)
			}
		}
	})
	b.Run("again", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			cfg := s.Config
			for _, n := range lengths {
				cfg.Requests = n
				h, base, err := sim.RunWithBaseline(ctx, &cfg, 1)
				if err != nil {
					b.Fatal(err)
				}
				sim.NewReport(&cfg, h, base)
			}
		}
	})
}
