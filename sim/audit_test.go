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
