package sim_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// asOneStep returns cfg with every open class written as a pipeline of one
// step whose call is the class.
func asOneStep(cfg *sim.Config) *sim.Config {
	c := *cfg
	c.Classes = append([]sim.Class(nil), cfg.Classes...)
	for i := range c.Classes {
		cl := &c.Classes[i]
		call := *cl
		*cl = sim.Class{Name: cl.Name, Share: cl.Share, Deadline: 0, OnTimeout: cl.OnTimeout}
		cl.Pipeline = &sim.Pipeline{
			Steps:  []sim.Step{{Name: "call", Call: call, FanOut: 1}},
			Stages: []sim.Stage{{Steps: []int{0}}},
		}
	}
	return &c
}

// runReport runs cfg and its baseline and returns the JSON report.
func runReport(t *testing.T, cfg *sim.Config) []byte {
	t.Helper()
	return reportJSON(t, cfg, mustRun(t, cfg), mustRun(t, sim.WithoutHedging(cfg)))
}

// TestOneStepPipelineIsTheClass: every shipped scenario whose classes are
// open-loop, each class rewritten as a pipeline of one step that is the
// class, gives the same JSON report byte for byte — the pipeline's driver
// changes nothing of its call, and the event loop a pipeline takes gives
// what the lane and the direct path give.
func TestOneStepPipelineIsTheClass(t *testing.T) {
	t.Parallel()
	for _, cfg := range shippedConfigs(t) {
		closed := false
		for _, c := range cfg.Classes {
			closed = closed || c.Clients > 0 || c.Pipeline != nil
		}
		if closed {
			continue
		}
		t.Run(cfg.Name, func(t *testing.T) {
			want := runReport(t, cfg)
			got := runReport(t, asOneStep(cfg))
			if !bytes.Equal(got, want) {
				t.Errorf("one-step pipeline report differs from the class's:\n%s", firstDiff(got, want))
			}
		})
	}
}

// firstDiff shows where two reports first differ.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-200)
	return "got:  …" + string(a[lo:min(len(a), i+200)]) + "\nwant: …" + string(b[lo:min(len(b), i+200)])
}

// call returns an unhedged call to model 0 with the given deadline and rule.
func call(deadline time.Duration, rule sim.TimeoutRule) sim.Class {
	return sim.Class{
		InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Constant{Value: 10},
		Deadline: deadline, OnTimeout: rule,
		Policy: sim.Policy{OnInvalid: sim.NonFatal, CancelBilling: sim.BillInput},
	}
}

// pipelineConfig returns n requests of one pipeline class over the given
// models, arriving at 10 per second (Poisson).
func pipelineConfig(n int, models []sim.Model, pl *sim.Pipeline) *sim.Config {
	return &sim.Config{
		Name: "pipeline", Seed: 7, Requests: n,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 10},
		Models:   models,
		Classes:  []sim.Class{{Name: "p", Share: 1, Pipeline: pl}},
	}
}

// checkShare fails when the observed count k of n is further from the
// probability p than five binomial standard errors, √(p(1−p)/n) each.
func checkShare(t *testing.T, what string, k, n int64, p float64) {
	t.Helper()
	got := float64(k) / float64(n)
	se := math.Sqrt(p * (1 - p) / float64(n))
	if math.Abs(got-p) > 5*se+1e-12 {
		t.Errorf("%s: %.5f (%d of %d), want %.5f ± %.5f (5 standard errors)", what, got, k, n, p, 5*se)
	}
}

// TestPipelineSequenceConvolves: two independent unhedged steps in
// sequence, U(0, 1) s then Exp(1/s), end within t with the probability of
// the convolution, P(U + X ≤ t) = ∫₀¹ (1 − e^{−(t−u)})⁺ du, checked at
// several t within five binomial standard errors of 200 000 requests.
func TestPipelineSequenceConvolves(t *testing.T) {
	models, pl := uniformThenExp()
	n := 200_000
	res := mustRun(t, pipelineConfig(n, models, pl))
	checkAttempts(t, res)
	c := &res.Classes[0]
	if c.Answered != int64(n) {
		t.Fatalf("answered %d of %d", c.Answered, n)
	}
	conv := func(t float64) float64 {
		// ∫₀^min(1,t) (1 − e^{−(t−u)}) du
		m := math.Min(1, t)
		return m - math.Exp(-t)*(math.Exp(m)-1)
	}
	for _, x := range []float64{0.5, 1, 1.5, 2, 3, 5} {
		checkShare(t, "P(T ≤ "+fsec(x)+")", c.AnsweredWithin(x), int64(n), conv(x))
	}
	if got, want := c.Mean(), 1.5; math.Abs(got-want) > 5*math.Sqrt(1.0/12+1)/math.Sqrt(float64(n)) {
		t.Errorf("mean %.4f, want %.4f", got, want)
	}
	if len(c.Pipeline.Steps) != 2 || c.Pipeline.Steps[0].Requests != int64(n) || c.Pipeline.Steps[1].Requests != int64(n) {
		t.Errorf("steps: %+v", c.Pipeline.Steps)
	}
}

func fsec(x float64) string { return sim.FormatSeconds(x) }

// uniformThenExp returns two unhedged fail-closed steps in sequence, a
// call to a U(0, 1) s model then one to an Exp(1/s) model, and the models.
func uniformThenExp() ([]sim.Model, *sim.Pipeline) {
	models := []sim.Model{
		{Name: "u", Provider: "u", Latency: dist.Uniform{Min: 0, Max: 1}},
		{Name: "x", Provider: "x", Latency: dist.Exponential{Rate: 1}},
	}
	a, b := call(0, sim.FailClosed), call(0, sim.FailClosed)
	b.Policy.Primary = 1
	return models, &sim.Pipeline{
		Steps:  []sim.Step{{Name: "a", Call: a, FanOut: 1}, {Name: "b", Call: b, FanOut: 1}},
		Stages: []sim.Stage{{Steps: []int{0}}, {Steps: []int{1}}},
	}
}

// TestPipelineFanOutOrderStatistics: k = 5 calls at once, Exp(1/s) each,
// waited for all, any or 3 of them: the stage ends within t with
// probability F(t)⁵, 1 − (1 − F(t))⁵ and Σ_{j≥3} C(5,j) Fʲ (1−F)⁵⁻ʲ (the
// order statistics of iid draws), within five binomial standard errors.
func TestPipelineFanOutOrderStatistics(t *testing.T) {
	t.Parallel()
	models := []sim.Model{{Name: "x", Provider: "x", Latency: dist.Exponential{Rate: 1}}}
	F := func(t float64) float64 { return 1 - math.Exp(-t) }
	binom := func(n, k int) float64 {
		r := 1.0
		for i := 0; i < k; i++ {
			r = r * float64(n-i) / float64(i+1)
		}
		return r
	}
	atLeast := func(k int, p float64) float64 {
		s := 0.0
		for j := k; j <= 5; j++ {
			s += binom(5, j) * math.Pow(p, float64(j)) * math.Pow(1-p, float64(5-j))
		}
		return s
	}
	for _, tc := range []struct {
		name string
		need int
	}{{"all", 0}, {"any", 1}, {"3 of 5", 3}} {
		t.Run(tc.name, func(t *testing.T) {
			pl := &sim.Pipeline{
				Steps:  []sim.Step{{Name: "shards", Call: call(0, sim.FailClosed), FanOut: 5}},
				Stages: []sim.Stage{{Steps: []int{0}, Need: tc.need}},
			}
			n := 100_000
			res := mustRun(t, pipelineConfig(n, models, pl))
			checkAttempts(t, res)
			c := &res.Classes[0]
			k := tc.need
			if k == 0 {
				k = 5
			}
			for _, x := range []float64{0.2, 0.5, 1, 2} {
				checkShare(t, "P(T ≤ "+fsec(x)+")", c.AnsweredWithin(x), int64(n), atLeast(k, F(x)))
			}
			st := c.Pipeline.Steps[0]
			if st.Requests+st.Cut != int64(5*n) {
				t.Errorf("calls %d ended + %d cut, want %d started", st.Requests, st.Cut, 5*n)
			}
			if tc.need == 0 && st.Cut != 0 {
				t.Errorf("waiting for all, %d calls were cut", st.Cut)
			}
		})
	}
}

// TestPipelineTailAtScale: a request that waits for 100 calls, each slow
// (5–6 s instead of 0.1–0.2 s) with probability 1 %, is slow with
// probability 1 − 0.99¹⁰⁰ = 0.634 (Dean and Barroso, "The Tail at Scale",
// CACM 2013).
func TestPipelineTailAtScale(t *testing.T) {
	t.Parallel()
	lat, err := dist.NewMixture([]float64{0.99, 0.01}, []dist.Continuous{
		dist.Uniform{Min: 0.1, Max: 0.2}, dist.Uniform{Min: 5, Max: 6}})
	if err != nil {
		t.Fatal(err)
	}
	models := []sim.Model{{Name: "m", Provider: "m", Latency: lat}}
	pl := &sim.Pipeline{
		Steps:  []sim.Step{{Name: "fan", Call: call(0, sim.FailClosed), FanOut: 100}},
		Stages: []sim.Stage{{Steps: []int{0}}},
	}
	n := 20_000
	res := mustRun(t, pipelineConfig(n, models, pl))
	c := &res.Classes[0]
	slow := c.Answered - c.AnsweredWithin(1)
	checkShare(t, "slow share", slow, int64(n), 1-math.Pow(0.99, 100))
}

// guardCheck is the field report's guard: half the calls take 0.1–0.3 s,
// half 3–19 s; copies every second, at most 3 in flight, a 3 s budget
// failing open.
func guardCheck(t *testing.T) ([]sim.Model, sim.Class) {
	lat, err := dist.NewMixture([]float64{0.5, 0.5}, []dist.Continuous{
		dist.Uniform{Min: 0.1, Max: 0.3}, dist.Uniform{Min: 3, Max: 19}})
	if err != nil {
		t.Fatal(err)
	}
	g := call(3*time.Second, sim.FailOpen)
	g.Policy.Copies, g.Policy.Delays = 2, []time.Duration{time.Second}
	return []sim.Model{{Name: "guard", Provider: "api", Latency: lat}}, g
}

// TestHelpChatTurnChecksBoth: the help-chat turn guards the question and
// the answer, each as the field report's guard; each check passes with
// probability 1 − 0.5³ = 0.875, so both pass on 0.875² = 0.765625 of
// turns — 0.25 without hedging —, the checked share; every turn goes
// through (fail open), so every turn is answered, at its end-to-end time
// (a finite p95), and none is a timeout.
func TestHelpChatTurnChecksBoth(t *testing.T) {
	models, g := guardCheck(t)
	chat := call(0, sim.FailClosed)
	chat.Policy.Primary = 1
	models = append(models, sim.Model{Name: "chat", Provider: "chat", Latency: dist.Uniform{Min: 1, Max: 2}})
	pl := &sim.Pipeline{
		Steps: []sim.Step{
			{Name: "guard-question", Call: g, FanOut: 1},
			{Name: "chat", Call: chat, FanOut: 1, InputFrom: []sim.TokenRef{{Step: 0}}, Visible: true}, // the answer step
			{Name: "guard-answer", Call: g, FanOut: 1, InputFrom: []sim.TokenRef{{Step: 0}, {Step: 1, Output: true}}},
		},
		Stages: []sim.Stage{{Steps: []int{0}}, {Steps: []int{1}}, {Steps: []int{2}}},
	}
	n := 100_000
	cfg := pipelineConfig(n, models, pl)
	for _, tc := range []struct {
		cfg  *sim.Config
		both float64
	}{{cfg, 0.875 * 0.875}, {sim.WithoutHedging(cfg), 0.25}} {
		res := mustRun(t, tc.cfg)
		checkAttempts(t, res)
		c := &res.Classes[0]
		checkShare(t, "both checked", c.Pipeline.Checked, int64(n), tc.both)
		if through := c.Pipeline.Checked + c.Pipeline.DegradedAny; through != int64(n) {
			t.Errorf("%d of %d turns went through; fail open lets every turn through", through, n)
		}
		if c.Answered != int64(n) || c.TimeoutsOpen != 0 {
			t.Errorf("answered %d, timeouts open %d; want every turn of %d answered, none a timeout", c.Answered, c.TimeoutsOpen, n)
		}
		if p95 := c.Quantile(0.95); math.IsInf(p95, 0) || p95 > c.EndQuantiles(1)[0] {
			t.Errorf("p95 %v: want the finite end-to-end time of answered turns", p95)
		}
		if w := c.Pipeline.CheckedWithin(math.Inf(1)); w != c.Pipeline.Checked {
			t.Errorf("checked within +Inf = %d, want every checked turn, %d", w, c.Pipeline.Checked)
		}
		for _, s := range []int{0, 2} {
			st := c.Pipeline.Steps[s]
			checkShare(t, st.Name+" answered", st.Answered, st.Requests, math.Sqrt(tc.both))
		}
	}
}

// TestPipelineLoopWald: a step repeated N times, N drawn from a truncated
// geometric distribution (p = 0.25, at most 20), each call Exp(mean 0.5 s):
// the mean end-to-end time is E[N]·E[call] (Wald's identity), within five
// standard errors of the mean (the variance of a random sum,
// E[N]·Var[X] + Var[N]·E[X]²).
func TestPipelineLoopWald(t *testing.T) {
	var values []float64
	for k := 1; k <= 20; k++ {
		for j := 0; j < int(math.Round(10000*math.Pow(0.75, float64(k-1))*0.25)); j++ {
			values = append(values, float64(k))
		}
	}
	iters, err := dist.NewEmpirical(values)
	if err != nil {
		t.Fatal(err)
	}
	var varN float64
	for _, v := range values {
		varN += (v - iters.Mean()) * (v - iters.Mean())
	}
	varN /= float64(len(values))
	models := []sim.Model{{Name: "m", Provider: "m", Latency: dist.Exponential{Rate: 2}}}
	pl := &sim.Pipeline{
		Steps:  []sim.Step{{Name: "tool", Call: call(0, sim.FailClosed), FanOut: 1, Repeat: iters, MaxRepeat: 20, InputGrowth: 50}},
		Stages: []sim.Stage{{Steps: []int{0}}},
	}
	n := 100_000
	res := mustRun(t, pipelineConfig(n, models, pl))
	checkAttempts(t, res)
	c := &res.Classes[0]
	want := iters.Mean() * 0.5
	sd := math.Sqrt(iters.Mean()*0.25 + varN*0.25)
	if got := c.Mean(); math.Abs(got-want) > 5*sd/math.Sqrt(float64(n)) {
		t.Errorf("mean end-to-end %.4f s, want E[N]·E[X] = %.4f ± %.4f", got, want, 5*sd/math.Sqrt(float64(n)))
	}
	calls := float64(c.Pipeline.Steps[0].Requests) / float64(n)
	if sdN := math.Sqrt(varN / float64(n)); math.Abs(calls-iters.Mean()) > 5*sdN {
		t.Errorf("%.4f calls per request, want E[N] = %.4f", calls, iters.Mean())
	}
}

// TestPipelineStepsShareAQueue: two steps in a row on one provider with a
// single slot (FIFO, exponential service at rate μ = 1 for both): the
// provider is a BCMP network's FIFO station visited twice per request, so
// it behaves as an M/M/1 queue at 2λ, and a request's mean end-to-end time
// is 2/(μ − 2λ) = 5 s at λ = 0.3 — against 2/(μ − λ) = 2.86 s when each
// step has a provider of its own. The answer guard waits behind the
// question guards of other requests.
func TestPipelineStepsShareAQueue(t *testing.T) {
	if testing.Short() {
		t.Skip("a long queueing run")
	}
	for _, tc := range []struct {
		name   string
		shared bool
		want   float64
	}{{"shared", true, 2 / (1 - 0.6)}, {"apart", false, 2 / (1 - 0.3)}} {
		t.Run(tc.name, func(t *testing.T) {
			models := []sim.Model{
				{Name: "a", Provider: "one", Latency: dist.Exponential{Rate: 1}},
				{Name: "b", Provider: "one", Latency: dist.Exponential{Rate: 1}},
			}
			provs := []sim.Provider{{Name: "one", Concurrency: 1}}
			if !tc.shared {
				models[1].Provider = "two"
				provs = append(provs, sim.Provider{Name: "two", Concurrency: 1})
			}
			b := call(0, sim.FailClosed)
			b.Policy.Primary = 1
			pl := &sim.Pipeline{
				Steps:  []sim.Step{{Name: "a", Call: call(0, sim.FailClosed), FanOut: 1}, {Name: "b", Call: b, FanOut: 1}},
				Stages: []sim.Stage{{Steps: []int{0}}, {Steps: []int{1}}},
			}
			cfg := pipelineConfig(400_000, models, pl)
			cfg.Arrivals.Rate = 0.3
			cfg.Providers = provs
			res := mustRun(t, cfg)
			checkAttempts(t, res)
			// Queueing runs are autocorrelated: a 2 % tolerance, about ten
			// naive standard errors of 400 000 requests at ρ = 0.6.
			if got := res.Classes[0].Mean(); math.Abs(got-tc.want) > 0.02*tc.want {
				t.Errorf("mean end-to-end %.3f s, want %.3f s", got, tc.want)
			}
		})
	}
}

// helpChat is the help-chat turn of TestHelpChatTurnChecksBoth with a
// streamed chat step whose first token the user sees, and an end-to-end
// deadline of e2e (0: none).
func helpChat(t *testing.T, n int, e2e time.Duration) *sim.Config {
	models, g := guardCheck(t)
	chat := call(0, sim.FailClosed)
	chat.Policy.Primary = 1
	chat.Policy.Winner = sim.FirstToken
	chat.Policy.Copies, chat.Policy.Delays = 1, []time.Duration{800 * time.Millisecond}
	chat.OutputTokens = dist.Uniform{Min: 100, Max: 400}
	models = append(models, sim.Model{Name: "chat", Provider: "chat", TTFT: dist.Uniform{Min: 0.2, Max: 2},
		TokensPerSecond: dist.Uniform{Min: 40, Max: 80}, PriceInputPerMTok: 2.5, PriceOutputPerMTok: 10})
	models[0].PriceInputPerMTok, models[0].PriceOutputPerMTok = 0.2, 0.2
	pl := &sim.Pipeline{
		Steps: []sim.Step{
			{Name: "guard-question", Call: g, FanOut: 1},
			{Name: "chat", Call: chat, FanOut: 1, InputFrom: []sim.TokenRef{{Step: 0}}, Visible: true},
			{Name: "guard-answer", Call: g, FanOut: 1, InputFrom: []sim.TokenRef{{Step: 0}, {Step: 1, Output: true}}},
		},
		Stages: []sim.Stage{{Steps: []int{0}}, {Steps: []int{1}}, {Steps: []int{2}}},
	}
	cfg := pipelineConfig(n, models, pl)
	cfg.Classes[0].Deadline = e2e
	return cfg
}

// TestPipelineLaneMatchesEventLoop: pipelines whose calls cannot affect
// one another run on the lane, and their reports are the event loop's byte
// for byte — sequences with streamed, hedged steps and a visible token,
// end-to-end deadlines that cut calls, fan-outs of fail-open calls, loops.
func TestPipelineLaneMatchesEventLoop(t *testing.T) {
	t.Parallel()
	shards := call(400*time.Millisecond, sim.FailOpen)
	shards.Policy.Copies, shards.Policy.Delays = 1, []time.Duration{150 * time.Millisecond}
	lat, err := dist.NewMixture([]float64{0.9, 0.1}, []dist.Continuous{dist.Uniform{Min: 0.02, Max: 0.1}, dist.Uniform{Min: 0.3, Max: 2}})
	if err != nil {
		t.Fatal(err)
	}
	fan := pipelineConfig(20_000, []sim.Model{{Name: "s", Provider: "s", Latency: lat, ErrorRate: 0.01, PricePerRequest: 1e-4}}, &sim.Pipeline{
		Steps:  []sim.Step{{Name: "shards", Call: shards, FanOut: 6}, {Name: "merge", Call: call(0, sim.FailClosed), FanOut: 1, InputFrom: []sim.TokenRef{{Step: 0, Output: true}}}},
		Stages: []sim.Stage{{Steps: []int{0}}, {Steps: []int{1}}},
	})
	fan.Classes[0].Deadline = 1200 * time.Millisecond
	iters, err := dist.NewEmpirical([]float64{1, 1, 2, 2, 3, 4, 6, 9})
	if err != nil {
		t.Fatal(err)
	}
	tool := call(3*time.Second, sim.FailClosed)
	tool.Policy.Copies, tool.Policy.Delays = 2, []time.Duration{time.Second}
	loop := pipelineConfig(20_000, []sim.Model{{Name: "m", Provider: "m", Latency: lat, ErrorRate: 0.02, PriceInputPerMTok: 1}}, &sim.Pipeline{
		Steps:  []sim.Step{{Name: "tool", Call: tool, FanOut: 1, Repeat: iters, MaxRepeat: 8, InputGrowth: 300}},
		Stages: []sim.Stage{{Steps: []int{0}}},
	})
	loop.Classes[0].Deadline = 6 * time.Second
	for _, tc := range []struct {
		name string
		cfg  *sim.Config
	}{
		{"help chat", helpChat(t, 20_000, 0)},
		{"help chat, 9s end to end", helpChat(t, 20_000, 9*time.Second)},
		{"fan-out", fan},
		{"loop", loop},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !sim.PipelineLane(tc.cfg) {
				t.Fatal("the pipeline does not take the lane")
			}
			lane := reportJSON(t, tc.cfg, mustRun(t, tc.cfg), mustRun(t, sim.WithoutHedging(tc.cfg)))
			events := reportJSON(t, tc.cfg, sim.RunDirect(tc.cfg), sim.RunDirect(sim.WithoutHedging(tc.cfg)))
			if !bytes.Equal(lane, events) {
				t.Errorf("the lane's report differs from the event loop's:\n%s", firstDiff(lane, events))
			}
		})
	}
}

// TestPipelineLaneOnRandomPipelines: random pipelines on latencies of a
// 50 ms grid (so that responses, timers, deadlines and stage ends tie) —
// sequences, fan-outs and groups of fail-open calls, loops, streamed
// first-token steps, every winner and error rule, end-to-end deadlines —
// give the event loop's report on the lane, byte for byte, hedged and
// not.
func TestPipelineLaneOnRandomPipelines(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 22))
	gaps := []time.Duration{0, 50 * time.Millisecond, 100 * time.Millisecond, 150 * time.Millisecond}
	n := 120
	if testing.Short() {
		n = 30
	}
	for i := range n {
		cfg := &sim.Config{Name: "random", Seed: uint64(i), Requests: 800, Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 50}}
		for m := range 3 {
			md := sim.Model{Name: string(rune('a' + m)), Provider: string(rune('a' + m)),
				ErrorRate: []float64{0, 0.1}[rng.IntN(2)], InvalidRate: []float64{0, 0.1}[rng.IntN(2)],
				PriceInputPerMTok: 1, PriceOutputPerMTok: 3}
			if rng.IntN(2) == 0 {
				md.Latency = tieGrid(t, rng)
			} else {
				md.TTFT = tieGrid(t, rng)
				md.TokensPerSecond = dist.Constant{Value: []float64{100, 500}[rng.IntN(2)]}
			}
			cfg.Models = append(cfg.Models, md)
		}
		pl := &sim.Pipeline{}
		for s := range 1 + rng.IntN(4) {
			c := sim.Class{
				InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Uniform{Min: 10, Max: 60},
				Deadline:  []time.Duration{0, 150 * time.Millisecond, 300 * time.Millisecond}[rng.IntN(3)],
				OnTimeout: sim.TimeoutRule(rng.IntN(2)),
				Policy: sim.Policy{
					Primary: rng.IntN(3), Targets: []int{rng.IntN(3)}, Copies: rng.IntN(3),
					Delays: []time.Duration{gaps[rng.IntN(len(gaps))]}, Winner: sim.WinnerRule(rng.IntN(3)),
					OnError: sim.ErrorRule(rng.IntN(3)), OnInvalid: sim.ErrorRule(rng.IntN(3)),
					CancelLatency: []time.Duration{0, 50 * time.Millisecond}[rng.IntN(2)], CancelBilling: sim.Billing(rng.IntN(4)),
				},
			}
			st := sim.Step{Name: string(rune('p' + s)), Call: c, FanOut: 1, Visible: s == 1}
			switch rng.IntN(4) {
			case 0: // a fan-out of fail-open calls
				st.FanOut = 2 + rng.IntN(3)
				st.Call.OnTimeout = sim.FailOpen
			case 1: // a loop
				st.Repeat, st.MaxRepeat, st.InputGrowth = dist.Uniform{Min: 0.5, Max: 4.5}, 3+rng.IntN(2), 50
			}
			if s > 0 {
				st.InputFrom = []sim.TokenRef{{Step: s - 1, Output: true}}
			}
			pl.Steps = append(pl.Steps, st)
			pl.Stages = append(pl.Stages, sim.Stage{Steps: []int{s}})
		}
		cfg.Classes = []sim.Class{{Name: "p", Share: 1, Pipeline: pl,
			Deadline: []time.Duration{0, 300 * time.Millisecond, 600 * time.Millisecond}[rng.IntN(3)], OnTimeout: sim.TimeoutRule(rng.IntN(2))}}
		if !sim.PipelineLane(cfg) {
			t.Fatalf("config %d does not take the lane", i)
		}
		for _, c := range []*sim.Config{cfg, sim.WithoutHedging(cfg)} {
			lane := reportJSON(t, c, mustRun(t, c), mustRun(t, sim.WithoutHedging(c)))
			events := reportJSON(t, c, sim.RunDirect(c), sim.RunDirect(sim.WithoutHedging(c)))
			if !bytes.Equal(lane, events) {
				t.Fatalf("config %d: the lane's report differs from the event loop's:\n%s", i, firstDiff(lane, events))
			}
		}
	}
}

// TestPipelineEventOrder: random pipelines whose calls share queues —
// groups waited for all, any or k of n, fan-outs, loops, fail-open and
// fail-closed steps, end-to-end deadlines, on a 50 ms grid so that events
// tie — give the same result and end their attempts in the same order with
// the FIFOs of events and with the heap alone, and every run's accounting
// balances (the package's tests audit every run).
func TestPipelineEventOrder(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 32))
	n := 80
	if testing.Short() {
		n = 20
	}
	for i := range n {
		cfg := &sim.Config{Name: "random", Seed: uint64(i), Requests: 600, Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 40},
			Providers: []sim.Provider{{Name: "a", Concurrency: 1 + rng.IntN(4)}, {Name: "b", Concurrency: 2 + rng.IntN(6)}}}
		if rng.IntN(3) == 0 {
			cfg.Providers[1].RejectWhenFull, cfg.Providers[1].QueueLimit = true, rng.IntN(3)
		}
		for m := range 2 {
			cfg.Models = append(cfg.Models, sim.Model{Name: string(rune('a' + m)), Provider: string(rune('a' + m)),
				Latency: tieGrid(t, rng), ErrorRate: []float64{0, 0.1}[rng.IntN(2)], PriceInputPerMTok: 1})
		}
		pl := &sim.Pipeline{}
		for s := 0; s < 1+rng.IntN(4); s++ {
			c := call([]time.Duration{0, 200 * time.Millisecond}[rng.IntN(2)], sim.TimeoutRule(rng.IntN(2)))
			c.Policy.Primary, c.Policy.Copies, c.Policy.Delays = rng.IntN(2), rng.IntN(3), []time.Duration{50 * time.Millisecond}
			c.Policy.OnError = sim.ErrorRule(rng.IntN(3))
			st := sim.Step{Name: string(rune('p' + s)), Call: c, FanOut: 1}
			group := false
			switch rng.IntN(4) {
			case 0:
				st.FanOut = 2 + rng.IntN(3)
			case 1:
				st.Repeat, st.MaxRepeat = dist.Uniform{Min: 0.5, Max: 3.5}, 3
			case 2:
				group = s > 0 && pl.Steps[s-1].Repeat == nil
			}
			pl.Steps = append(pl.Steps, st)
			if group {
				g := &pl.Stages[len(pl.Stages)-1]
				g.Steps = append(g.Steps, s)
			} else {
				pl.Stages = append(pl.Stages, sim.Stage{Steps: []int{s}})
			}
		}
		for g := range pl.Stages {
			calls := 0
			for _, s := range pl.Stages[g].Steps {
				calls += pl.Steps[s].FanOut
			}
			if pl.Steps[pl.Stages[g].Steps[0]].Repeat == nil {
				pl.Stages[g].Need = rng.IntN(calls + 1) // 0: all
			}
		}
		cfg.Classes = []sim.Class{
			{Name: "p", Share: 0.7, Pipeline: pl, Deadline: []time.Duration{0, 500 * time.Millisecond}[rng.IntN(2)]},
			{Name: "plain", Share: 0.3, InputTokens: dist.Constant{Value: 10}, OutputTokens: dist.Constant{Value: 5},
				Policy: sim.Policy{Primary: rng.IntN(2), Copies: 1, Delays: []time.Duration{100 * time.Millisecond}, OnInvalid: sim.NonFatal}},
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("config %d: %v", i, err)
		}
		sameOrder(t, fmt.Sprintf("config %d", i), cfg)
		res := mustRun(t, cfg)
		checkAttempts(t, res)
		c := &res.Classes[0]
		// Answered counts the turns that went through, checked or
		// degraded; one plain call counts as its class (answered = checked).
		through := c.Pipeline.Checked + c.Pipeline.DegradedAny
		if pl.OneCall() {
			through = c.Pipeline.Checked
		}
		if c.Answered != through || c.Pipeline.CheckedTimes().Answered != c.Pipeline.Checked || through > c.Requests {
			t.Errorf("config %d: answered %d, checked %d (times %d), degraded %d of %d requests", i, c.Answered, c.Pipeline.Checked,
				c.Pipeline.CheckedTimes().Answered, c.Pipeline.DegradedAny, c.Requests)
		}
	}
}

// TestSkippedCallDeadlinesChangeNothing: leaving out the deadlines of
// pipeline calls certain to end before them (callEndsBefore), and the
// hedge timers that could never fire, gives the same result and ends the
// attempts in the same order as queueing them all, on random pipelines
// whose calls share queues, with every winner rule, attempt timeouts,
// errors and invalid answers, on a 50 ms grid so that responses tie with
// deadlines. Some calls time out, and some calls' deadlines are left out.
func TestSkippedCallDeadlinesChangeNothing(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(41, 42))
	n := 60
	if testing.Short() {
		n = 15
	}
	var timeouts int64
	for i := range n {
		cfg := &sim.Config{Name: "random", Seed: uint64(i), Requests: 600, Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 40},
			Providers: []sim.Provider{{Name: "a", Concurrency: 1 + rng.IntN(4)}, {Name: "b", Concurrency: 2 + rng.IntN(6)}}}
		for m := range 2 {
			md := sim.Model{Name: string(rune('a' + m)), Provider: string(rune('a' + m)),
				ErrorRate: []float64{0, 0.1}[rng.IntN(2)], InvalidRate: []float64{0, 0.1}[rng.IntN(2)], PriceInputPerMTok: 1}
			if rng.IntN(2) == 0 {
				md.Latency = tieGrid(t, rng)
			} else {
				md.TTFT = tieGrid(t, rng)
				md.TokensPerSecond = dist.Constant{Value: []float64{100, 500}[rng.IntN(2)]}
			}
			cfg.Models = append(cfg.Models, md)
		}
		pl := &sim.Pipeline{}
		for s := range 1 + rng.IntN(4) {
			c := call([]time.Duration{150 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond}[rng.IntN(3)], sim.TimeoutRule(rng.IntN(2)))
			c.Policy.Primary, c.Policy.Copies, c.Policy.Delays = rng.IntN(2), rng.IntN(3), []time.Duration{50 * time.Millisecond}
			c.Policy.Winner, c.Policy.OnError = sim.WinnerRule(rng.IntN(3)), sim.ErrorRule(rng.IntN(3))
			if rng.IntN(4) == 0 {
				c.Policy.AttemptTimeout = 100 * time.Millisecond
			}
			st := sim.Step{Name: string(rune('p' + s)), Call: c, FanOut: 1}
			if rng.IntN(3) == 0 {
				st.FanOut = 2 + rng.IntN(2)
			}
			pl.Steps = append(pl.Steps, st)
			pl.Stages = append(pl.Stages, sim.Stage{Steps: []int{s}})
		}
		cfg.Classes = []sim.Class{{Name: "p", Share: 1, Pipeline: pl}}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("config %d: %v", i, err)
		}
		var skip, all []sim.AttemptRecord
		a := sim.RunGlobal(cfg, func(r *sim.AttemptRecord) { skip = append(skip, *r) })
		b := sim.RunAllQueued(cfg, func(r *sim.AttemptRecord) { all = append(all, *r) })
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("config %d: skipping deadlines changed the result:\n%+v\n%+v", i, a.Overall.Attempts, b.Overall.Attempts)
		}
		if !reflect.DeepEqual(skip, all) {
			t.Fatalf("config %d: skipping deadlines changed the order in which attempts end", i)
		}
		for _, st := range a.Classes[0].Pipeline.Steps {
			timeouts += st.TimeoutsOpen + st.TimeoutsClosed
		}
	}
	if timeouts == 0 {
		t.Fatal("no call reached its deadline: nothing was checked")
	}
}
