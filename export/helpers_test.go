package export

import (
	"testing"
	"time"

	"github.com/hedgesim/hedgesim/scenario"
	"github.com/hedgesim/hedgesim/scenarios"
	"github.com/hedgesim/hedgesim/sim"
)

// loadShipped parses a scenario shipped in the scenarios directory.
func loadShipped(t testing.TB, name string) *sim.Config {
	t.Helper()
	sc, err := scenario.LoadFS(scenarios.FS, name)
	if err != nil {
		t.Fatal(err)
	}
	return &sc.Config
}

// shippedDocs returns the policies of every shipped scenario, and of each
// with hedging switched off in its first class.
func shippedDocs(t testing.TB) []*Document {
	t.Helper()
	var ds []*Document
	for _, name := range scenarios.Names() {
		d := ScenarioPolicies(loadShipped(t, name))
		ds = append(ds, d)
		off := ScenarioPolicies(loadShipped(t, name))
		off.Scenario += " (first class off)"
		off.Classes[0].Hedge, off.Classes[0].Copies, off.Classes[0].Adaptive = false, []Copy{}, nil
		ds = append(ds, off)
	}
	return append(ds, variantDoc(t), fallbackTimeoutDoc(t))
}

// fallbackTimeoutDoc is overloaded-pool's fallback sent only when an
// attempt passes a 1.5 s per-attempt timeout (every other failure fatal).
func fallbackTimeoutDoc(t testing.TB) *Document {
	d := ScenarioPolicies(loadShipped(t, "overloaded-pool.toml"))
	d.Scenario = "fallback after a per-attempt timeout"
	c := &d.Classes[0]
	c.OnError, c.OnRateLimited = "fatal", "fatal"
	c.AttemptTimeout, c.OnAttemptTimeout = Seconds(1500*time.Millisecond), "nonfatal"
	return d
}

// variantDoc is the two-model gateway with a feature per class that no
// shipped scenario uses: every budget and an attempt timeout, ignored
// failures and no deadline, first_response, several copies to several
// targets with their own delays.
func variantDoc(t testing.TB) *Document {
	d := ScenarioPolicies(loadShipped(t, "two-model-gateway.toml"))
	d.Scenario = "variants"
	v := d.Classes
	v[0].Budget = Budget{MaxInFlightRatio: 0.2, MinInFlight: 3, MaxHedgeShare: 0.1, RetryThrottling: &Throttle{10, 0.1}, HedgesPerSecond: 5, Burst: 2, MaxParallel: 2}
	v[0].AttemptTimeout, v[0].OnAttemptTimeout = Seconds(2*time.Second), "fatal"
	v[1].OnError, v[1].OnRateLimited, v[1].OnInvalid, v[1].Deadline = "ignore", "ignore", "ignore", 0
	v[2].Winner = "first_response"
	v[3].Copies = []Copy{{Target: "large-b", Delay: Seconds(300 * time.Millisecond)}, {Target: "large-a", Delay: Seconds(500 * time.Millisecond)}, {Target: "large-b", Delay: 0}}
	v[3].NewProvider = true
	return d
}

// withoutAdaptive returns d without the classes that use an adaptive
// delay, which gRPC and Envoy cannot express (TestUnmappable checks that
// they are refused); nil when none is left.
func withoutAdaptive(d *Document) *Document {
	e := *d
	e.Classes = nil
	for _, c := range d.Classes {
		if c.Adaptive == nil {
			e.Classes = append(e.Classes, c)
		}
	}
	if len(e.Classes) == 0 {
		return nil
	}
	return &e
}
