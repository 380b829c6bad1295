package optimize

import (
	"strings"
	"testing"
)

// TestRoutingVerdictNeedsRealIntervals: another balancer's interval wholly
// below the configured one's counts as apart only when both are real
// order-statistic intervals (CIOK); when either side is not, the verdict
// makes no claim of being faster and says the requests were too few to
// tell — whichever side lacks the interval.
func TestRoutingVerdictNeedsRealIntervals(t *testing.T) {
	rc := func(confOK, otherOK bool) *RoutingClass {
		return &RoutingClass{Class: "c", Configured: "random", Percentile: 0.95, Options: []RoutingOption{
			{Balancer: "random", Configured: true, Policy: "none", Latency: 6.39, CI: [2]float64{6.69, 7.87}, CIOK: confOK},
			{Balancer: "latency_ewma", Policy: "none", Latency: 2.0, CI: [2]float64{1.9, 2.1}, CIOK: otherOK},
		}}
	}
	if v := routingVerdict(rc(true, true), 0.95); !strings.HasPrefix(v, "latency_ewma without hedging beats random without hedging") || !strings.Contains(v, "(intervals apart)") {
		t.Errorf("both intervals ok: verdict %q, want latency_ewma beats random (intervals apart)", v)
	}
	for _, c := range []struct{ confOK, otherOK bool }{{false, true}, {true, false}, {false, false}} {
		v := routingVerdict(rc(c.confOK, c.otherOK), 0.95)
		if strings.Contains(v, "beats") || strings.Contains(v, "intervals apart") || !strings.Contains(v, "too few requests to tell") {
			t.Errorf("configured interval ok %v, latency_ewma's ok %v: verdict %q, want no claim and too few requests to tell", c.confOK, c.otherOK, v)
		}
	}
	// Intervals that overlap give no verdict at all, ok or not.
	o := rc(false, false)
	o.Options[1].CI = [2]float64{1.9, 6.7}
	if v := routingVerdict(o, 0.95); v != "" {
		t.Errorf("overlapping intervals: verdict %q, want none", v)
	}
}

// TestRoutingTableHidesMeaninglessIntervals: the routing table prints an
// option's interval only when it is a real 95 % interval (CIOK), "n/a"
// otherwise, as the candidates' table does — an interval flagged not ok
// need not even hold its estimate (6.39 s against [6.69 s, 7.87 s]).
func TestRoutingTableHidesMeaninglessIntervals(t *testing.T) {
	r := &Report{Routing: &Routing{Balancers: []string{"latency_ewma"}, Classes: []RoutingClass{{Class: "c", Configured: "random", Percentile: 0.95, Options: []RoutingOption{
		{Balancer: "random", Configured: true, Policy: "none", Latency: 6.39, CI: [2]float64{6.69, 7.87}, CIOK: false},
		{Balancer: "latency_ewma", Policy: "none", Latency: 2.0, CI: [2]float64{1.9, 2.1}, CIOK: true},
	}}}}}
	var b strings.Builder
	r.writeRouting(&b)
	text := b.String()
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.Contains(line, "random (configured)") && (strings.Contains(line, "6.69") || !strings.Contains(line, "n/a")):
			t.Errorf("configured row %q: want n/a for an interval not ok", line)
		case strings.Contains(line, "latency_ewma ") && strings.Contains(line, "no hedging") && !strings.Contains(line, "["):
			t.Errorf("latency_ewma row %q: want its real interval", line)
		}
	}
	if !strings.Contains(text, "n/a") {
		t.Errorf("no n/a in the routing table:\n%s", text)
	}
}
