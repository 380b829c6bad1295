package sim_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestCutAnswerIsAMiss: the answer step chat shares its stage with side,
// the stage done with any call (or k of n). A turn whose stage was done by
// side with every call of chat let go of has no answer: a miss, counted as
// a timeout open and in AnswerCut (such turns once counted as answered and
// checked). With constant latencies chat is always cut (side faster: no
// turn answered) or never (chat faster: every turn answered and checked,
// also when 2 of chat's two calls and side's close the stage with one of
// chat's, the other tied). In a tie, side's answer seen first closes the stage: chat
// answering at that instant gave its answer (answered), chat failing at its
// 1 s deadline as side answers did not (a miss). The answer step in an
// earlier stage (visible, before a last step post) is cut the same way, and
// post's answer does not make up for it.
func TestCutAnswerIsAMiss(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		chat, side float64 // constant latencies, seconds
		chatFan    int
		need       int
		post       bool // chat is visible, and a step post follows
		answered   bool // every turn answered; otherwise none
	}{
		{"chat always cut", 0.5, 0.2, 1, 1, false, false},
		{"chat always first", 0.2, 0.5, 1, 1, false, true},
		{"fan-out, chat's calls tie", 0.5, 0.2, 2, 2, false, true},
		{"fan-out, chat always cut", 0.5, 0.2, 2, 1, false, false},
		{"tie, chat answered", 0.5, 0.5, 1, 1, false, true},
		{"tie, chat failed at its deadline", 1.5, 1, 1, 1, false, false},
		{"visible chat cut before post", 0.5, 0.2, 1, 1, true, false},
		{"visible chat first before post", 0.2, 0.5, 1, 1, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			models := []sim.Model{
				{Name: "chat", Provider: "pc", Latency: dist.Constant{Value: tc.chat}},
				{Name: "side", Provider: "ps", Latency: dist.Constant{Value: tc.side}},
				{Name: "post", Provider: "ps", Latency: dist.Constant{Value: 0.1}},
			}
			n := 2_000
			res, rep := runAnswerCut(t, n, models, tc.chatFan, tc.need, time.Second, tc.post)
			c := &res.Classes[0]
			pr := c.Pipeline
			want, cut := int64(n), int64(0)
			if !tc.answered {
				want, cut = 0, int64(n)
			}
			if c.Answered != want || pr.Checked != want || pr.AnswerCut != cut || c.TimeoutsOpen != cut {
				t.Errorf("answered %d, checked %d, answer cut %d, timeouts open %d of %d turns; want %d, %d, %d, %d",
					c.Answered, pr.Checked, pr.AnswerCut, c.TimeoutsOpen, n, want, want, cut, cut)
			}
			if c.Answered+c.TimeoutsOpen != c.Requests {
				t.Errorf("answered %d + timeouts open %d ≠ %d turns", c.Answered, c.TimeoutsOpen, c.Requests)
			}
			warned := countContaining(rep.Classes[0].Warnings, "the stage was done without chat's answer")
			if want := map[bool]int{true: 0, false: 1}[tc.answered]; warned != want {
				t.Errorf("%d warnings of the cut answer step, want %d:\n%s", warned, want, strings.Join(rep.Classes[0].Warnings, "\n"))
			}
		})
	}
}

// TestCutAnswerShare: chat ~ Exp(1/s), fanned out to k calls without a
// deadline, and side ~ Exp(2/s), all independent, race in a stage done with need calls. Waiting
// for any, a turn is answered when a call of chat answers first, with
// probability k/(k+2): 1/3 for one call, 1/2 for two. Waiting for 2 of
// chat's two calls and side's, a call of chat is among the first two to
// answer in every turn, and one suffices: every turn is answered. Shares
// within five binomial standard errors of 20 000 independent turns (no
// queue or limit couples them). The warning names the stage, its wait_for
// and the share of turns cut, as the report row's timeouts open give it.
func TestCutAnswerShare(t *testing.T) {
	t.Parallel()
	models := []sim.Model{
		{Name: "chat", Provider: "pc", Latency: dist.Exponential{Rate: 1}},
		{Name: "side", Provider: "ps", Latency: dist.Exponential{Rate: 2}},
		{Name: "post", Provider: "ps", Latency: dist.Constant{Value: 0.1}},
	}
	for _, tc := range []struct {
		name      string
		fan, need int
		answered  float64
		wait      string // the warning's wait_for
	}{
		{"any of one", 1, 1, 1.0 / 3, `wait_for "any"`},
		{"any of two", 2, 1, 1.0 / 2, `wait_for "any"`},
		{"2 of 3", 2, 2, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n := 20_000
			res, rep := runAnswerCut(t, n, models, tc.fan, tc.need, 0, false)
			c := &res.Classes[0]
			checkShare(t, "answered", c.Answered, int64(n), tc.answered)
			if pr := c.Pipeline; pr.AnswerCut != int64(n)-c.Answered || c.TimeoutsOpen != pr.AnswerCut || pr.Checked != c.Answered {
				t.Errorf("answered %d, checked %d, answer cut %d, timeouts open %d of %d turns: want the turns not answered cut, the answered checked",
					c.Answered, pr.Checked, pr.AnswerCut, c.TimeoutsOpen, n)
			}
			warnings := rep.Classes[0].Warnings
			if tc.wait == "" {
				if k := countContaining(warnings, "without chat's answer"); k != 0 {
					t.Errorf("%d warnings of the cut answer step, want none:\n%s", k, strings.Join(warnings, "\n"))
				}
				return
			}
			want := fmt.Sprintf(`the answer step chat shares its stage with side, %s: in %.1f%% of turns`, tc.wait, 100*float64(c.Pipeline.AnswerCut)/float64(n))
			if countContaining(warnings, want) != 1 {
				t.Errorf("warnings lack %q once:\n%s", want, strings.Join(warnings, "\n"))
			}
		})
	}
}

// runAnswerCut runs n turns of a pipeline whose stage holds side (one call)
// then chat (chatFan calls; fail-closed, with deadline, 0 for none) and is
// done with need calls — chat the last step, or, with post, the visible step before a last
// stage post — and reports them against the run without hedging.
func runAnswerCut(t *testing.T, n int, models []sim.Model, chatFan, need int, deadline time.Duration, post bool) (*sim.Result, *sim.Report) {
	t.Helper()
	side := call(0, sim.FailClosed)
	side.Policy.Primary = 1
	chat := call(deadline, sim.FailClosed)
	pl := &sim.Pipeline{
		Steps:  []sim.Step{{Name: "side", Call: side, FanOut: 1}, {Name: "chat", Call: chat, FanOut: chatFan, Visible: post}},
		Stages: []sim.Stage{{Steps: []int{0, 1}, Need: need}},
	}
	if post {
		p := call(0, sim.FailClosed)
		p.Policy.Primary = 2
		pl.Steps = append(pl.Steps, sim.Step{Name: "post", Call: p, FanOut: 1})
		pl.Stages = append(pl.Stages, sim.Stage{Steps: []int{2}})
	}
	cfg := pipelineConfig(n, models, pl)
	res := mustRun(t, cfg)
	return res, sim.NewReport(cfg, res, mustRun(t, sim.WithoutHedging(cfg)))
}

// countContaining returns how many of lines contain s.
func countContaining(lines []string, s string) int {
	k := 0
	for _, l := range lines {
		if strings.Contains(l, s) {
			k++
		}
	}
	return k
}
