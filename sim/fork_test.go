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
	t.Parallel()
	n0 := 1500
	if testing.Short() {
		n0 = 400
	}
	// The pipelines of independent calls take the lane, which does not
	// hold: they are simulated again from the start.
	lane := map[string]bool{"agent-loop.toml": true, "help-chat-turn.toml": true, "fan-out.toml": true}
	for _, tc := range shippedInteracting(t, 4*n0) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if grew := checkGrowth(t, tc.name, tc.cfg, n0); grew == lane[tc.name] {
				t.Errorf("%s: grown %v; want %v", tc.name, grew, !lane[tc.name])
			}
		})
	}
}

// TestGrowthWithMetBitsSimulatesAgain: a run that records met bits
// (Config.Pair), sized for its planned requests, does not grow: it is
// simulated again from the start, with the right report.
func TestGrowthWithMetBitsSimulatesAgain(t *testing.T) {
	s, err := scenario.LoadFS(scenarios.FS, "loaded-provider.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.Config
	cfg.Pair = &sim.Pair{Record: true}
	if checkGrowth(t, "loaded-provider.toml recording met bits", cfg, 500) {
		t.Error("a run recording met bits grew; want it simulated again")
	}
}

// growConfigs are in-test configurations whose requests interact: an
// M/M/1 queue near saturation, a replica pool with a scheduled restart,
// closed-loop clients behind a rate limit and a concurrency limit, others
// that send at once (no think time: the send that starts a doubling's
// last request is among the events due now, engine.soon), and a pipeline
// whose calls queue.
var growConfigs = map[string]string{
	"mm1": `
name = "mm1"
seed = 7
requests = 1000
[arrivals]
rate = 0.95
[providers.server]
concurrency = 1
[models.m]
provider = "server"
latency = { kind = "exponential", rate = 1.0 }
price_per_request = 0.001
[[classes]]
name = "q"
input_tokens = { kind = "constant", value = 10 }
output_tokens = { kind = "constant", value = 10 }
[classes.hedge]
primary = "m"
delay = "3s"
max_copies = 1
`,
	"pool-restart": `
name = "pool-restart"
seed = 3
requests = 1000
[arrivals]
rate = 20.0
[providers.fleet.pool]
replicas = 4
concurrency = 2
balancer = "least_outstanding"
[[providers.fleet.pool.restart]]
replica = 1
at = "5s"
for = "10s"
[models.m]
provider = "fleet"
latency = { kind = "lognormal", median = 0.2, p95 = 0.8 }
price_per_request = 0.001
[[classes]]
name = "q"
deadline = "10s"
input_tokens = { kind = "constant", value = 10 }
output_tokens = { kind = "constant", value = 10 }
[classes.hedge]
primary = "m"
delay = "400ms"
max_copies = 1
`,
	"closed-loop": `
name = "closed-loop"
seed = 5
requests = 1000
[providers.api]
concurrency = 4
[models.m]
provider = "api"
latency = { kind = "lognormal", median = 0.3, p95 = 1.2 }
price_per_request = 0.001
rate_limit = { requests_per_minute = 300 }
[[classes]]
name = "worker"
clients = 12
think_time = { kind = "exponential", rate = 10.0 }
input_tokens = { kind = "constant", value = 10 }
output_tokens = { kind = "constant", value = 10 }
[classes.hedge]
primary = "m"
delay = "500ms"
max_copies = 1
`,
	"closed-loop-no-think": `
name = "closed-loop-no-think"
seed = 6
requests = 1000
[providers.api]
concurrency = 3
[models.m]
provider = "api"
latency = { kind = "lognormal", median = 0.3, p95 = 1.2 }
price_per_request = 0.001
[[classes]]
name = "worker"
clients = 8
input_tokens = { kind = "constant", value = 10 }
output_tokens = { kind = "constant", value = 10 }
[classes.hedge]
primary = "m"
delay = "500ms"
max_copies = 1
`,
	"pipeline-queue": `
name = "pipeline-queue"
seed = 9
requests = 1000
[arrivals]
rate = 6.0
[providers.search]
concurrency = 6
[providers.llm]
[models.shard]
provider = "search"
latency = { kind = "exponential", rate = 20.0 }
price_per_request = 0.00001
[models.chat]
provider = "llm"
latency = { kind = "lognormal", median = 0.5, p95 = 1.5 }
price_per_request = 0.001
[[classes]]
name = "question"
deadline = "10s"
[[classes.steps]]
name = "shards"
fan_out = 4
wait_for = "all"
input_tokens = { kind = "constant", value = 0 }
output_tokens = { kind = "constant", value = 50 }
deadline = "100ms"
on_timeout = "fail_open"
[classes.steps.hedge]
primary = "shard"
delay = "60ms"
max_copies = 1
[[classes.steps]]
name = "answer"
input_tokens = { kind = "constant", value = 100 }
output_tokens = { kind = "constant", value = 100 }
[classes.steps.hedge]
primary = "chat"
`,
}

// TestGrowthForksMatchFreshRunsInTest is TestGrowthForksMatchFreshRuns on
// growConfigs, each of which must grow by forking.
func TestGrowthForksMatchFreshRunsInTest(t *testing.T) {
	n0 := 1000
	if testing.Short() {
		n0 = 300
	}
	for name, text := range growConfigs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := scenario.Parse(name+".toml", []byte(text))
			if err != nil {
				t.Fatal(err)
			}
			if sim.Independent(&sc.Config) {
				t.Fatalf("%s: its requests are independent", name)
			}
			if !checkGrowth(t, name, sc.Config, n0) {
				t.Errorf("%s: simulated again from the start; want grown", name)
			}
		})
	}
}

// TestGrowthHoldsAmongTheFirstSends: a run whose first hold (at half its
// 8 requests) comes before its 8 closed-loop clients without think time
// have all sent holds among the clients' first
// sends, all due at 0 (handled before the event loop's first pop), and its
// fork is still the run of that many requests.
func TestGrowthHoldsAmongTheFirstSends(t *testing.T) {
	sc, err := scenario.Parse("closed-loop-no-think.toml", []byte(growConfigs["closed-loop-no-think"]))
	if err != nil {
		t.Fatal(err)
	}
	if c := sc.Config.Classes[0].Clients; c <= 8/2 {
		t.Fatalf("%d clients: want more than the first hold, at 4 requests", c)
	}
	if !checkGrowth(t, "closed-loop-no-think", sc.Config, 8) {
		t.Error("simulated again from the start; want grown")
	}
}

// TestGrowthStopsAtTheTrace: a replayed trace of 100 arrivals asked to
// grow to 400 requests grows no further than its arrivals (no growth at
// all: 100 is already all of them), rather than reading past its end.
func TestGrowthStopsAtTheTrace(t *testing.T) {
	sc, err := scenario.Parse("mm1.toml", []byte(growConfigs["mm1"]))
	if err != nil {
		t.Fatal(err)
	}
	cfg := sc.Config
	cfg.Requests = 100
	tr := &sim.Trace{}
	for i := range 100 {
		tr.Arrivals = append(tr.Arrivals, time.Duration(i)*time.Second)
	}
	cfg.Arrivals = sim.Arrivals{Process: sim.Replay, Trace: tr}
	hedged, _, g, err := sim.GrowWithBaselineTo(context.Background(), &cfg, 1, 400)
	if err != nil {
		t.Fatal(err)
	}
	if g != nil || hedged.Overall.Requests != 100 {
		t.Errorf("growth %v, %d requests; want none beyond the trace's 100 arrivals", g != nil, hedged.Overall.Requests)
	}
}

// TestGrowthExtendsUnderItsOwnContext: each Extend runs under the context
// it is given, not the first call's: a growth begun under a context since
// cancelled still extends under a live one, and an Extend under a
// cancelled context stops.
func TestGrowthExtendsUnderItsOwnContext(t *testing.T) {
	sc, err := scenario.Parse("mm1.toml", []byte(growConfigs["mm1"]))
	if err != nil {
		t.Fatal(err)
	}
	cfg := sc.Config
	cfg.Requests = 200
	first, cancel := context.WithCancel(context.Background())
	_, _, g, err := sim.GrowWithBaselineTo(first, &cfg, 1, 800)
	if err != nil || g == nil {
		t.Fatalf("growth %v, %v; want one", g != nil, err)
	}
	cancel()
	if _, _, err := g.Extend(context.Background(), 400, 1); err != nil {
		t.Errorf("Extend under a live context after the first was cancelled: %v", err)
	}
	done, stop := context.WithCancel(context.Background())
	stop()
	if _, _, err := g.Extend(done, 800, 1); err == nil {
		t.Error("Extend under a cancelled context: no error")
	}
}
