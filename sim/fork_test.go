package sim_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// growCase is a configuration whose requests interact, grown from n0.
type growCase struct {
	name string
	cfg  sim.Config
}

// shippedInteracting returns every shipped scenario whose requests
// interact and whose trace, if any, has at least most arrivals.
func shippedInteracting(t *testing.T, most int) []growCase {
	t.Helper()
	var cases []growCase
	for _, name := range scenarios.Names() {
		s, err := scenario.LoadFS(scenarios.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		if sim.Independent(&s.Config) {
			continue
		}
		if tr := s.Config.Arrivals.Trace; tr != nil && len(tr.Arrivals) < most {
			continue
		}
		cases = append(cases, growCase{name, s.Config})
	}
	return cases
}

// checkGrowth grows cfg from n0 requests to 2·n0 and 4·n0
// (GrowWithBaselineTo, Extend) and checks that at each count the report —
// JSON and text, byte for byte — is RunWithBaseline's on that many
// requests, and that each request was simulated once; it returns whether
// the run grew (false: it was simulated again, which is checked too).
func checkGrowth(t *testing.T, name string, cfg sim.Config, n0 int) bool {
	t.Helper()
	ctx := context.Background()
	c := cfg
	c.Requests = n0
	h, b, g, err := sim.GrowWithBaselineTo(ctx, &c, 1, 4*n0)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, n := range []int{n0, 2 * n0, 4 * n0} {
		if n > c.Requests {
			if g == nil {
				c.Requests = n
				if h, b, err = sim.RunWithBaseline(ctx, &c, 1); err != nil {
					t.Fatal(err)
				}
			} else if h, b, err = g.Extend(ctx, n, 1); err != nil {
				t.Fatalf("%s: extending to %d: %v", name, n, err)
			}
		}
		c.Requests = n
		h0, b0, err := sim.RunWithBaseline(ctx, &c, 2)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := reportBytes(t, &c, h, b), reportBytes(t, &c, h0, b0); !bytes.Equal(got, want) {
			t.Fatalf("%s, %d requests: the grown run's report differs from the run's:\n%s\nwant\n%s", name, n, diffLines(got, want), "")
		}
		if g != nil && (g.Requests() != n || g.Simulated() != int64(n)) {
			t.Errorf("%s: %d requests, %d simulated; want %d and %d", name, g.Requests(), g.Simulated(), n, n)
		}
	}
	return g != nil
}

// diffLines returns the first lines where a and b differ.
func diffLines(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	var out []byte
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y []byte
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if !bytes.Equal(x, y) {
			out = append(out, "got:  "...)
			out = append(out, x...)
			out = append(out, "\nwant: "...)
			out = append(out, y...)
			out = append(out, '\n')
			if len(out) > 4000 {
				break
			}
		}
	}
	return string(out)
}

// TestGrowthForksMatchFreshRuns: every shipped scenario whose requests
// interact, grown from n0 requests to 2·n0 and 4·n0 by forking, reports
// at each count what a fresh run of that many requests reports, byte for
// byte, hedged and no hedging; each request is simulated once.
func TestGrowthForksMatchFreshRuns(t *testing.T) {
	n0 := 1500
	if testing.Short() {
		n0 = 400
	}
	for _, tc := range shippedInteracting(t, 4*n0) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if !checkGrowth(t, tc.name, tc.cfg, n0) {
				t.Logf("%s: simulated again from the start", tc.name)
			}
		})
	}
}
