package optimize_test

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/sim"
)

// raceToAnswer is n turns of a pipeline whose steps retr (model f, 200 ms)
// and ans (model a, the answer step: 100 ms or 1 s, half each) share one
// stage that waits for any call: when ans draws 1 s, retr is done first
// and ans is let go of, a turn without an answer (sim's AnswerCut); when
// it draws 100 ms, retr is let go of. The deadline, 10 s, never ends a
// turn.
func raceToAnswer(t *testing.T, n int) *sim.Config {
	t.Helper()
	ans, err := dist.NewMixture([]float64{0.5, 0.5}, []dist.Continuous{dist.Constant{Value: 0.1}, dist.Constant{Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	call := func(m int) sim.Class {
		return sim.Class{InputTokens: dist.Constant{Value: 100}, OutputTokens: dist.Constant{Value: 10}, Policy: sim.Policy{Primary: m}}
	}
	return &sim.Config{
		Name: "race", Seed: 3, Requests: n,
		Arrivals: sim.Arrivals{Process: sim.Poisson, Rate: 2},
		Models: []sim.Model{
			{Name: "f", Provider: "pf", Latency: dist.Constant{Value: 0.2}, PriceInputPerMTok: 1, PriceOutputPerMTok: 2},
			{Name: "a", Provider: "pa", Latency: ans, PriceInputPerMTok: 1, PriceOutputPerMTok: 2},
		},
		Classes: []sim.Class{{Name: "p", Share: 1, Deadline: 10 * time.Second, Pipeline: &sim.Pipeline{
			Steps:  []sim.Step{{Name: "retr", Call: call(0), FanOut: 1}, {Name: "ans", Call: call(1), FanOut: 1, Visible: true}},
			Stages: []sim.Stage{{Steps: []int{0, 1}, Need: 1}},
		}}},
	}
}

// TestPickAnswerCutWarning: optimize carries the warning of the pick's run
// that turns went through the answer step's stage without its answer
// into the class's warnings, naming the pick, with the pick's share and
// no hedging's. Searched at 300 ms only, where no copy is ever sent (the
// stage is done by 200 ms), the pick is no hedging and half the turns
// lose ans; searched at 0 s, the pick sends a second ans call at once
// and a turn loses ans only when both draw 1 s, a quarter. With 4000
// turns a share's standard deviation is at most √(0.25/4000) ≈ 0.8
// points; the test allows 4 (5 σ). Every turn without an answer is such a
// turn here, so the shares must equal 1 − the answered share exactly.
func TestPickAnswerCutWarning(t *testing.T) {
	const n = 4000
	tol := 5 * math.Sqrt(0.25/n)
	for _, tc := range []struct {
		delay      time.Duration
		hedged     bool
		pick, base float64
	}{
		{300 * time.Millisecond, false, 0.5, 0.5},
		{0, true, 0.25, 0.5},
	} {
		s := optimize.DefaultSettings()
		s.Requests, s.CheckRequests = n, 0
		s.Search.Delays = []time.Duration{tc.delay}
		rep, err := optimize.Run(raceToAnswer(t, n), s, optimize.Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		cr := rep.Classes[0]
		pick, base := cr.Picked(), cr.Baseline()
		if pick.Hedging != tc.hedged {
			t.Fatalf("delay %v: pick %s; want hedging %v", tc.delay, pick.Label, tc.hedged)
		}
		name := "no hedging"
		if tc.hedged {
			name = pick.Label
		}
		re := regexp.MustCompile(`^with the pick \(` + regexp.QuoteMeta(name) + `\), the answer step ans shares its stage with retr, wait_for "any": in ([0-9.]+)% of turns \(no hedging ([0-9.]+)%\) the stage was done without ans's answer, every call of it let go of; those turns have no answer and count as timeouts open$`)
		var m []string
		for _, w := range cr.Warnings {
			if strings.Contains(w, "the answer step ans shares its stage") {
				if m != nil {
					t.Errorf("delay %v: a second answer-cut warning %q", tc.delay, w)
				}
				if m = re.FindStringSubmatch(w); m == nil {
					t.Errorf("delay %v: warning %q; want it to match %s", tc.delay, w, re)
				}
			}
		}
		if m == nil {
			t.Errorf("delay %v: warnings %q; want the answer-cut warning for the pick", tc.delay, cr.Warnings)
			continue
		}
		for i, want := range []struct {
			share, of float64
		}{{tc.pick, pick.AnsweredShare}, {tc.base, base.AnsweredShare}} {
			got, _ := strconv.ParseFloat(m[i+1], 64)
			if exact := fmt.Sprintf("%.1f", 100*(1-want.of)); m[i+1] != exact || math.Abs(got/100-want.share) > tol {
				t.Errorf("delay %v: share %d %s%%; want %s%% (1 − answered), within %.1f points of %.0f%%", tc.delay, i, m[i+1], exact, 100*tol, 100*want.share)
			}
		}
	}
}

// TestNotHedgedStepLetGoOf: the advice for a step left unhedged gives its
// calls' p50 and p99 without hedging as those of the calls that ended,
// and says how many the pipeline let go of and are in no figure. In
// raceToAnswer's race ans's calls that end all take 100 ms — the 1 s ones
// are let go of, about half — so its figures are 100 ms, not the 1 s half
// of its model; retr's are 200 ms, let go of when ans is faster. The two
// counts of a step add to its 4000 calls, and a step's let-go-of calls are
// the other step's ended ones (one of the two ends each turn); each is
// within 5 standard deviations, √(0.25/4000) of the share, of half.
func TestNotHedgedStepLetGoOf(t *testing.T) {
	const n = 4000
	s := optimize.DefaultSettings()
	s.Requests, s.CheckRequests = n, 0
	s.Search.Delays = []time.Duration{300 * time.Millisecond}
	rep, err := optimize.Run(raceToAnswer(t, n), s, optimize.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	cr := rep.Classes[0]
	if len(cr.Steps) != 2 {
		t.Fatalf("advice for %d steps; want 2", len(cr.Steps))
	}
	re := regexp.MustCompile(`^not hedged: the search found no delay for it that the objective prefers to leaving it unhedged \(its calls without hedging: p50 (\S+), p99 (\S+) of the (\d+) that ended; the other (\d+) of (\d+) \(([0-9.]+)%\) were let go of before they ended, their stage done without them or the turn over, and are not in these figures\)$`)
	ended := map[string]int{}
	cut := map[string]int{}
	for i, want := range []string{"200ms", "100ms"} {
		adv := cr.Steps[i]
		m := re.FindStringSubmatch(adv.Why)
		if m == nil {
			t.Errorf("step %s: %q; want it to match %s", adv.Step, adv.Why, re)
			continue
		}
		if m[1] != want || m[2] != want {
			t.Errorf("step %s: p50 %s, p99 %s; want %s, the calls that ended", adv.Step, m[1], m[2], want)
		}
		e, _ := strconv.Atoi(m[3])
		c, _ := strconv.Atoi(m[4])
		all, _ := strconv.Atoi(m[5])
		if e+c != n || all != n || m[6] != fmt.Sprintf("%.1f", 100*float64(c)/n) {
			t.Errorf("step %s: %d ended, %d let go of, of %d (%s%%); want them to add to %d", adv.Step, e, c, all, m[6], n)
		}
		if math.Abs(float64(c)/n-0.5) > 5*math.Sqrt(0.25/n) {
			t.Errorf("step %s: %d of %d let go of; want about half", adv.Step, c, n)
		}
		ended[adv.Step], cut[adv.Step] = e, c
	}
	if ended["ans"] != cut["retr"] || ended["retr"] != cut["ans"] {
		t.Errorf("ended %v, let go of %v; want one step's ended calls to be the other's let go of", ended, cut)
	}
}
