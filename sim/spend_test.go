package sim

import (
	"math"
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/dist"
)

// TestSpendClosedForm: every attempt costs exactly its model's
// price_per_request and nothing hedges, so a class's cost per day is price
// × its arrival rate × 86 400 s, exactly up to rounding; the classes'
// rates split the scenario's rate by their configured shares (not the
// shares the run happened to draw, which differ by about 1 % at 20 000
// requests) and add up to it, and overall is the classes' sum.
func TestSpendClosedForm(t *testing.T) {
	const rate, price = 12.5, 0.002
	cfg := &Config{
		Name: "spend", Seed: 3, Requests: 20_000,
		Arrivals: Arrivals{Process: Poisson, Rate: rate},
		Models: []Model{{Name: "m", Latency: dist.Constant{Value: 0.2}, PricePerRequest: price},
			{Name: "m3", Latency: dist.Constant{Value: 0.2}, PricePerRequest: 3 * price}},
		Classes: []Class{
			{Name: "a", Share: 0.3, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}},
			{Name: "b", Share: 0.7, InputTokens: dist.Constant{}, OutputTokens: dist.Constant{}, Policy: Policy{Primary: 1}},
		},
	}
	h, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(WithoutHedging(cfg))
	if err != nil {
		t.Fatal(err)
	}
	r := NewReport(cfg, h, b)
	sumRate, sumDay := 0.0, 0.0
	for i, c := range append(r.Classes, r.Overall) {
		// Overall: the classes' sum, the configured mix at $0.0048 a
		// request (0.3 × $0.002 + 0.7 × $0.006), not the drawn mix.
		wantRate, wantDay := rate, (0.3*price+0.7*3*price)*rate*86400
		if i < len(cfg.Classes) {
			wantRate = rate * cfg.Classes[i].Share
			wantDay = cfg.Models[cfg.Classes[i].Policy.Primary].PricePerRequest * wantRate * 86400
		}
		s := c.Spend
		if math.Abs(s.RequestsPerSecond-wantRate) > 1e-9*rate || math.Abs(s.PerDay-wantDay) > 1e-9*wantDay ||
			math.Abs(s.PerMonth-30*wantDay) > 1e-9*wantDay || s.NoHedgingPerDay != s.PerDay {
			t.Errorf("%s: spend %+v; want %g req/s, $%g per day, $%g per month", c.Class, s, wantRate, wantDay, 30*wantDay)
		}
		if c.Class != "overall" {
			sumRate += s.RequestsPerSecond
			sumDay += s.PerDay
		}
	}
	if math.Abs(sumRate-rate) > 1e-9 || math.Abs(sumDay-r.Overall.Spend.PerDay) > 1e-6 {
		t.Errorf("classes add up to %g req/s, $%g per day; want %g, $%g", sumRate, sumDay, rate, r.Overall.Spend.PerDay)
	}
}

// TestArrivalRateReplay: ten arrivals one second apart are 1 request per
// second; only the requests replayed count.
func TestArrivalRateReplay(t *testing.T) {
	tr := &Trace{}
	for i := range 10 {
		tr.Arrivals = append(tr.Arrivals, time.Duration(i)*time.Second)
	}
	cfg := &Config{Requests: 10, Arrivals: Arrivals{Process: Replay, Trace: tr}}
	if got := ArrivalRate(cfg); math.Abs(got-1) > 1e-12 {
		t.Errorf("rate %g; want 1", got)
	}
	cfg.Requests = 1
	if got := ArrivalRate(cfg); got != 0 {
		t.Errorf("one request: rate %g; want 0", got)
	}
	cfg = &Config{Requests: 4, Arrivals: Arrivals{Process: Replay, Trace: &Trace{Arrivals: []time.Duration{0, 250 * time.Millisecond, 500 * time.Millisecond, 750 * time.Millisecond, time.Hour}}}}
	if got := ArrivalRate(cfg); math.Abs(got-4) > 1e-12 {
		t.Errorf("first four of a trace 250 ms apart: rate %g; want 4", got)
	}
}

func TestDollars(t *testing.T) {
	for _, tt := range []struct {
		x    float64
		want string
	}{{0, "$0"}, {0.01234, "$0.0123"}, {12.345, "$12.35"}, {99.994, "$99.99"}, {99.996, "$100"}, {648.004, "$648"}, {999.5, "$1,000"}, {1570633.65, "$1,570,634"}, {-2500, "-$2,500"}, {123456, "$123,456"}} {
		if got := dollars(tt.x); got != tt.want {
			t.Errorf("dollars(%g) = %q; want %q", tt.x, got, tt.want)
		}
	}
}

func TestPerSecond(t *testing.T) {
	for _, tt := range []struct {
		x    float64
		want string
	}{{0, "0"}, {0.5, "0.5"}, {24.94, "24.9"}, {183.2, "183"}, {999.4, "999"}, {999.5, "1,000"}, {1234.4, "1,234"}, {6640, "6,640"}, {1e6, "1,000,000"}} {
		if got := PerSecond(tt.x); got != tt.want {
			t.Errorf("PerSecond(%g) = %q; want %q", tt.x, got, tt.want)
		}
	}
}

// TestNoArrivalSpan: a replayed trace spans no time when the requests it
// replays all arrive at one instant, or it replays one; Poisson arrivals
// and a trace of two instants have a rate.
func TestNoArrivalSpan(t *testing.T) {
	same := &Trace{Arrivals: []time.Duration{time.Second, time.Second, time.Second}}
	for _, tt := range []struct {
		cfg  Config
		want bool
	}{
		{Config{Requests: 3, Arrivals: Arrivals{Process: Replay, Trace: same}}, true},
		{Config{Requests: 1, Arrivals: Arrivals{Process: Replay, Trace: &Trace{Arrivals: []time.Duration{0, time.Second}}}}, true},
		{Config{Requests: 2, Arrivals: Arrivals{Process: Replay, Trace: &Trace{Arrivals: []time.Duration{0, time.Second}}}}, false},
		{Config{Requests: 3, Arrivals: Arrivals{Process: Poisson, Rate: 1}}, false},
	} {
		if got := NoArrivalSpan(&tt.cfg); got != tt.want {
			t.Errorf("%d requests of %+v: NoArrivalSpan %v; want %v", tt.cfg.Requests, tt.cfg.Arrivals, got, tt.want)
		}
		if got := NoSpanWarning(&tt.cfg) != ""; got != tt.want {
			t.Errorf("%d requests of %+v: warning %v; want %v", tt.cfg.Requests, tt.cfg.Arrivals, got, tt.want)
		}
	}
}
