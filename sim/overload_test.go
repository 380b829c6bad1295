package sim_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
	"github.com/hedgesim/hedgesim/sim"
)

// TestOverloadOverArrivals: 20 requests arrive 0.1 s apart (2 s of
// arrivals) at a model limited to 60 a minute that answers in 50 s, so the
// run ends at 51.9 s. The model is offered 20 attempts in 2 s, 10/s — ten
// times its limit, hidden by its 60 s burst. Measured over the run's 51.9 s
// the rate would read 0.39/s, under the limit; the offered rate is over
// the arrivals, and the warning names both spans.
func TestOverloadOverArrivals(t *testing.T) {
	cfg := &sim.Config{
		Name: "tail", Seed: 1, Requests: 20,
		Arrivals: sim.Arrivals{Process: sim.Constant, Rate: 10},
		Models: []sim.Model{{Name: "a", Latency: dist.Constant{Value: 50},
			RateLimit: sim.RateLimit{RequestsPerMinute: 60, Burst: time.Minute}}},
		Classes: []sim.Class{{Name: "c", Share: 1, Deadline: time.Minute,
			InputTokens: dist.Constant{Value: 10}, OutputTokens: dist.Constant{Value: 10}}},
	}
	res := mustRun(t, cfg)
	if math.Abs(res.Seconds-51.9) > 1e-9 {
		t.Fatalf("run ends at %v s, want 51.9", res.Seconds)
	}
	if got := res.TrafficSeconds(cfg); got != 2 {
		t.Errorf("traffic over %v s, want 20 requests ÷ 10/s = 2", got)
	}
	o := res.Overloads(cfg)
	if len(o) != 1 || math.Abs(o[0].Offered-10) > 1e-9 || o[0].Limit != 1 || o[0].Seconds != 2 {
		t.Fatalf("overloads %+v: want model a offered 10/s against 1/s over 2 s", o)
	}
	r := report(t, cfg)
	want := "model a is offered 10 requests/s against its limit of 1/s over this run's 20 requests at 10 requests/s (2.00s of arrivals; the run ends at 51.9s, when the last of them does)"
	if len(r.Warnings) == 0 || !strings.HasPrefix(r.Warnings[0], want) {
		t.Errorf("warnings %q\nwant one starting %q", r.Warnings, want)
	}
}
