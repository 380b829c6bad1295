package sim_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// outagePipeline is outageConfig's outage without hedging in a pipeline
// class with an end-to-end deadline of 2 s: step one calls b, which
// answers after U(0.1, 1.9) s here, then step two calls a, whose failure
// at 3 s the deadline cuts at 2 s, after 0.1 to 1.9 s.
func outagePipeline() *sim.Config {
	cfg := outageConfig(0, 0, 0, true)
	cfg.Models[1].Latency = dist.Uniform{Min: 0.1, Max: 1.9}
	call := func(m int) sim.Class {
		return sim.Class{InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}, Policy: sim.Policy{Primary: m}}
	}
	cfg.Classes[0] = sim.Class{Name: "p", Share: 1, Deadline: 2 * time.Second, Pipeline: &sim.Pipeline{
		Steps:  []sim.Step{{Name: "one", Call: call(1), FanOut: 1}, {Name: "two", Call: call(0), FanOut: 1}},
		Stages: []sim.Stage{{Steps: []int{0}}, {Steps: []int{1}}},
	}}
	return cfg
}

// hedgedOutageSteps is outageConfig's hedged call at 1 s as both steps,
// in one stage, of a pipeline class whose end-to-end deadline is 2 s (the
// steps have none).
func hedgedOutageSteps() *sim.Config {
	cfg := outageConfig(time.Second, 1, 0, true)
	step := cfg.Classes[0]
	step.Name, step.Share = "", 0
	cfg.Classes[0] = sim.Class{Name: "p", Share: 1, Deadline: 2 * time.Second, Pipeline: &sim.Pipeline{
		Steps:  []sim.Step{{Name: "one", Call: step, FanOut: 1}, {Name: "two", Call: step, FanOut: 1}},
		Stages: []sim.Stage{{Steps: []int{0, 1}}},
	}}
	return cfg
}

// clientAdvice ends every hidden-failure warning.
const clientAdvice = "so that the failures reach it, or, if your client's breaker can count a cancelled call as a failure, turn that on (the breaker modelled here cannot)"

// TestBreakerHiddenAdviceFollowsCause: in the outage of outageConfig
// (model a fails every call after 3 s), the warning says what cancelled
// the hidden calls and advises only what a scenario can set:
//
//   - a hedge at 1 s, no deadline: the copy's answer cancels every
//     primary at 1.1 s; a hedge delay above the failure latency, or an
//     attempt timeout below 1.10 s;
//
//   - no hedging, a deadline of 2 s: the deadline cancels every call at
//     2 s; a deadline above the failure latency, or an attempt timeout
//     below 2.00 s — no hedge delay, the class has none;
//
//   - a hedge at 1 s and a deadline of 2 s: the copy's answer cancels
//     every primary at 1.1 s, but a delay above the 3 s failures is past
//     the deadline, where no copy is sent: only the attempt timeout;
//
//   - a pipeline whose second step calls a after a first step of 0.1 to
//     1.9 s, with an end-to-end deadline of 2 s: the deadline cuts every
//     call to a, at any age from 0.1 s — no attempt timeout short enough
//     for them all is worth advising, and the steps have no hedge or
//     deadline of their own: only a client breaker that counts cancelled
//     calls;
//
//   - a pipeline of two steps in one stage, each hedging a to b at 1 s,
//     its end-to-end deadline 2 s: 2000 calls hidden, and, as for a class
//     with that deadline, no
//     hedge delay is advised — the steps have no deadline of their own,
//     but a delay above the 3 s failures is past their pipeline's;
//
//   - as the last, with b answering after 0.1 s or 5 s (half each): the
//     deadline cancels the primaries whose copy is slow, the answer the
//     others; the counts of both, adding to 1000, and a deadline above
//     the failure latency for those the deadline cancelled.
//
//   - a hedge at 1 s to a itself and a deadline of 2 s: the deadline
//     cancels every primary at 2 s and every copy at 1 s, 2000 calls;
//     the attempt timeout is advised for the 1000 first calls, below the
//     2 s they were out (a copy cancelled sooner stays hidden).
//
// Then each advice is followed and must work: the breaker sees more
// failures than are hidden from it, opens, and nothing warns. (Copies to
// a sent before it opens can still be hidden, fewer than it saw.)
func TestBreakerHiddenAdviceFollowsCause(t *testing.T) {
	mixed := func() *sim.Config {
		cfg := outageConfig(time.Second, 1, 2*time.Second, true)
		mix, err := dist.NewMixture([]float64{0.5, 0.5}, []dist.Continuous{dist.Constant{Value: 0.1}, dist.Constant{Value: 5}})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Models[1].Latency = mix
		return cfg
	}
	timeout := func(d time.Duration) func(*sim.Config) {
		return func(c *sim.Config) { c.Classes[0].Policy.AttemptTimeout = d }
	}
	deadline := func(d time.Duration) func(*sim.Config) {
		return func(c *sim.Config) { c.Classes[0].Deadline = d }
	}
	delay := func(d time.Duration) func(*sim.Config) {
		return func(c *sim.Config) { c.Classes[0].Policy.Delays = []time.Duration{d} }
	}
	for _, tc := range []struct {
		name   string
		cfg    func() *sim.Config
		calls  int    // hidden, 1000 when 0
		causes string // a regexp: the counts of the mixed case are drawn
		advice string
		follow map[string]func(*sim.Config)
	}{
		{
			name:   "hedge 1s, no deadline",
			cfg:    func() *sim.Config { return outageConfig(time.Second, 1, 0, true) },
			causes: `another call answered first`,
			advice: "set the hedge delay above the failure latency (class c), or set an attempt timeout below 1.10s, the least time one of those calls had been out (a timeout counts as a failure, a slow answer's too), " + clientAdvice,
			follow: map[string]func(*sim.Config){"delay 3.5s": delay(3500 * time.Millisecond), "attempt timeout 1.05s": timeout(1050 * time.Millisecond)},
		},
		{
			name:   "no hedging, deadline 2s",
			cfg:    func() *sim.Config { return outageConfig(0, 0, 2*time.Second, true) },
			causes: `the request's deadline passed`,
			advice: "set the deadline above the failure latency (class c), or set an attempt timeout below 2.00s, the least time one of those calls had been out (a timeout counts as a failure, a slow answer's too), " + clientAdvice,
			follow: map[string]func(*sim.Config){"deadline 3.5s": deadline(3500 * time.Millisecond), "attempt timeout 1.9s": timeout(1900 * time.Millisecond)},
		},
		{
			name:   "hedge 1s, deadline 2s",
			cfg:    func() *sim.Config { return outageConfig(time.Second, 1, 2*time.Second, true) },
			causes: `another call answered first`,
			advice: "set an attempt timeout below 1.10s, the least time one of those calls had been out (a timeout counts as a failure, a slow answer's too), " + clientAdvice,
			follow: map[string]func(*sim.Config){"attempt timeout 1.05s": timeout(1050 * time.Millisecond)},
		},
		{
			name:   "pipeline, end-to-end deadline 2s",
			cfg:    outagePipeline,
			causes: `their pipeline's end-to-end deadline passed`,
			advice: "if your client's breaker can count a cancelled call as a failure, turn that on (the breaker modelled here cannot)",
		},
		{
			name:   "pipeline step hedged at 1s, end-to-end deadline 2s",
			cfg:    hedgedOutageSteps,
			calls:  2000,
			causes: `another call answered first`,
			advice: "set an attempt timeout below 1.10s, the least time one of those calls had been out (a timeout counts as a failure, a slow answer's too), " + clientAdvice,
			follow: map[string]func(*sim.Config){"attempt timeout 1.05s": func(c *sim.Config) {
				for i := range c.Classes[0].Pipeline.Steps {
					c.Classes[0].Pipeline.Steps[i].Call.Policy.AttemptTimeout = 1050 * time.Millisecond
				}
			}},
		},
		{
			name: "hedge 1s to a itself, deadline 2s",
			cfg: func() *sim.Config {
				cfg := outageConfig(time.Second, 1, 2*time.Second, true)
				cfg.Classes[0].Policy.Targets = []int{0}
				return cfg
			},
			calls:  2000,
			causes: `the request's deadline passed`,
			advice: "set the deadline above the failure latency (class c), or set an attempt timeout below 2.00s, the least time one of the 1000 that were their request's first call had been out (a timeout counts as a failure, a slow answer's too), " + clientAdvice,
			follow: map[string]func(*sim.Config){"deadline 3.5s": deadline(3500 * time.Millisecond), "attempt timeout 1.9s": timeout(1900 * time.Millisecond)},
		},
		{
			name:   "hedge 1s, deadline 2s, slow copies",
			cfg:    mixed,
			causes: `(\d+) because another call answered first, (\d+) because the request's deadline passed`,
			advice: "set the deadline above the failure latency (class c) for the %d the deadline cancelled, or set an attempt timeout below 1.10s, the least time one of those calls had been out (a timeout counts as a failure, a slow answer's too), " + clientAdvice,
			follow: map[string]func(*sim.Config){"attempt timeout 1.05s": timeout(1050 * time.Millisecond)},
		},
	} {
		_, ws := hiddenWarnings(t, tc.cfg())
		if len(ws) != 1 {
			t.Errorf("%s: warnings %q; want one", tc.name, ws)
			continue
		}
		w := ws[0]
		calls := tc.calls
		if calls == 0 {
			calls = 1000
		}
		m := regexp.MustCompile(`^the breaker on model a: ` + strconv.Itoa(calls) + ` calls that were going to fail were cancelled before their failure came back \(` + tc.causes + `\), `).FindStringSubmatch(w)
		if m == nil {
			t.Errorf("%s: warning %q; want its causes to be %q", tc.name, w, tc.causes)
			continue
		}
		want := tc.advice
		if len(m) == 3 {
			byAnswer, _ := strconv.Atoi(m[1])
			byDeadline, _ := strconv.Atoi(m[2])
			if byAnswer+byDeadline != 1000 || byAnswer == 0 || byDeadline == 0 {
				t.Errorf("%s: %d by an answer, %d by the deadline; want both > 0, adding to 1000", tc.name, byAnswer, byDeadline)
			}
			want = fmt.Sprintf(tc.advice, byDeadline)
		}
		if _, advice, _ := strings.Cut(w, "It protects less than it seems: "); advice != want {
			t.Errorf("%s: advice %q; want %q", tc.name, advice, want)
		}
		for what, change := range tc.follow {
			cfg := tc.cfg()
			change(cfg)
			res, ws := hiddenWarnings(t, cfg)
			if hid, seen := res.Breakers[0].HiddenCounts(); len(ws) != 0 || hid >= seen || res.Breakers[0].Opens == 0 {
				t.Errorf("%s, advice followed (%s): %d hidden, %d seen, %d opens, warnings %q; want fewer hidden than seen, no warning and the breaker opened", tc.name, what, hid, seen, res.Breakers[0].Opens, ws)
			}
		}
	}
}
