package optimize_test

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/optimize"
	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
)

// TestRescuedHarmedGuardCheck is the oracle on guard-check: the
// primary's draw is the same with and without hedging, so the candidate
// with copies at 1 s and 2 s harms no request (harmed = 0 exactly) and
// rescues exactly the answers it adds — 0.875 − 0.5 = 0.375 of requests
// in expectation (5 standard errors). The primary answers what no
// hedging answers; copies to the guard model the rest. The verdict quotes
// both shares, and the text says who answered.
func TestRescuedHarmedGuardCheck(t *testing.T) {
	sc, err := scenario.LoadFS(scenarios.FS, "guard-check.toml")
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Optimize
	s.Requests = 40_000
	s.CheckRequests = 0
	s.Search.Delays = []time.Duration{time.Second}
	s.Search.Copies = []int{2}
	s.Search.Objective.MaxAddedCostPct = math.Inf(1)
	rep := mustRun(t, &sc.Config, s, optimize.Options{})
	cr := &rep.Classes[0]
	base, pick := cr.Baseline(), cr.Picked()
	if !pick.Hedging || pick.RescuedShare == nil || pick.HarmedShare == nil {
		t.Fatalf("pick %s, rescued %v, harmed %v; want the hedge, paired", pick.Label, pick.RescuedShare, pick.HarmedShare)
	}
	n := float64(pick.Requests)
	rescued := math.Round(*pick.RescuedShare * n)
	added := math.Round(pick.AnsweredShare*n) - math.Round(base.AnsweredShare*n)
	if *pick.HarmedShare != 0 || rescued != added {
		t.Errorf("harmed %v, rescued %v requests; want 0 and the %v answers hedging adds", *pick.HarmedShare, rescued, added)
	}
	if tol := binomialTol(0.375, pick.Requests); math.Abs(*pick.RescuedShare-0.375) > tol {
		t.Errorf("rescued share %.4f; want 0.375 ± %.4f", *pick.RescuedShare, tol)
	}
	if pick.WonPrimaryShare == nil {
		t.Fatalf("won by the primary: nil; want a share for a one-call class")
	}
	if *pick.WonPrimaryShare != base.AnsweredShare || len(pick.WonByCopies) != 1 ||
		math.Abs(*pick.WonPrimaryShare+pick.WonByCopies[0].Share-pick.AnsweredShare) > 1e-12 {
		t.Errorf("won by the primary %v, copies %+v; want no hedging's answered %v, the copies the rest of %v", *pick.WonPrimaryShare, pick.WonByCopies, base.AnsweredShare, pick.AnsweredShare)
	}
	if base.RescuedShare == nil || *base.RescuedShare != 0 || pick.MetShare != pick.AnsweredShare {
		t.Errorf("no hedging rescued %v; met %v, answered %v: want 0, and met = answered without an SLO", base.RescuedShare, pick.MetShare, pick.AnsweredShare)
	}
	if !strings.Contains(cr.Verdict.Reason, "request by request against no hedging: rescued 37.") || !strings.Contains(cr.Verdict.Reason, "harmed 0.0%") {
		t.Errorf("verdict %q does not quote rescued and harmed", cr.Verdict.Reason)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "  who answered: primary ") || !strings.Contains(b.String(), "copies to llama-guard 3") {
		t.Errorf("the text does not say who answered:\n%s", b.String())
	}

	// With an SLO of 2 s the target is "answered within 2 s": the copy at
	// 2 s cannot meet it, the one at 1 s can, and the shares follow.
	sc.Config.Classes[0].SLO = 2 * time.Second
	cr = &mustRun(t, &sc.Config, s, optimize.Options{}).Classes[0]
	if cr.SLOSeconds != 2 || !(cr.Picked().MetShare < cr.Picked().AnsweredShare) || *cr.Picked().HarmedShare != 0 {
		t.Errorf("SLO: %v s, met %v, answered %v, harmed %v; want met below answered, harmed 0", cr.SLOSeconds, cr.Picked().MetShare, cr.Picked().AnsweredShare, *cr.Picked().HarmedShare)
	}
}
