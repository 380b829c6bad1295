package sim_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// pairedRun runs cfg's baseline recording its met bits, then cfg paired
// with them.
func pairedRun(t *testing.T, cfg *sim.Config) (hedged, base *sim.Result) {
	t.Helper()
	b := *sim.WithoutHedging(cfg)
	b.Pair = &sim.Pair{Record: true}
	base = mustRun(t, &b)
	if base.Met == nil {
		t.Fatal("the baseline recorded no bits")
	}
	h := *cfg
	h.Pair = &sim.Pair{Base: base.Met}
	return mustRun(t, &h), base
}

// TestRescuedGuardCheck is the oracle of guard-check (field report 1):
// the primary's draw is the same with and without hedging, so a request
// answered without hedging is answered with it — harmed is 0 exactly —
// and rescued is exactly the answered requests hedging adds, about
// 0.875 − 0.5 = 0.375 of them (5 standard errors). The primary answers
// exactly the requests the baseline answers (it is fast, and answers
// before the first copy goes out); copies to the same model answer the
// rest.
func TestRescuedGuardCheck(t *testing.T) {
	s, err := scenario.LoadFS(scenarios.FS, "guard-check.toml")
	if err != nil {
		t.Fatal(err)
	}
	hedged, base := pairedRun(t, &s.Config)
	h, b := &hedged.Classes[0], &base.Classes[0]
	p := h.Paired
	if p == nil || p.Harmed != 0 || p.Rescued != h.Answered-b.Answered {
		t.Fatalf("paired %+v; want harmed 0 and rescued = %d − %d answered", p, h.Answered, b.Answered)
	}
	n := h.Requests
	if got := float64(p.Rescued) / float64(n); math.Abs(got-0.375) > binomialTol(0.375, int(n)) {
		t.Errorf("rescued share %.4f; want 0.375 ± %.4f", got, binomialTol(0.375, int(n)))
	}
	if base.Met.Count() != b.Answered {
		t.Errorf("%d bits set; the baseline answered %d", base.Met.Count(), b.Answered)
	}
	w := h.Won
	var copies int64
	for _, c := range w.Copies {
		copies += c.Requests
	}
	if w.Primary != b.Answered || w.Primary+copies != h.Answered || len(w.Copies) != 1 {
		t.Errorf("won %+v; want the primary %d, the copies the rest of %d", w, b.Answered, h.Answered)
	}
	if hedged.Overall.Paired == nil || *hedged.Overall.Paired != *p {
		t.Errorf("overall paired %+v; want the only class's %+v", hedged.Overall.Paired, p)
	}
}

// TestWonSumsToAnswered: on every shipped scenario, the requests won by
// the primary and by copies add up to the answered requests, in each
// class; and a split run records the same met bits as one run.
func TestWonSumsToAnswered(t *testing.T) {
	for _, cfg := range shippedConfigs(t) {
		res := mustRun(t, cfg)
		for _, c := range res.Classes {
			if c.Pipeline != nil {
				continue // a pipeline's calls are won in its steps' classes
			}
			n := c.Won.Primary
			for _, m := range c.Won.Copies {
				n += m.Requests
			}
			if n != c.Answered {
				t.Errorf("%s/%s: won %+v sum to %d; answered %d", cfg.Name, c.Name, c.Won, n, c.Answered)
			}
		}
	}
	s, err := scenario.LoadFS(scenarios.FS, "two-model-gateway.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.Config
	cfg.Requests = 20_000
	cfg.Pair = &sim.Pair{Record: true}
	one := mustRun(t, &cfg)
	split, err := sim.RunSplit(context.Background(), &cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	if one.Met.String() != split.Met.String() {
		t.Error("a split run records other met bits than one run")
	}
	back, err := sim.ParseMetBits(one.Met.String())
	if err != nil || back.String() != one.Met.String() {
		t.Errorf("met bits do not read back: %v", err)
	}
}

// TestSLOMet: with an SLO the bit says "answered within it": the baseline
// sets exactly as many bits as it answered requests within the SLO. An
// SLO at or past the deadline is refused.
func TestSLOMet(t *testing.T) {
	cfg := oneModel(20_000, bimodal(t), 2, time.Second)
	cfg.Classes[0].Deadline = 3 * time.Second
	cfg.Classes[0].SLO = 2 * time.Second
	hedged, base := pairedRun(t, cfg)
	if got, want := base.Met.Count(), base.Classes[0].AnsweredWithin(2); got != want {
		t.Errorf("%d bits; %d answered within the SLO", got, want)
	}
	if p := base.Classes[0].Paired; p == nil || p.Met != base.Met.Count() || p.Compared {
		t.Errorf("baseline paired %+v; want %d met, not compared", p, base.Met.Count())
	}
	h := &hedged.Classes[0]
	if want := h.AnsweredWithin(2) - base.Classes[0].AnsweredWithin(2); h.Paired.Rescued-h.Paired.Harmed != want {
		t.Errorf("rescued − harmed = %d; want the change of those met, %d", h.Paired.Rescued-h.Paired.Harmed, want)
	}
	cfg.Classes[0].SLO = 3 * time.Second
	if _, err := sim.Run(cfg); err == nil {
		t.Error("an SLO at the deadline: no error")
	}
}
