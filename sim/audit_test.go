package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
)

// TestAuditCatchesLostAttempt: the audit run after every test run is not
// vacuous — an attempt counted as sent but never accounted, or a slot
// left in use, is reported.
func TestAuditCatchesLostAttempt(t *testing.T) {
	cfg := &Config{
		Name: "audit", Seed: 1, Requests: 100,
		Arrivals:  Arrivals{Process: Poisson, Rate: 10},
		Models:    []Model{{Name: "m", Provider: "p", Latency: dist.Exponential{Rate: 5}}},
		Providers: []Provider{{Name: "p", Concurrency: 2}},
		Classes: []Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{},
			Policy: Policy{Copies: 1, Delays: []time.Duration{100 * time.Millisecond}}}},
	}
	e := newEngine(cfg)
	e.run()
	if err := e.audit(); err != nil {
		t.Fatalf("a correct run failed its audit: %v", err)
	}
	e.stats[0].sent++
	if err := e.audit(); err == nil || !strings.Contains(err.Error(), "accounted") {
		t.Errorf("an unaccounted attempt passed the audit: %v", err)
	}
	e.stats[0].sent--
	e.provs[0].busy = 1
	if err := e.audit(); err == nil || !strings.Contains(err.Error(), "slots still in use") {
		t.Errorf("a slot left in use passed the audit: %v", err)
	}
}

// TestAuditCatchesBreakerMiscount: a call a breaker failed at once that
// its provider did not count as a rejection, or a failure-ratio window
// whose count disagrees with what it holds, fails the audit.
func TestAuditCatchesBreakerMiscount(t *testing.T) {
	cfg := &Config{
		Name: "audit-breaker", Seed: 1, Requests: 300,
		Arrivals: Arrivals{Process: Poisson, Rate: 10},
		Models: []Model{{Name: "m", Provider: "p", Latency: dist.Exponential{Rate: 5}, ErrorRate: 0.6,
			Breaker: &Breaker{FailureRatio: 0.5, Window: 10, MinCalls: 5, Cooldown: time.Second, Probes: 1}}},
		Classes: []Class{{Name: "c", Share: 1, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}}},
	}
	e := newEngine(cfg)
	e.run()
	if err := e.audit(); err != nil {
		t.Fatalf("a correct run failed its audit: %v", err)
	}
	b := e.breakers[0]
	if b.rejected == 0 {
		t.Fatal("the breaker never failed a call; the test checks nothing")
	}
	b.rejected++
	if err := e.audit(); err == nil || !strings.Contains(err.Error(), "rejections") {
		t.Errorf("a miscounted breaker rejection passed the audit: %v", err)
	}
	b.rejected--
	b.win.fails++
	if err := e.audit(); err == nil || !strings.Contains(err.Error(), "window") {
		t.Errorf("a miscounted window passed the audit: %v", err)
	}
}

// TestBreakerValidate: a breaker needs a trip condition, and a failure
// ratio in (0, 1] over exactly one window with a reachable minimum.
func TestBreakerValidate(t *testing.T) {
	for _, b := range []Breaker{
		{Cooldown: time.Second, Probes: 1},
		{FailureRatio: 1.5, Window: 10, MinCalls: 5, Cooldown: time.Second, Probes: 1},
		{FailureRatio: -0.1, Failures: 3, Window: 10, MinCalls: 5, Cooldown: time.Second, Probes: 1},
		{FailureRatio: 0.5, MinCalls: 5, Cooldown: time.Second, Probes: 1},
		{FailureRatio: 0.5, Window: 10, WindowTime: time.Second, MinCalls: 5, Cooldown: time.Second, Probes: 1},
		{FailureRatio: 0.5, Window: 10, MinCalls: 11, Cooldown: time.Second, Probes: 1},
		{FailureRatio: 0.5, WindowTime: time.Second, Cooldown: time.Second, Probes: 1},
	} {
		if err := b.validate(); err == nil {
			t.Errorf("%+v passed validation", b)
		}
	}
	for _, b := range []Breaker{
		{Failures: 3, Cooldown: time.Second, Probes: 1},
		{FailureRatio: 1, Window: 10, MinCalls: 10, Cooldown: time.Second, Probes: 1},
		{FailureRatio: 0.2, WindowTime: time.Minute, MinCalls: 100, Cooldown: time.Second, Probes: 1},
	} {
		if err := b.validate(); err != nil {
			t.Errorf("%+v: %v", b, err)
		}
	}
}
